#include "tokenlab/plugin_registry.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <bit>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string_view>

#include "tokenlab/error.hpp"

namespace tokenlab {

static_assert(std::string_view(TOKENLAB_VERSION) == TOKENLAB_PLUGIN_TOKENLAB_VERSION,
              "TOKENLAB_PLUGIN_TOKENLAB_VERSION in plugin_abi.hpp must equal project(VERSION)");

namespace {

__extension__ typedef unsigned __int128 Uint128;

// The checks a file must pass before dlopen: dlopen maps the file and faults
// (SIGBUS) on a page past its end, and a sanitizer runtime aborts the process from
// its constructor when the host was not built with it. Neither can be caught, so
// the ELF headers are read and checked first.
class ElfFile {
 public:
  explicit ElfFile(const std::filesystem::path& file)
      : fd_(::open(file.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw std::runtime_error(std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0)
      throw std::runtime_error(std::string("cannot stat: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw std::runtime_error("not a regular file");
    size_ = static_cast<std::uint64_t>(st.st_size);
  }
  ~ElfFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }

  // True if [offset, offset + count * each) lies inside the file (no overflow).
  [[nodiscard]] bool covers(std::uint64_t offset, std::uint64_t count, std::uint64_t each) const {
    const Uint128 end = static_cast<Uint128>(offset) + static_cast<Uint128>(count) * each;
    return end <= size_;
  }

  void read(std::uint64_t offset, void* out, std::size_t bytes) const {
    auto* p = static_cast<char*>(out);
    while (bytes > 0) {
      const ssize_t n = ::pread(fd_, p, bytes, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw std::runtime_error("read error in the ELF headers");
      p += n;
      offset += static_cast<std::uint64_t>(n);
      bytes -= static_cast<std::size_t>(n);
    }
  }

  template <class T>
  std::vector<T> read_array(std::uint64_t offset, std::uint64_t count) const {
    std::vector<T> items(count);
    if (count > 0) read(offset, items.data(), count * sizeof(T));
    return items;
  }

 private:
  int fd_;
  std::uint64_t size_ = 0;
};

#if defined(__x86_64__)
constexpr int kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr int kHostMachine = EM_AARCH64;
#elif defined(__riscv)
constexpr int kHostMachine = EM_RISCV;
#elif defined(__powerpc64__)
constexpr int kHostMachine = EM_PPC64;
#else
constexpr int kHostMachine = -1;  // not checked
#endif

struct SanitizerRuntime {
  std::string_view prefix;
  std::string_view name;
};
constexpr SanitizerRuntime kSanitizerRuntimes[] = {{"__asan_", "AddressSanitizer"},
                                                   {"__hwasan_", "HWAddressSanitizer"},
                                                   {"__tsan_", "ThreadSanitizer"},
                                                   {"__msan_", "MemorySanitizer"},
                                                   {"__ubsan_", "UndefinedBehaviorSanitizer"}};

// Returns "" or why the file must not be passed to dlopen.
std::string check_elf(const std::filesystem::path& file) {
  static_assert(sizeof(void*) == 8, "the ELF check reads 64-bit headers");
  try {
    const ElfFile elf(file);
    Elf64_Ehdr header{};
    if (elf.size() < SELFMAG)
      return "cannot load: not an ELF file (" + std::to_string(elf.size()) + " bytes)";
    elf.read(0, header.e_ident, SELFMAG);
    if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
      return "cannot load: not an ELF shared library (no ELF magic number)";
    if (elf.size() < sizeof header)
      return "ELF check failed: the file is truncated (" + std::to_string(elf.size()) +
             " bytes, shorter than the ELF header; an unfinished copy?)";
    elf.read(0, &header, sizeof header);
    if (header.e_ident[EI_CLASS] != ELFCLASS64)
      return "ELF check failed: a 32-bit library, this tokenlab is 64-bit";
    constexpr unsigned char kHostData =
        std::endian::native == std::endian::little ? ELFDATA2LSB : ELFDATA2MSB;
    if (header.e_ident[EI_DATA] != kHostData)
      return "ELF check failed: the library's byte order is not this machine's";
    if (kHostMachine >= 0 && header.e_machine != kHostMachine)
      return "ELF check failed: built for another machine (ELF machine " +
             std::to_string(header.e_machine) + ", this is " + std::to_string(kHostMachine) + ")";
    if (header.e_type != ET_DYN)
      return "ELF check failed: not a shared library (ELF type " + std::to_string(header.e_type) +
             ")";
    const auto truncated = [&](const std::string& what, std::uint64_t needed) {
      return "ELF check failed: the file is truncated: " + what + " needs " +
             std::to_string(needed) + " bytes, the file has " + std::to_string(elf.size()) +
             " (an unfinished copy? copy it again)";
    };
    if (header.e_phnum > 0 && header.e_phentsize != sizeof(Elf64_Phdr))
      return "ELF check failed: unexpected program header size";
    if (header.e_shnum > 0 && header.e_shentsize != sizeof(Elf64_Shdr))
      return "ELF check failed: unexpected section header size";
    if (!elf.covers(header.e_phoff, header.e_phnum, sizeof(Elf64_Phdr)))
      return truncated("the program header table",
                       header.e_phoff + std::uint64_t{header.e_phnum} * sizeof(Elf64_Phdr));
    if (!elf.covers(header.e_shoff, header.e_shnum, sizeof(Elf64_Shdr)))
      return truncated("the section header table",
                       header.e_shoff + std::uint64_t{header.e_shnum} * sizeof(Elf64_Shdr));
    for (const auto& ph : elf.read_array<Elf64_Phdr>(header.e_phoff, header.e_phnum))
      if (ph.p_type == PT_LOAD && !elf.covers(ph.p_offset, ph.p_filesz, 1))
        return truncated("a loadable segment", ph.p_offset + ph.p_filesz);
    const auto sections = elf.read_array<Elf64_Shdr>(header.e_shoff, header.e_shnum);
    for (const auto& sh : sections)
      if (sh.sh_type != SHT_NOBITS && !elf.covers(sh.sh_offset, sh.sh_size, 1))
        return truncated("a section", sh.sh_offset + sh.sh_size);

    // Sanitizer runtimes the library needs and this process lacks: dlopen would
    // abort ("ASan runtime does not come first") or fail on undefined symbols.
    for (const auto& sh : sections) {
      if (sh.sh_type != SHT_DYNSYM || sh.sh_link >= sections.size()) continue;
      const auto& strtab = sections[sh.sh_link];
      const auto symbols = elf.read_array<Elf64_Sym>(sh.sh_offset, sh.sh_size / sizeof(Elf64_Sym));
      const auto names = elf.read_array<char>(strtab.sh_offset, strtab.sh_size);
      for (const auto& sym : symbols) {
        if (sym.st_shndx != SHN_UNDEF || sym.st_name >= names.size()) continue;
        const char* name = names.data() + sym.st_name;
        const std::string_view symbol(name, strnlen(name, names.size() - sym.st_name));
        for (const auto& runtime : kSanitizerRuntimes) {
          if (!symbol.starts_with(runtime.prefix)) continue;
          if (::dlsym(RTLD_DEFAULT, std::string(symbol).c_str()) != nullptr) break;
          return "sanitizer check failed: the plugin is built with " + std::string(runtime.name) +
                 " (it needs '" + std::string(symbol) +
                 "') and this tokenlab is not; loading it would abort the process. Rebuild "
                 "the plugin without sanitizers, or use a tokenlab built with the same ones";
        }
      }
    }
  } catch (const std::exception& e) {
    return std::string("cannot load: ") + e.what();
  }
  return {};
}

// Plugin libraries are never unloaded: objects and deleters they created may run
// until exit, and unloading breaks sanitizer stack traces. The handles live in a
// process-wide list that is intentionally never destroyed.
std::vector<boost::dll::shared_library>& library_handles() {
  static auto* handles = new std::vector<boost::dll::shared_library>();
  return *handles;
}
std::mutex& library_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

struct PluginRegistry::Loaded {
  PluginInfo info;
  const tokenlab_plugin_descriptor* descriptor = nullptr;
};

PluginRegistry::PluginRegistry() = default;
PluginRegistry::~PluginRegistry() = default;

std::vector<std::filesystem::path> PluginRegistry::default_search_path(
    const std::vector<std::filesystem::path>& explicit_dirs) {
  std::vector<std::filesystem::path> dirs = explicit_dirs;
  if (const char* env = std::getenv("TOKENLAB_PLUGIN_PATH"); env != nullptr && *env != '\0') {
    std::string_view rest(env);
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const auto part = rest.substr(0, colon);
      if (!part.empty()) dirs.emplace_back(std::string(part));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  std::error_code ec;
  const auto exe = boost::dll::program_location(ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / "lib" / "tokenlab" / "plugins");
  return dirs;
}

std::string check_descriptor(const tokenlab_plugin_descriptor* d,
                             const std::string& expected_name) {
  if (d == nullptr) return "entry point returned a null descriptor";
  if (d->abi_version != TOKENLAB_PLUGIN_ABI_VERSION)
    return "ABI version check failed: plugin has ABI version " + std::to_string(d->abi_version) +
           ", this tokenlab needs " + std::to_string(TOKENLAB_PLUGIN_ABI_VERSION) +
           " (rebuild the plugin)";
  if (d->struct_size < sizeof(tokenlab_plugin_descriptor))
    return "descriptor size check failed: " + std::to_string(d->struct_size) +
           " bytes, expected at least " + std::to_string(sizeof(tokenlab_plugin_descriptor)) +
           " (built against an older tokenlab that does not record its version; rebuild the "
           "plugin against tokenlab " TOKENLAB_PLUGIN_TOKENLAB_VERSION ")";
  if (d->toolchain == nullptr || std::strcmp(d->toolchain, TOKENLAB_TOOLCHAIN_FINGERPRINT) != 0)
    return std::string("toolchain check failed: plugin built with '") +
           (d->toolchain ? d->toolchain : "(null)") +
           "', tokenlab with '" TOKENLAB_TOOLCHAIN_FINGERPRINT
           "' (build both with the same compiler)";
  if (d->tokenlab_version == nullptr ||
      std::strcmp(d->tokenlab_version, TOKENLAB_PLUGIN_TOKENLAB_VERSION) != 0)
    return std::string("version check failed: plugin built against tokenlab ") +
           (d->tokenlab_version ? d->tokenlab_version : "(null)") +
           ", this is tokenlab " TOKENLAB_PLUGIN_TOKENLAB_VERSION
           " (TrainOptions, WordCounts and Vocabulary cross the plugin boundary by layout; "
           "rebuild the plugin against this version)";
  if (d->name == nullptr || d->version == nullptr || d->make_segmenter == nullptr)
    return "descriptor check failed: name, version or factory is null";
  if (!expected_name.empty() && expected_name != d->name)
    return "name check failed: plugin calls itself '" + std::string(d->name) +
           "' but the file is named '" + expected_name + "' (they must be equal)";
  return {};
}

const PluginInfo& PluginRegistry::add(const tokenlab_plugin_descriptor* d,
                                      const std::filesystem::path& file, std::shared_ptr<void>) {
  const std::string where = file.empty() ? std::string("static plugin") : file.string();
  if (loaded_.count(d->name) > 0)
    throw Error(where + ": uniqueness check failed: a plugin named '" + d->name +
                "' is already loaded from " +
                (loaded_.at(d->name)->info.file.empty() ? std::string("a static registration")
                                                        : loaded_.at(d->name)->info.file.string()));
  auto loaded = std::make_unique<Loaded>();
  loaded->descriptor = d;
  loaded->info = PluginInfo{d->name,      d->version,      d->description ? d->description : "",
                            d->toolchain, d->capabilities, file};
  auto& ref = *loaded;
  loaded_.emplace(d->name, std::move(loaded));
  return ref.info;
}

const PluginInfo& PluginRegistry::load_file(const std::filesystem::path& file) {
  const std::string where = file.string();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw Error(where + ": no such plugin file");
  if (std::filesystem::is_directory(file, ec))
    throw Error(where + ": is a directory, not a plugin file");
  if (const std::string problem = check_elf(file); !problem.empty())
    throw Error(where + ": " + problem);
  boost::dll::shared_library library;
  try {
    library.load(boost::dll::fs::path(file.string()),
                 boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    throw Error(where + ": cannot load shared library: " + e.what());
  }
  if (!library.has(TOKENLAB_PLUGIN_ENTRY_SYMBOL))
    throw Error(where + ": entry point check failed: no symbol '" TOKENLAB_PLUGIN_ENTRY_SYMBOL
                        "' (not a tokenlab plugin, or TOKENLAB_DEFINE_PLUGIN missing)");
  auto& entry = library.get<const tokenlab_plugin_descriptor*()>(TOKENLAB_PLUGIN_ENTRY_SYMBOL);
  const tokenlab_plugin_descriptor* descriptor = entry();
  const std::string problem = check_descriptor(descriptor, file.stem().string());
  if (!problem.empty()) throw Error(where + ": " + problem);
  const PluginInfo& info = add(descriptor, std::filesystem::absolute(file, ec), nullptr);
  std::lock_guard lock(library_mutex());
  library_handles().push_back(std::move(library));
  return info;
}

void PluginRegistry::load_search_path(const std::vector<std::filesystem::path>& dirs) {
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.path().extension() == ".so") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      if (loaded_.count(file.stem().string()) > 0) continue;  // an earlier directory wins
      try {
        load_file(file);
      } catch (const Error& e) {
        errors_.push_back(e.what());
      }
    }
  }
}

const PluginInfo& PluginRegistry::add_static(const tokenlab_plugin_descriptor* descriptor) {
  const std::string problem = check_descriptor(descriptor, "");
  if (!problem.empty()) throw Error("static plugin: " + problem);
  return add(descriptor, {}, nullptr);
}

std::vector<PluginInfo> PluginRegistry::plugins() const {
  std::vector<PluginInfo> out;
  for (const auto& [name, loaded] : loaded_) out.push_back(loaded->info);
  return out;
}

std::string PluginRegistry::available_names() const {
  std::string names;
  for (const auto& [name, loaded] : loaded_) names += (names.empty() ? "" : ", ") + name;
  return names.empty() ? std::string("(none found)") : names;
}

bool PluginRegistry::has(const std::string& name) const {
  return loaded_.count(name) > 0;
}

const PluginInfo& PluginRegistry::info(const std::string& name) const {
  auto it = loaded_.find(name);
  if (it == loaded_.end()) {
    throw Error("unknown algorithm '" + name + "'; available: " + available_names());
  }
  return it->second->info;
}

std::unique_ptr<Segmenter> PluginRegistry::create(const std::string& name) const {
  const PluginInfo& plugin = info(name);
  const auto* d = loaded_.at(plugin.name)->descriptor;
  char message[512] = {0};
  Segmenter* s = nullptr;
  try {  // the factory must not throw; a broken one is an Error for this plugin only
    s = d->make_segmenter(message, sizeof message);
  } catch (const std::exception& e) {
    throw Error("plugin '" + name + "' failed to create a segmenter: its factory threw (" +
                e.what() + ")");
  } catch (...) {
    throw Error("plugin '" + name + "' failed to create a segmenter: its factory threw");
  }
  if (s == nullptr)
    throw Error("plugin '" + name +
                "' failed to create a segmenter: " + (message[0] ? message : "no reason given"));
  return std::unique_ptr<Segmenter>(s);
}

}  // namespace tokenlab

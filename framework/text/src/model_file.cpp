#include "tokenlab/model_file.hpp"

#include <boost/crc.hpp>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>

#include "tokenlab/atomic_file.hpp"
#include "tokenlab/error.hpp"

namespace tokenlab {

namespace {

constexpr char kMagic[8] = {'T', 'K', 'L', 'B', 'M', 'O', 'D', 'L'};
constexpr std::uint32_t kMaxHeaderString = 4096;
// Largest payload read from a pipe or device, whose size is unknown in advance.
constexpr std::uint64_t kMaxStreamPayload = std::uint64_t{1} << 30;

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put_string(std::string& out, const std::string& s) {
  put_u32(out, static_cast<std::uint32_t>(s.size()));
  out += s;
}

// Reads the header fields straight from the stream with bounds checks, so that
// nothing is buffered before the magic number and each length are validated.
class HeaderReader {
 public:
  HeaderReader(std::istream& in, const std::string& path) : in_(in), path_(path) {}
  std::uint32_t u32(const char* what) {
    unsigned char b[4];
    read(b, 4, what);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(b[i]) << (8 * i);
    return v;
  }
  std::uint64_t u64(const char* what) {
    unsigned char b[8];
    read(b, 8, what);
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(b[i]) << (8 * i);
    return v;
  }
  std::string str(const char* what) {
    const std::uint32_t n = u32(what);
    if (n > kMaxHeaderString)
      fail(std::string("implausible length of ") + what + " (corrupted file)");
    std::string s(n, '\0');
    read(s.data(), n, what);
    return s;
  }
  std::uint64_t position() const { return pos_; }
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(path_ + ": not a valid tokenlab model: " + why);
  }

 private:
  void read(void* out, std::size_t n, const char* what) {
    if (n == 0) return;
    in_.read(static_cast<char*>(out), static_cast<std::streamsize>(n));
    if (in_.bad()) throw Error(path_ + ": read error");
    if (static_cast<std::size_t>(in_.gcount()) != n)
      fail(std::string("file truncated while reading ") + what);
    pos_ += n;
  }
  std::istream& in_;
  const std::string& path_;
  std::uint64_t pos_ = sizeof kMagic;
};

}  // namespace

std::uint32_t crc32(const void* data, std::size_t size) noexcept {
  boost::crc_32_type crc;
  crc.process_bytes(data, size);
  return crc.checksum();
}

void write_model_file(const std::filesystem::path& path, const ModelFile& model) {
  std::string header(kMagic, sizeof kMagic);
  put_u32(header, kModelFormatVersion);
  put_string(header, model.header.plugin_name);
  put_string(header, model.header.plugin_version);
  put_string(header, model.header.normalizer.to_string());
  put_string(header, model.header.pre_tokenizer.to_string());
  put_u64(header, model.payload.size());
  put_u32(header, crc32(model.payload.data(), model.payload.size()));
  write_file_atomically(path, [&](std::ostream& out) {
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(model.payload.data(), static_cast<std::streamsize>(model.payload.size()));
  });
}

ModelFile read_model_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(name + ": is a directory, not a model file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(name + ": cannot open model file: " + std::strerror(errno));
  // The declared payload length is trusted only up to what the file holds: a
  // regular file's size, or kMaxStreamPayload for a pipe or device.
  std::uint64_t size = kMaxStreamPayload;
  if (std::filesystem::is_regular_file(path, ec)) {
    const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
    if (!ec) size = bytes;
  }
  return read_model_file(in, name, size);
}

ModelFile read_model_file(std::istream& in, const std::string& name, std::uint64_t size) {
  // The magic number first: /dev/zero or a large foreign file fails after 8 bytes.
  char magic[sizeof kMagic] = {};
  in.read(magic, sizeof magic);
  if (in.bad()) throw Error(name + ": read error");
  if (in.gcount() != static_cast<std::streamsize>(sizeof magic) ||
      std::memcmp(magic, kMagic, sizeof kMagic) != 0)
    throw Error(name + ": not a tokenlab model (bad magic number)");
  HeaderReader reader(in, name);
  ModelFile model;
  model.header.format_version = reader.u32("format version");
  if (model.header.format_version != kModelFormatVersion)
    reader.fail("format version " + std::to_string(model.header.format_version) +
                " is not supported (this build reads version " +
                std::to_string(kModelFormatVersion) + ")");
  model.header.plugin_name = reader.str("plugin name");
  model.header.plugin_version = reader.str("plugin version");
  try {
    model.header.normalizer = NormalizerOptions::parse(reader.str("normalizer settings"));
    model.header.pre_tokenizer = PreTokenizerOptions::parse(reader.str("pre-tokenizer settings"));
  } catch (const Error& e) {
    reader.fail(e.what());
  }
  const std::uint64_t payload_length = reader.u64("payload length");
  const std::uint32_t expected_crc = reader.u32("checksum");
  const std::uint64_t start = reader.position();
  const std::uint64_t available = size > start ? size - start : 0;
  if (payload_length > available)
    reader.fail("file truncated: the payload length " + std::to_string(payload_length) +
                " exceeds the " + std::to_string(available) + " bytes left in the file");
  model.payload.resize(static_cast<std::size_t>(payload_length));
  in.read(model.payload.data(), static_cast<std::streamsize>(payload_length));
  if (in.bad()) throw Error(name + ": read error");
  const auto got = static_cast<std::uint64_t>(in.gcount());
  if (got < payload_length)
    reader.fail("file truncated: payload has " + std::to_string(got) + " of " +
                std::to_string(payload_length) + " bytes");
  if (in.peek() != std::char_traits<char>::eof()) reader.fail("unexpected bytes after the payload");
  if (crc32(model.payload.data(), model.payload.size()) != expected_crc)
    reader.fail("checksum mismatch (file corrupted)");
  return model;
}

}  // namespace tokenlab

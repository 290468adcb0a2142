#include "tokenlab/model_file.hpp"

#include <boost/crc.hpp>
#include <cstring>
#include <fstream>
#include <iterator>
#include <ostream>

#include "tokenlab/atomic_file.hpp"
#include "tokenlab/error.hpp"

namespace tokenlab {

namespace {

constexpr char kMagic[8] = {'T', 'K', 'L', 'B', 'M', 'O', 'D', 'L'};
constexpr std::uint32_t kMaxHeaderString = 4096;

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

// Reads the header fields from a byte buffer with bounds checks.
class HeaderReader {
 public:
  HeaderReader(const std::string& data, const std::string& path) : data_(data), path_(path) {}
  std::uint32_t u32(const char* what) {
    need(4, what);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v |= static_cast<std::uint32_t>(static_cast<unsigned char>(data_[pos_ + i])) << (8 * i);
    pos_ += 4;
    return v;
  }
  std::uint64_t u64(const char* what) {
    need(8, what);
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(data_[pos_ + i])) << (8 * i);
    pos_ += 8;
    return v;
  }
  std::string str(const char* what) {
    const std::uint32_t n = u32(what);
    if (n > kMaxHeaderString)
      fail(std::string("implausible length of ") + what + " (corrupted file)");
    need(n, what);
    std::string s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::size_t position() const { return pos_; }
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(path_ + ": not a valid tokenlab model: " + why);
  }

 private:
  void need(std::size_t n, const char* what) {
    if (pos_ + n > data_.size()) fail(std::string("file truncated while reading ") + what);
  }
  const std::string& data_;
  const std::string& path_;
  std::size_t pos_ = 8;
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
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(name + ": read error");
  if (data.size() < sizeof kMagic || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0)
    throw Error(name + ": not a tokenlab model (bad magic number)");
  HeaderReader reader(data, name);
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
  const std::size_t start = reader.position();
  if (data.size() - start < payload_length)
    reader.fail("file truncated: payload has " + std::to_string(data.size() - start) + " of " +
                std::to_string(payload_length) + " bytes");
  if (data.size() - start > payload_length)
    reader.fail("unexpected " + std::to_string(data.size() - start - payload_length) +
                " bytes after the payload");
  model.payload = data.substr(start);
  if (crc32(model.payload.data(), model.payload.size()) != expected_crc)
    reader.fail("checksum mismatch (file corrupted)");
  return model;
}

}  // namespace tokenlab

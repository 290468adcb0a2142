#include <algorithm>
#include <cstring>
#include <iterator>

#include "tokenlab/segmenter_support.hpp"

namespace tokenlab {

void add_special_tokens(Vocabulary& vocabulary, const TrainOptions& options,
                        const std::vector<std::string>& defaults, const std::string& unknown_token,
                        const std::string& plugin) {
  std::vector<std::string> specials = options.special_tokens.value_or(defaults);
  if (!unknown_token.empty() &&
      std::find(specials.begin(), specials.end(), unknown_token) == specials.end())
    specials.insert(specials.begin(), unknown_token);
  for (const auto& s : specials) {
    if (s.empty()) throw Error(plugin + ": a special token is empty");
    if (vocabulary.contains(s)) throw Error(plugin + ": special token '" + s + "' given twice");
    vocabulary.add_special(s);
  }
  if (options.vocab_size <= specials.size())
    throw Error(plugin + ": vocabulary size " + std::to_string(options.vocab_size) +
                " is too small: the " + std::to_string(specials.size()) +
                " special tokens need it to be at least " + std::to_string(specials.size() + 1));
  if (!unknown_token.empty()) vocabulary.set_unknown(*vocabulary.find(unknown_token));
}

std::string decode_pieces(const Vocabulary& vocabulary, std::span<const TokenId> ids) {
  std::string out;
  const auto unknown = vocabulary.unknown_id();
  for (const TokenId id : ids) {
    if (unknown && id == *unknown) {
      out += kUnknownSurface;
    } else if (!vocabulary.is_special(id)) {
      out += vocabulary.piece(id);
    }
  }
  return out;
}

PayloadWriter::PayloadWriter(std::ostream& out, std::string_view plugin, std::uint32_t version)
    : out_(out) {
  raw(kPayloadMagic, sizeof kPayloadMagic);
  text(plugin);
  scalar<std::uint32_t>(version);
}

void PayloadWriter::raw(const void* data, std::size_t size) {
  out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
}

void PayloadWriter::flag(bool value) {
  scalar<std::uint8_t>(value ? 1 : 0);
}

void PayloadWriter::text(std::string_view value) {
  scalar<std::uint64_t>(value.size());
  raw(value.data(), value.size());
}

void PayloadWriter::vocabulary(const Vocabulary& vocabulary) {
  scalar<std::uint64_t>(vocabulary.size());
  for (const std::string& piece : vocabulary.pieces()) text(piece);
  scalar<std::uint64_t>(vocabulary.special_count());
  flag(vocabulary.unknown_id().has_value());
  scalar<std::uint32_t>(vocabulary.unknown_id().value_or(0));
}

PayloadReader::PayloadReader(std::istream& in, std::string plugin, std::uint32_t version)
    : plugin_(std::move(plugin)) {
  try {
    data_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::exception& e) {
    fail(std::string("cannot read the payload: ") + e.what());
  }
  if (in.bad()) fail("read error");
  if (data_.size() < sizeof kPayloadMagic ||
      std::memcmp(data_.data(), kPayloadMagic, sizeof kPayloadMagic) != 0) {
    if (data_.size() >= 4 && data_[0] >= 1 && data_[0] <= 3 && data_[1] == 0 && data_[2] == 0 &&
        data_[3] == 0)
      fail("payload written by an older tokenlab (format " + std::to_string(int{data_[0]}) +
           ", without a plugin tag); re-train or re-import the model");
    fail("payload has no plugin tag (not a tokenlab payload)");
  }
  pos_ = sizeof kPayloadMagic;
  const std::string tag = text("plugin tag", kMaxPayloadTag);
  if (tag != plugin_)
    fail("the payload belongs to plugin '" + tag + "' (the model header and the payload disagree)");
  const auto found = scalar<std::uint32_t>("format version");
  if (found != version)
    fail("unsupported format version " + std::to_string(found) + " (this build reads " +
         std::to_string(version) + "); re-train or re-import the model");
}

void PayloadReader::fail(const std::string& why) const {
  throw Error("malformed " + plugin_ + " model payload: " + why);
}

void PayloadReader::raw(void* out, std::size_t size, const char* what) {
  if (size > remaining()) fail(std::string("truncated while reading ") + what);
  if (size > 0) std::memcpy(out, data_.data() + pos_, size);
  pos_ += size;
}

bool PayloadReader::flag(const char* what) {
  const auto byte = scalar<std::uint8_t>(what);
  if (byte > 1)
    fail(std::string(what) + " is " + std::to_string(byte) + ", not a boolean (0 or 1)");
  return byte == 1;
}

std::uint64_t PayloadReader::length(std::uint64_t element_size, const char* what) {
  const auto n = scalar<std::uint64_t>(what);
  const std::uint64_t left = remaining();
  if (element_size == 0 ? n > left : n > left / element_size)
    fail(std::string(what) + ": length " + std::to_string(n) + " exceeds the " +
         std::to_string(left) + " bytes left in the payload");
  return n;
}

std::string PayloadReader::text(const char* what, std::uint64_t max) {
  const std::uint64_t n = length(1, what);
  if (n > max) fail(std::string(what) + ": implausible length " + std::to_string(n));
  std::string out(static_cast<std::size_t>(n), '\0');
  raw(out.data(), out.size(), what);
  return out;
}

Vocabulary PayloadReader::vocabulary() {
  // Each piece takes at least its 8-byte length.
  const std::uint64_t count = length(sizeof(std::uint64_t), "vocabulary size");
  if (count > 0xFFFFFFFFu) fail("implausible vocabulary size");
  std::vector<std::string> pieces(static_cast<std::size_t>(count));
  for (std::string& piece : pieces) piece = text("vocabulary piece", Vocabulary::kMaxPieceBytes);
  const auto specials = scalar<std::uint64_t>("special token count");
  const bool has_unknown = flag("unknown-token flag");
  const auto unknown = scalar<std::uint32_t>("unknown token id");
  if (specials > pieces.size()) fail("more special tokens than pieces");
  Vocabulary vocabulary;
  try {
    vocabulary.rebuild(std::move(pieces), static_cast<std::size_t>(specials),
                       has_unknown ? std::optional<TokenId>(unknown) : std::nullopt);
  } catch (const Error& e) {
    fail(e.what());
  }
  return vocabulary;
}

void PayloadReader::finish() const {
  if (remaining() != 0)
    fail(std::to_string(remaining()) + " unexpected bytes after the end of the model");
}

}  // namespace tokenlab

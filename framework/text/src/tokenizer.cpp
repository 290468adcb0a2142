#include "tokenlab/tokenizer.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/interruption.hpp"
#include "tokenlab/model_file.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/segmenter_source.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/worker_pool.hpp"

namespace tokenlab {

Tokenizer::Tokenizer(NormalizerOptions normalizer, PreTokenizerOptions pre_tokenizer,
                     std::shared_ptr<Segmenter> segmenter)
    : normalizer_(normalizer), pre_tokenizer_(pre_tokenizer), segmenter_(std::move(segmenter)) {
  if (!segmenter_) throw Error("Tokenizer needs a segmenter");
}

Tokenizer Tokenizer::load(const std::filesystem::path& path, const SegmenterSource& registry) {
  ModelFile model = read_model_file(path);
  if (!registry.has(model.header.plugin_name)) {
    throw Error(path.string() + ": model needs plugin '" + model.header.plugin_name +
                "', which is not available; available: " + registry.available_names());
  }
  std::shared_ptr<Segmenter> segmenter = registry.create(model.header.plugin_name);
  std::istringstream payload(model.payload);
  try {
    segmenter->load(payload);
  } catch (const std::exception& e) {
    throw Error(path.string() + ": cannot load " + model.header.plugin_name +
                " model: " + e.what());
  }
  return Tokenizer(model.header.normalizer, model.header.pre_tokenizer, std::move(segmenter));
}

void Tokenizer::save(const std::filesystem::path& path) const {
  ModelFile model;
  model.header.plugin_name = segmenter_->name();
  model.header.plugin_version = segmenter_->version();
  model.header.normalizer = normalizer_.options();
  model.header.pre_tokenizer = pre_tokenizer_.options();
  std::ostringstream payload;
  segmenter_->save(payload);
  model.payload = std::move(payload).str();
  write_model_file(path, model);
}

void Tokenizer::for_each_word(std::string_view text, const PreTokenizer::WordCallback& fn) const {
  std::string normalized;
  std::string scratch;
  normalizer_.normalize(text, normalized);
  pre_tokenizer_.split(normalized, scratch, fn);
}

void Tokenizer::encode(std::string_view text, std::vector<TokenId>& out) const {
  std::size_t words = 0;
  for_each_word(text, [&](std::string_view word) {
    if ((++words & 255) == 0) throw_if_interrupted();  // a host may stop a long text
    segmenter_->encode(word, out);
  });
}

std::vector<TokenId> Tokenizer::encode(std::string_view text) const {
  std::vector<TokenId> out;
  encode(text, out);
  return out;
}

TextEncoder::~TextEncoder() = default;

VocabularyEntry TextEncoder::vocabulary_entry(TokenId id) const {
  if (id >= vocabulary_size()) return {};
  if (unknown_id() == id) return {display_piece(id), EntryKind::special, false};
  try {
    const TokenId one[] = {id};
    return {decode(one), EntryKind::normal, false};
  } catch (const Error&) {
    return {};
  }
}

bool TextEncoder::encodes_to_itself(TokenId id) const {
  const VocabularyEntry entry = vocabulary_entry(id);
  if (entry.text.empty() || utf8::find_invalid(entry.text)) return false;
  std::vector<TokenId> ids;
  const auto gives = [&](std::string_view text) {
    ids.clear();
    encode(text, ids);
    return ids.size() == 1 && ids.front() == id;
  };
  if (gives(entry.text)) return true;
  if (entry.text.front() == ' ' && entry.text.size() > 1 && gives(entry.text.substr(1)))
    return true;
  // A piece that never starts a line (SentencePiece's dummy prefix makes every
  // line start with a marker): after a newline it can start a piece.
  std::vector<TokenId> anchor;
  encode("\n", anchor);
  ids.clear();
  encode("\n" + entry.text, ids);
  return ids.size() == anchor.size() + 1 && std::equal(anchor.begin(), anchor.end(), ids.begin()) &&
         ids.back() == id;
}

namespace {

// One pool of threads per thread count for every encode_batch call of the
// process, so that the encoders' per-thread caches stay warm from call to call
// (a Python loop over batches); a call made while another holds the pool (from
// another thread) starts threads of its own instead. Never destroyed: helper
// threads must not be joined during static destruction, when the caches they
// use may already be gone.
struct SharedPool {
  std::mutex busy;
  WorkerPool pool;
  explicit SharedPool(unsigned threads) : pool(threads) {}
};

SharedPool& shared_pool(unsigned threads) {
  static std::mutex mutex;
  static auto* pools = new std::map<unsigned, SharedPool*>;
  std::lock_guard lock(mutex);
  SharedPool*& pool = (*pools)[threads];
  if (pool == nullptr) pool = new SharedPool(threads);
  return *pool;
}

}  // namespace

std::vector<std::vector<TokenId>> TextEncoder::encode_batch(std::span<const std::string> lines,
                                                            unsigned threads) const {
  std::vector<std::vector<TokenId>> out(lines.size());
  constexpr std::size_t kChunk = 256;
  const std::size_t chunks = (lines.size() + kChunk - 1) / kChunk;
  const auto encode_chunk = [&](std::size_t c) {
    const std::size_t end = std::min(lines.size(), (c + 1) * kChunk);
    for (std::size_t i = c * kChunk; i < end; ++i) encode(lines[i], out[i]);
  };
  threads = resolve_threads(threads);
  if (threads <= 1 || chunks <= 1) {
    for (std::size_t c = 0; c < chunks; ++c) encode_chunk(c);
    return out;
  }
  SharedPool& shared = shared_pool(threads);
  if (std::unique_lock held(shared.busy, std::try_to_lock); held)
    shared.pool.run(chunks, encode_chunk);
  else
    parallel_for(chunks, threads, encode_chunk);
  return out;
}

std::size_t Tokenizer::vocabulary_size() const {
  return segmenter_->vocabulary().size();
}

std::string Tokenizer::display_piece(TokenId id) const {
  return segmenter_->display_piece(id);
}

std::optional<TokenId> Tokenizer::unknown_id() const {
  return segmenter_->vocabulary().unknown_id();
}

VocabularyEntry Tokenizer::vocabulary_entry(TokenId id) const {
  const Vocabulary& vocabulary = segmenter_->vocabulary();
  if (id >= vocabulary.size()) return {};
  const std::string& piece = vocabulary.piece(id);
  if (vocabulary.is_special(id)) return {piece, EntryKind::special, false};
  if (const auto byte = byte_fallback_value(piece); byte && !byte_fallback_ids().empty())
    return {std::string(1, static_cast<char>(*byte)), EntryKind::byte_fallback, false};
  const TokenId one[] = {id};
  std::string text = segmenter_->decode(one);  // markers kept, "##" stripped, bytes raw
  // A WordPiece continuation piece is stored with its prefix and decodes without it.
  const bool continuation = piece.size() > text.size() && piece.starts_with("##") &&
                            std::string_view(piece).substr(2) == text;
  const std::string_view marker_text = kBoundaryMarker;
  std::string spaced;
  for (std::size_t at = 0;;) {
    const std::size_t marker = text.find(marker_text, at);
    spaced.append(text, at, marker == std::string::npos ? std::string::npos : marker - at);
    if (marker == std::string::npos) break;
    spaced += ' ';
    at = marker + marker_text.size();
  }
  return {std::move(spaced), EntryKind::normal, continuation};
}

bool Tokenizer::encodes_to_itself(TokenId id) const {
  // A segmenter's unit is the word, marker included: the piece itself is the
  // text to encode ("ing" is reached inside "▁walking", never as a line).
  const Vocabulary& vocabulary = segmenter_->vocabulary();
  if (id >= vocabulary.size() || vocabulary.is_special(id)) return false;
  std::vector<TokenId> ids;
  segmenter_->encode(vocabulary.piece(id), ids);
  return ids.size() == 1 && ids.front() == id;
}

std::vector<TokenId> Tokenizer::byte_fallback_ids() const {
  return tokenlab::byte_fallback_ids(segmenter_->vocabulary());
}

std::string Tokenizer::decode(std::span<const TokenId> ids) const {
  const auto& vocab = segmenter_->vocabulary();
  for (const TokenId id : ids)
    if (id >= vocab.size())
      throw Error("token id " + std::to_string(id) + " is outside the vocabulary (size " +
                  std::to_string(vocab.size()) + ")");
  return pre_tokenizer_.restore(segmenter_->decode(ids));
}

}  // namespace tokenlab

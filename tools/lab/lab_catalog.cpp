#include "lab_catalog.hpp"

#include <algorithm>

#include "tokenlab/error.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::lab {

namespace {

// A real model's token that starts a word: a leading space in its display
// form (tiktoken and byte-level BPE), SentencePiece's ▁ or GPT-2's Ġ.
bool starts_word(std::string_view text) {
  return text.starts_with(' ') || text.starts_with("\u2581") || text.starts_with("\u0120");
}

template <class Body>
void for_each_line(std::string_view text, Body&& body) {
  for (std::size_t begin = 0; begin <= text.size();) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    if (line.ends_with('\r')) line.remove_suffix(1);
    body(line);
    begin = end + 1;
  }
}

}  // namespace

LabTokenizer::LabTokenizer(std::string name, std::string algorithm,
                           std::shared_ptr<const Tokenizer> trained)
    : name_(std::move(name)),
      algorithm_(std::move(algorithm)),
      trained_(std::move(trained)),
      encoder_(trained_),
      unknown_(encoder_->unknown_id()),
      byte_ids_(encoder_->byte_fallback_ids()) {}

LabTokenizer::LabTokenizer(std::string name, std::shared_ptr<const PretrainedTokenizer> pretrained)
    : name_(std::move(name)),
      algorithm_(pretrained->pipeline().format),
      pretrained_(pretrained),
      encoder_(std::move(pretrained)),
      unknown_(encoder_->unknown_id()),
      byte_ids_(encoder_->byte_fallback_ids()) {}

bool LabTokenizer::can_sample() const {
  return trained_ != nullptr && (trained_->segmenter().capabilities() & kCapabilitySampling) != 0;
}

Chip LabTokenizer::chip(TokenId id, std::size_t word) const {
  Chip c;
  c.id = id;
  c.word = word;
  c.unknown = unknown_ && id == *unknown_;
  c.byte_fallback = std::binary_search(byte_ids_.begin(), byte_ids_.end(), id);
  if (pretrained_) {
    // One notation for partial UTF-8 on the page: <0xE0>, as byte-fallback pieces.
    c.text = pretrained_->display_piece_as(id, PretrainedTokenizer::PartialBytes::angle);
    c.byte_fallback = c.byte_fallback || c.text != pretrained_->display_piece(id);
  } else {
    c.text = encoder_->display_piece(id);
  }
  return c;
}

void LabTokenizer::add_line(std::string_view line, Chips& out) const {
  out.characters += utf8::count_code_points(line);
  std::vector<TokenId> ids;
  if (trained_) {
    // The words as the model's pipeline cuts them: the chips of `tokenlab encode`.
    trained_->for_each_word(line, [&](std::string_view word) {
      ids.clear();
      trained_->segmenter().encode(word, ids);
      for (const TokenId id : ids) out.tokens.push_back(chip(id, out.words));
      ++out.words;
    });
    return;
  }
  encoder_->encode(line, ids);
  bool first = true;
  for (const TokenId id : ids) {
    Chip c = chip(id, out.words);
    if (!first && starts_word(c.text)) c.word = ++out.words;
    first = false;
    out.tokens.push_back(std::move(c));
  }
  if (!ids.empty()) ++out.words;
}

Chips LabTokenizer::chips(std::string_view text) const {
  if (utf8::find_invalid(text)) throw Error("the text is not valid UTF-8");
  Chips out;
  for_each_line(text, [&](std::string_view line) { add_line(line, out); });
  return out;
}

std::vector<std::vector<std::string>> LabTokenizer::sample(std::string_view word, std::size_t count,
                                                           std::uint64_t seed) const {
  if (!can_sample())
    throw Error("the tokenizer '" + name_ + "' cannot sample (only unigram and BPE can)");
  // The word as the model's pipeline gives it to the segmenter (marker included).
  std::vector<std::string> words;
  trained_->for_each_word(word, [&](std::string_view w) { words.emplace_back(w); });
  if (words.size() != 1)
    throw Error("give one word to sample, not " + std::to_string(words.size()));
  SamplingOptions options;
  options.seed = seed;
  std::uint64_t state = seed;
  std::vector<std::vector<std::string>> samples;
  std::vector<TokenId> ids;
  for (std::size_t i = 0; i < count; ++i) {
    ids.clear();
    trained_->segmenter().encode_sampled(words.front(), options, state, ids);
    std::vector<std::string> pieces;
    for (const TokenId id : ids) pieces.push_back(encoder_->display_piece(id));
    samples.push_back(std::move(pieces));
  }
  return samples;
}

void LabCatalog::add(LabTokenizer tokenizer) {
  if (find(tokenizer.name())) throw Error("two tokenizers are named '" + tokenizer.name() + "'");
  tokenizers_.push_back(std::move(tokenizer));
}

const LabTokenizer* LabCatalog::find(std::string_view name) const noexcept {
  for (const auto& t : tokenizers_)
    if (t.name() == name) return &t;
  return nullptr;
}

}  // namespace tokenlab::lab

// File: ngram.cpp
// An example tokenlab plugin, built out of tree: the "ngram" segmenter.
//
// Training keeps the special tokens, then an alphabet of single characters (code
// points) by frequency until character_coverage of all character occurrences is
// covered, then fills the rest of the vocabulary with the character n-grams of
// 2..max_length characters that would save the most tokens, count x (length - 1).
// Encoding is greedy longest match from the left; a character outside the
// vocabulary becomes one unknown token.
//
// It is deliberately simpler than BPE: one counting pass, no merges, no recount.
// `tokenlab compare --plugin-dir build --algorithms bpe,ngram` shows what that costs.
//
// To write your own segmenter: copy this directory, rename the class, the plugin
// name (here "ngram": name(), the payload tag in save() and load(),
// TOKENLAB_DEFINE_PLUGIN and PLUGIN_NAME in CMakeLists.txt) and replace train()
// and encode().
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenlab/error.hpp"
#include "tokenlab/option_reader.hpp"
#include "tokenlab/plugin_abi.hpp"
#include "tokenlab/segmenter_support.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/word_counts.hpp"

namespace ngram_example {

using tokenlab::Error;
using tokenlab::TokenId;

inline constexpr char kVersion[] = "0.1.0";
// Bump when save() writes something different, so load() refuses what it cannot read.
// 2: tagged PayloadWriter layout (1 was a bare Boost archive).
constexpr std::uint32_t kFormatVersion = 2;
// encode() keeps the end offsets of the candidate pieces in a fixed array.
constexpr std::uint64_t kMaxLength = 16;

// Byte length of the code point at word[pos]. An invalid byte counts as one
// character, so that no input can make encode() loop forever or throw.
std::size_t char_length(std::string_view word, std::size_t pos) {
  const std::size_t length = tokenlab::utf8::sequence_length(word, pos);
  return length == 0 ? 1 : length;
}

class NgramSegmenter final : public tokenlab::Segmenter {
 public:
  std::string name() const override { return "ngram"; }
  std::string version() const override { return kVersion; }
  tokenlab::Capabilities capabilities() const override { return tokenlab::kCapabilityTrace; }

  void train(const tokenlab::WordCounts& counts, const tokenlab::TrainOptions& options,
             tokenlab::TrainingObserver* observer) override;
  void encode(std::string_view word, std::vector<TokenId>& out) const override;
  // Pieces are plain substrings, so decoding is concatenation; the framework's
  // helper also turns the unknown token into "⁇" and drops other specials.
  std::string decode(std::span<const TokenId> ids) const override {
    return tokenlab::decode_pieces(vocabulary_, ids);
  }
  const tokenlab::Vocabulary& vocabulary() const override { return vocabulary_; }
  void save(std::ostream& out) const override;
  void load(std::istream& in) override;

 private:
  tokenlab::Vocabulary vocabulary_;
  std::uint64_t max_length_ = 4;  // longest piece in characters: bounds encode()'s search
};

void NgramSegmenter::train(const tokenlab::WordCounts& counts,
                           const tokenlab::TrainOptions& options,
                           tokenlab::TrainingObserver* observer) {
  // Validate options first: an unknown key throws an Error listing the valid ones.
  const tokenlab::OptionReader reader(
      "ngram", options.extra,
      {{"max_length", "longest piece in characters: 2..16, default 4"},
       {"score", "saved|frequency, default saved: rank n-grams by count x (length - 1) or count"}});
  const std::uint64_t max_length = reader.get_uint("max_length", 4, 2, kMaxLength);
  const bool by_frequency =
      reader.get_choice("score", {"saved", "frequency"}, "saved") == "frequency";

  // Specials first ("<unk>" unless the user chose others); throws if vocab_size is
  // too small to hold them.
  tokenlab::Vocabulary vocabulary;
  tokenlab::add_special_tokens(vocabulary, options, {"<unk>"}, "<unk>", "ngram");

  // Count every substring of 1..max_length characters, weighted by the word's
  // count. Keys are views into the words of `counts`, valid for this whole call
  // (never keep them after it). Candidates stay in first-occurrence order, so the
  // stable sorts below break ties the same way on every run: training is
  // deterministic without extra work, and one pass this cheap needs no threads.
  struct Candidate {
    std::string_view text;
    std::uint64_t length = 0;  // in characters
    std::uint64_t count = 0;
  };
  std::unordered_map<std::string_view, std::size_t> index;
  std::vector<Candidate> candidates;
  std::uint64_t characters = 0;
  std::vector<std::size_t> starts;  // byte offset of each character, then the word's end
  for (const auto& entry : counts.entries()) {
    const std::string_view word = entry.word;
    starts.clear();
    for (std::size_t pos = 0; pos < word.size(); pos += char_length(word, pos))
      starts.push_back(pos);
    starts.push_back(word.size());
    characters += (starts.size() - 1) * entry.count;
    for (std::size_t i = 0; i + 1 < starts.size(); ++i) {
      for (std::size_t n = 1; n <= max_length && i + n < starts.size(); ++n) {
        const auto text = word.substr(starts[i], starts[i + n] - starts[i]);
        const auto [it, inserted] = index.try_emplace(text, candidates.size());
        if (inserted) candidates.push_back({text, n, 0});
        candidates[it->second].count += entry.count;
      }
    }
  }

  std::vector<const Candidate*> singles;
  std::vector<const Candidate*> grams;
  for (const auto& c : candidates) (c.length == 1 ? singles : grams).push_back(&c);

  // 1. The alphabet, most frequent characters first, until character_coverage.
  //    Rarer characters encode to <unk>; that is what the unknown rate measures.
  std::stable_sort(singles.begin(), singles.end(),
                   [](const Candidate* a, const Candidate* b) { return a->count > b->count; });
  const double coverage_goal = options.character_coverage * static_cast<double>(characters);
  std::uint64_t covered = 0;
  for (const Candidate* c : singles) {
    if (vocabulary.size() >= options.vocab_size) break;
    if (c->count < std::max<std::uint64_t>(1, options.min_frequency)) break;
    if (options.character_coverage < 1.0 && static_cast<double>(covered) >= coverage_goal) break;
    if (!vocabulary.contains(c->text)) vocabulary.add(std::string(c->text));
    covered += c->count;
  }

  // 2. N-grams by score. An n-gram seen once cannot help on unseen text.
  const auto score = [&](const Candidate* c) {
    return by_frequency ? c->count : c->count * (c->length - 1);
  };
  std::stable_sort(grams.begin(), grams.end(),
                   [&](const Candidate* a, const Candidate* b) { return score(a) > score(b); });
  const std::uint64_t min_count = std::max<std::uint64_t>(2, options.min_frequency);
  const bool tracing = observer != nullptr && observer->trace();
  std::size_t step = 0;
  for (const Candidate* c : grams) {
    if (vocabulary.size() >= options.vocab_size) break;
    if (c->count < min_count || vocabulary.contains(c->text)) continue;
    vocabulary.add(std::string(c->text));
    if (tracing) {
      observer->on_step({"piece",
                         ++step,
                         {{"piece", std::string(c->text)},
                          {"count", std::to_string(c->count)},
                          {"score", std::to_string(score(c))},
                          {"vocabulary", std::to_string(vocabulary.size())}}});
    }
  }
  if (observer != nullptr) {
    observer->on_message("ngram: " + std::to_string(vocabulary.size()) + " pieces from " +
                         std::to_string(candidates.size()) + " distinct substrings");
  }
  // Commit only at the end: a throwing train() leaves the previous model intact.
  vocabulary_ = std::move(vocabulary);
  max_length_ = max_length;
}

void NgramSegmenter::encode(std::string_view word, std::vector<TokenId>& out) const {
  // Only reads members, and allocates nothing shared: safe from many threads.
  std::array<std::size_t, kMaxLength> ends{};
  for (std::size_t pos = 0; pos < word.size();) {
    // Byte offsets where pieces of 1, 2, ... max_length_ characters would end.
    std::size_t n = 0;
    for (std::size_t end = pos; n < max_length_ && end < word.size(); ++n) {
      end += char_length(word, end);
      ends[n] = end;
    }
    // Longest first. Special tokens never match text: "<unk>" typed by a user is
    // ordinary characters, or decode() would not give the word back.
    std::size_t next = 0;
    for (std::size_t k = n; k > 0 && next == 0; --k) {
      const auto id = vocabulary_.find(word.substr(pos, ends[k - 1] - pos));
      if (id && !vocabulary_.is_special(*id)) {
        out.push_back(*id);
        next = ends[k - 1];
      }
    }
    if (next == 0) {  // not even the single character is known
      out.push_back(*vocabulary_.unknown_id());
      next = ends[0];
    }
    pos = next;
  }
}

void NgramSegmenter::save(std::ostream& out) const {
  // PayloadWriter starts with a tag (plugin name and format version), so a payload
  // under another plugin's header is refused by load().
  tokenlab::PayloadWriter writer(out, "ngram", kFormatVersion);
  writer.scalar<std::uint64_t>(max_length_);
  writer.vocabulary(vocabulary_);
}

void NgramSegmenter::load(std::istream& in) {
  // A model file is untrusted input: PayloadReader checks every length against the
  // bytes left, accepts only 0/1 for flags, and throws tokenlab::Error on anything
  // malformed. Validate meaning too, and commit only at the end.
  tokenlab::PayloadReader reader(in, "ngram", kFormatVersion);
  const auto max_length = reader.scalar<std::uint64_t>("max_length");
  tokenlab::Vocabulary vocabulary = reader.vocabulary();
  reader.finish();
  if (max_length < 1 || max_length > kMaxLength) reader.fail("bad max_length");
  if (!vocabulary.unknown_id()) reader.fail("no unknown token");
  max_length_ = max_length;
  vocabulary_ = std::move(vocabulary);
}

}  // namespace ngram_example

// The one exported symbol. The first argument must equal the file's base name
// (ngram.so), which CMakeLists.txt guarantees with PREFIX "" and OUTPUT_NAME.
TOKENLAB_DEFINE_PLUGIN(ngram, ngram_example::NgramSegmenter, ngram_example::kVersion,
                       "Greedy longest match over frequent character n-grams (example plugin)",
                       tokenlab::kCapabilityTrace)

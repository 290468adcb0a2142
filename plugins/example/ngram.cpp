// File: ngram.cpp
// An example tokenlab plugin, built out of tree: the "ngram" segmenter.
//
// Training keeps the special tokens, then the base alphabet every tokenlab trainer
// starts from (select_alphabet: characters by frequency until character_coverage
// of all character occurrences is covered), then fills the rest of the vocabulary
// with the character n-grams of 2..max_length characters that would save the most
// tokens, count x (length - 1), one per step (options.max_steps bounds the steps).
// Encoding is greedy longest match from the left; a character outside the
// vocabulary becomes one unknown token.
//
// It is deliberately simpler than BPE: one counting pass, no merges, no recount.
// `tokenlab compare --plugin-dir build --algorithms bpe,ngram` shows what that costs.
//
// VocabularySegmenter does the rest: it owns the vocabulary and the special tokens,
// decodes, checks ids, and saves and loads a checked, tagged payload (a
// Boost.Serialization binary archive that checks every length before allocating,
// tokenlab/payload.hpp). To write your
// own segmenter, run `tokenlab new-plugin NAME`, or copy this directory, rename the
// class and kName (and PLUGIN_NAME in CMakeLists.txt), and replace train() and
// encode().
#include <algorithm>
#include <unordered_map>

#include "tokenlab/vocabulary_segmenter.hpp"  // the plugin SDK: everything a plugin needs

namespace ngram_example {

using namespace tokenlab;

// The text of the n characters from chars[i] (views into one word).
std::string_view join(const std::vector<std::string_view>& chars, std::size_t i, std::size_t n) {
  return {chars[i].data(), chars[i + n - 1].data() + chars[i + n - 1].size()};
}

class NgramSegmenter final : public VocabularySegmenter<NgramSegmenter> {
 public:
  // Written once: name(), version(), capabilities() and the plugin descriptor read
  // them. kName must equal the file's base name (ngram.so).
  static constexpr const char* kName = "ngram";
  static constexpr const char* kVersion = "0.1.0";
  static constexpr const char* kDescription =
      "Greedy longest match over frequent character n-grams (example plugin)";
  static constexpr Capabilities kCapabilities = kCapabilityTrace;
  // Bump when save_fields() writes something different: load() refuses the rest.
  // (4: the fields in a payload archive.)
  static constexpr std::uint32_t kFormatVersion = 4;

  void train(const WordCounts& counts, const TrainOptions& options,
             TrainingObserver* observer) override;
  void encode(std::string_view word, std::vector<TokenId>& out) const override;

 protected:
  // The one field beyond the vocabulary, through the payload archive (names show in
  // error messages). load_fields() validates without touching members and returns
  // what commits it, once the whole payload is known good.
  void save_fields(PayloadOArchive& ar) const override {
    ar << boost::serialization::make_nvp("max_length", max_length_);
  }
  std::function<void()> load_fields(PayloadIArchive& ar, const Vocabulary&) override {
    std::uint64_t max_length = 0;
    ar >> BOOST_SERIALIZATION_NVP(max_length);
    if (max_length < 1 || max_length > 16) ar.fail("bad max_length");
    return [this, max_length] { max_length_ = max_length; };
  }

 private:
  std::uint64_t max_length_ = 4;  // longest piece in characters: bounds encode()'s search
};

void NgramSegmenter::train(const WordCounts& counts, const TrainOptions& options,
                           TrainingObserver* observer) {
  // Validate options first: an unknown key throws an Error listing the valid ones.
  const OptionReader reader(
      kName, options.extra,
      {{"max_length", "longest piece in characters: 2..16, default 4"},
       {"score", "saved|frequency, default saved: rank n-grams by count x (length - 1) or count"}});
  const std::uint64_t max_length = reader.get_uint("max_length", 4, 2, 16);
  const bool by_frequency =
      reader.get_choice("score", {"saved", "frequency"}, "saved") == "frequency";

  // Specials ("<unk>" unless the user chose others), then the base alphabet every
  // tokenlab trainer starts from. Rarer characters encode to <unk>.
  Vocabulary vocabulary = new_vocabulary(options, counts);

  // Count every n-gram of 2..max_length characters, weighted by the word's count,
  // with its score. Keys are views into the words of `counts`, valid for this call
  // only. The stable sort keeps first-occurrence order among ties: deterministic.
  std::unordered_map<std::string_view, std::uint64_t> seen;       // n-gram -> count
  std::vector<std::pair<std::string_view, std::uint64_t>> grams;  // first occurrence order
  for (const auto& entry : counts.entries()) {
    const auto chars = utf8::split_code_points(entry.word);
    for (std::size_t i = 0; i < chars.size(); ++i)
      for (std::size_t n = 2; n <= max_length && i + n <= chars.size(); ++n) {
        const auto [it, inserted] = seen.try_emplace(join(chars, i, n), 0);
        if (inserted) grams.emplace_back(it->first, by_frequency ? 1 : n - 1);
        it->second += entry.count;
      }
  }
  for (auto& [text, score] : grams) score *= seen[text];
  std::stable_sort(grams.begin(), grams.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });

  // One n-gram per step, best first, until vocab_size or max_steps. An n-gram seen
  // once cannot help on unseen text.
  std::size_t step = 0;
  for (const auto& [text, score] : grams) {
    if (vocabulary.size() >= options.vocab_size) break;
    if (options.max_steps != 0 && step == options.max_steps) break;
    if (seen[text] < std::max<std::uint64_t>(2, options.min_frequency) || vocabulary.contains(text))
      continue;
    vocabulary.add(std::string(text));
    if (observer != nullptr && observer->trace())
      observer->on_step(
          {"piece", step + 1, {{"piece", std::string(text)}, {"score", std::to_string(score)}}});
    ++step;
  }
  // Fewer entries than asked for, and not for max_steps: say why (compare shows it).
  if (observer != nullptr && vocabulary.size() < options.vocab_size &&
      (options.max_steps == 0 || step < options.max_steps))
    observer->on_message("ngram: stopped at vocabulary size " + std::to_string(vocabulary.size()) +
                         " of " + std::to_string(options.vocab_size) +
                         ": no other n-gram occurs twice or more (or min_frequency times)");
  // Commit only at the end: a throwing train() leaves the previous model intact.
  set_vocabulary(std::move(vocabulary));
  max_length_ = max_length;
}

void NgramSegmenter::encode(std::string_view word, std::vector<TokenId>& out) const {
  // Only reads members, and writes nothing shared: safe from many threads.
  // Greedy longest match; find_piece() never matches a special token ("<unk>"
  // typed by a user is text). Not even the single character: the unknown token.
  const auto chars = utf8::split_code_points(word);  // an invalid byte is one "character"
  for (std::size_t i = 0; i < chars.size();) {
    std::size_t n = std::min<std::size_t>(max_length_, chars.size() - i);
    std::optional<TokenId> id;
    while (n > 0 && !(id = find_piece(join(chars, i, n)))) --n;
    out.push_back(id.value_or(unknown_id()));
    i += std::max<std::size_t>(n, 1);
  }
}

}  // namespace ngram_example

// The one exported symbol; it reads kName, kVersion, kDescription and kCapabilities.
TOKENLAB_DEFINE_PLUGIN(ngram_example::NgramSegmenter)

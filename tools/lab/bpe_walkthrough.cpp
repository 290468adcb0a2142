#include "bpe_walkthrough.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "tokenlab/app/requests.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/segmenter_source.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::lab {

namespace {

constexpr std::size_t kMaxWords = 200;
constexpr std::size_t kMaxMerges = 500;
constexpr std::string_view kEndOfWord = "</w>";

using Symbols = std::vector<std::string>;

struct Word {
  Symbols symbols;
  std::uint64_t count = 0;
  std::string text;  // as given
};

// "low:5 lower:2": the words in the order given, each as its characters and </w>.
std::vector<Word> parse_words(const std::string& text) {
  std::vector<Word> words;
  std::istringstream in(text);
  for (std::string item; in >> item;) {
    const auto colon = item.rfind(':');
    Word w;
    w.count = 1;
    std::string word = item;
    if (colon != std::string::npos) {
      word = item.substr(0, colon);
      const std::string number = item.substr(colon + 1);
      if (number.empty() || number.size() > 9 ||
          number.find_first_not_of("0123456789") != std::string::npos || number == "0")
        throw Error("'" + item + "': the count after ':' must be a number from 1 to 999999999");
      w.count = std::stoull(number);
    }
    if (word.empty()) throw Error("'" + item + "': a word before ':' is missing");
    if (utf8::find_invalid(word)) throw Error("'" + item + "' is not valid UTF-8");
    w.text = word;
    for (const auto cp : utf8::split_code_points(word)) w.symbols.emplace_back(cp);
    w.symbols.emplace_back(kEndOfWord);
    words.push_back(std::move(w));
    if (words.size() > kMaxWords)
      throw Error("more than " + std::to_string(kMaxWords) +
                  " words: BPE by hand is for small lists");
  }
  if (words.empty()) throw Error("give at least one word, as 'low:5 lower:2'");
  return words;
}

// The trace shows the marker as ▁ (kBoundaryMarker); the walkthrough as </w>.
std::string shown(std::string_view piece) {
  std::string out;
  const std::string_view marker(kBoundaryMarker);
  for (std::size_t i = 0; i < piece.size();) {
    if (piece.compare(i, marker.size(), marker) == 0) {
      out += kEndOfWord;
      i += marker.size();
    } else {
      out += piece[i++];
    }
  }
  return out;
}

void apply_merge(Symbols& symbols, const std::string& left, const std::string& right) {
  Symbols out;
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    if (i + 1 < symbols.size() && symbols[i] == left && symbols[i + 1] == right) {
      out.push_back(left + right);
      ++i;
    } else {
      out.push_back(symbols[i]);
    }
  }
  symbols = std::move(out);
}

std::vector<PairCount> count_pairs(const std::vector<Word>& words) {
  std::vector<PairCount> pairs;
  std::map<std::pair<std::string, std::string>, std::size_t> where;
  for (const Word& w : words)
    for (std::size_t i = 0; i + 1 < w.symbols.size(); ++i) {
      const auto key = std::make_pair(w.symbols[i], w.symbols[i + 1]);
      const auto [it, fresh] = where.emplace(key, pairs.size());
      if (fresh) pairs.push_back({key.first, key.second, 0, w.text, i + 1});
      pairs[it->second].count += w.count;
    }
  return pairs;
}

// The n most frequent pairs, in the order BPE ranks them: by count, and among
// equal counts the first seen first (pairs arrive in first-seen order, and the
// sort is stable), so the first is the pair merged next.
std::vector<PairCount> most_frequent(std::vector<PairCount> pairs, std::size_t n) {
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const PairCount& a, const PairCount& b) { return a.count > b.count; });
  if (pairs.size() > n) pairs.resize(n);
  return pairs;
}

// Collects the trainer's merge steps.
class StepRecorder final : public TrainingObserver {
 public:
  [[nodiscard]] bool trace() const override { return true; }
  void on_step(const TrainingStep& step) override {
    if (step.kind == "merge") steps.push_back(step);
  }
  void on_message(std::string_view message) override { notes += std::string(message) + "\n"; }

  std::vector<TrainingStep> steps;
  std::string notes;
};

std::string field(const TrainingStep& step, const std::string& name) {
  for (const auto& [key, value] : step.fields)
    if (key == name) return value;
  throw Error("the BPE trace has no '" + name + "' field");
}

}  // namespace

BpeWalkthrough walk_bpe(const SegmenterSource& plugins, const std::string& text, std::size_t merges,
                        const std::string& encode_word, const std::function<void()>& check) {
  if (merges == 0 || merges > kMaxMerges)
    throw Error("merges must be from 1 to " + std::to_string(kMaxMerges));
  std::vector<Word> words = parse_words(text);
  WordCounts counts;
  for (const Word& w : words) {
    std::string word;
    for (std::size_t i = 0; i + 1 < w.symbols.size(); ++i) word += w.symbols[i];
    counts.add(word + std::string(kBoundaryMarker), w.count);
  }
  // As `tokenlab trace bpe --merges N`: the same request.
  const TrainOptions options = app::TraceRequest{.steps = merges, .threads = 1}.train_options();
  StepRecorder recorder;
  auto segmenter = plugins.create("bpe");
  segmenter->train(counts, options, &recorder);

  BpeWalkthrough out;
  out.note = recorder.notes;
  for (const Word& w : words) {
    out.start_tokens += w.count * w.symbols.size();
    for (const auto& s : w.symbols)
      if (std::find(out.alphabet.begin(), out.alphabet.end(), s) == out.alphabet.end())
        out.alphabet.push_back(s);
  }
  out.start_symbols = out.alphabet.size();
  Word chosen;
  if (!encode_word.empty()) chosen = parse_words(encode_word).front();
  out.encoded_at_start = chosen.symbols;
  for (const TrainingStep& step : recorder.steps) {
    if (check) check();
    BpeStep s;
    s.index = step.index;
    const std::string pair = shown(field(step, "pair"));
    const auto plus = pair.find(" + ");
    if (plus == std::string::npos) throw Error("the BPE trace's pair '" + pair + "' has no ' + '");
    s.merged.left = pair.substr(0, plus);
    s.merged.right = pair.substr(plus + 3);
    s.merged.count = std::stoull(field(step, "count"));
    s.tokens = std::stoull(field(step, "tokens"));
    s.vocabulary = std::stoull(field(step, "vocabulary"));
    std::vector<PairCount> pairs = count_pairs(words);
    std::uint64_t top = 0;
    for (const auto& p : pairs) top = std::max(top, p.count);
    for (const auto& p : pairs)
      if (p.count == top && s.tied_total++ < kMaxPairsShown) s.tied.push_back(p);
    s.pairs_total = pairs.size();
    s.pairs = most_frequent(std::move(pairs), kMaxPairsShown);
    for (Word& w : words) apply_merge(w.symbols, s.merged.left, s.merged.right);
    apply_merge(chosen.symbols, s.merged.left, s.merged.right);
    s.encoded = chosen.symbols;
    out.steps.push_back(std::move(s));
  }
  return out;
}

}  // namespace tokenlab::lab

// What the conformance checks share: the corpora, encoding one word with its
// failures named, and the messages' pieces.
#include <algorithm>
#include <sstream>

#include "conformance_internal.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/plugin_checks.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/random.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::conformance {

namespace {

// A small multilingual corpus: Latin, Cyrillic, Greek, Devanagari, CJK, Arabic,
// digits, punctuation and emoji, so plugins meet multi-byte text from the start.
// The first five lines and the last are English.
constexpr const char* kCorpus[] = {
    "In the beginning God created the heavens and the earth.",
    "The earth was formless and empty. Darkness was on the surface of the deep.",
    "God said, \"Let there be light,\" and there was light.",
    "Lower, lowest, newer, newest, wider, widest: the textbook words of byte-pair encoding.",
    "Tokenizers split 12,345 words into 67.8% fewer pieces -- or do they?",
    "В начале сотворил Бог небо и землю.",
    "Ἐν ἀρχῇ ἐποίησεν ὁ θεὸς τὸν οὐρανὸν καὶ τὴν γῆν.",
    "आरम्भ में परमेश्वर ने आकाश और पृथ्वी की सृष्टि की।",
    "起初，神创造天地。地是空虚混沌，渊面黑暗。",
    "في البدء خلق الله السماوات والأرض.",
    "Emoji too: 🙂 👍🏽 and a family 👨‍👩‍👧 in one line.",
    "The quick brown fox jumps over the lazy dog; the lazy dog sleeps.",
};

WordCounts count_lines(std::initializer_list<std::size_t> lines) {
  Normalizer normalizer;
  const PreTokenizer pre_tokenizer;
  WordCounts counts;
  std::string scratch;
  for (int repeat = 0; repeat < 3; ++repeat)
    for (const std::size_t line : lines)
      pre_tokenizer.split(normalizer.normalize(kCorpus[line]), scratch,
                          [&](std::string_view w) { counts.add(w); });
  return counts;
}

// encode() must append: the ids of each word go after whatever the caller already
// holds (a Tokenizer encodes a whole line into one vector). A sentinel in front
// catches implementations that clear or overwrite the output.
constexpr TokenId kSentinel = 0xFFFFFFFFu;

}  // namespace

WordCounts corpus_counts() {
  return count_lines({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
}

WordCounts english_counts() {
  return count_lines({0, 1, 2, 3, 4, 11});
}

WordCounts frequent_word_counts() {
  // The frequent words make most of the text; the rare ones offer many n-grams
  // that save little. Any trainer that weighs what it keeps by how often it
  // occurs learns pieces for the frequent words first.
  WordCounts counts;
  const std::pair<const char*, std::uint64_t> frequent[] = {{"lowest", 400}, {"newest", 300},
                                                            {"widest", 250}, {"lower", 200},
                                                            {"newer", 150},  {"wider", 120}};
  for (const auto& [word, count] : frequent) counts.add(std::string(kBoundaryMarker) + word, count);
  constexpr std::string_view kLetters = "lowestnidr";
  std::uint64_t state = 20240601;
  for (int i = 0; i < 300; ++i) {
    std::string word(kBoundaryMarker);
    const std::uint64_t length = 3 + next_random(state) % 5;
    for (std::uint64_t c = 0; c < length; ++c)
      word += kLetters[next_random(state) % kLetters.size()];
    counts.add(word, 2);
  }
  return counts;
}

// Words the training corpus never saw: unseen scripts and symbols, alone and mixed
// into seen text, and unseen combinations of seen characters.
const std::vector<std::string>& unseen_words() {
  static const std::vector<std::string> words = {
      "\u2581\u10E5\u10D0\u10E0\u10D7\u10E3\u10DA\u10D8",  // Georgian
      "\u2581\uD55C\uAD6D\uC5B4",                          // Hangul
      "\u2581\u16A0\u16A2\u16A6",                          // runes
      "\u2581\U0001F980",                                  // an emoji not in the corpus
      "\u2581\u03A8",                                      // one unseen character
      "\u2581low\u0416\u01B7est",                          // unseen characters inside a seen word
      "\u2581zqxjv",
      "\u2581newestwiderlowest",
      "\u2581987654321",
      "\u2581\u00DF\u1E9E\u00E6\u0153",
  };
  return words;
}

std::vector<std::string> words_of(const WordCounts& counts) {
  std::vector<std::string> out;
  for (const auto& e : counts.entries()) out.push_back(e.word);
  return out;
}

std::string quote(std::string_view word) {
  constexpr std::size_t kShown = 40;
  if (word.size() <= kShown) return "'" + std::string(word) + "'";
  std::size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(word[cut]) & 0xC0) == 0x80) --cut;
  return "'" + std::string(word.substr(0, cut)) + "...' (" + std::to_string(word.size()) +
         " bytes)";
}

std::string show_ids(const std::vector<TokenId>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size() && i < 12; ++i)
    out += (i ? " " : "") + std::to_string(ids[i]);
  if (ids.size() > 12) out += " ...";
  return "[" + out + "]";
}

bool contains_id(const std::vector<TokenId>& ids, std::optional<TokenId> id) {
  return id && std::find(ids.begin(), ids.end(), *id) != ids.end();
}

std::string first_bad_id(const std::vector<std::vector<TokenId>>& encodings,
                         const std::vector<std::string>& words, std::size_t size) {
  for (std::size_t w = 0; w < encodings.size(); ++w)
    for (std::size_t i = 0; i < encodings[w].size(); ++i)
      if (encodings[w][i] >= size)
        return "expected every id < " + std::to_string(size) + " (the vocabulary size), got " +
               std::to_string(encodings[w][i]) + " at position " + std::to_string(i) +
               " of the ids of " + quote(words[w]);
  return {};
}

std::string saved_bytes(const Segmenter& s) {
  std::ostringstream out;
  s.save(out);
  return std::move(out).str();
}

std::vector<TokenId> encode_one(const Segmenter& s, std::string_view word) {
  std::vector<TokenId> ids(1, kSentinel);
  try {
    s.encode(word, ids);
  } catch (const std::exception& e) {
    throw CheckFailure("encode(" + quote(word) + ") threw " + describe_exception(e));
  } catch (...) {
    throw CheckFailure("encode(" + quote(word) + ") threw something that is not a std::exception");
  }
  if (ids.empty() || ids.front() != kSentinel)
    throw CheckFailure(
        "expected encode() to append to its output, but it cleared or overwrote it (word " +
        quote(word) + ")");
  ids.erase(ids.begin());
  return ids;
}

std::vector<std::vector<TokenId>> encode_all(const Segmenter& s,
                                             const std::vector<std::string>& words) {
  std::vector<std::vector<TokenId>> out;
  out.reserve(words.size());
  for (const auto& w : words) out.push_back(encode_one(s, w));
  return out;
}

Run::Run(const PluginRegistry& registry_, std::string plugin_name)
    : registry(registry_),
      plugin(std::move(plugin_name)),
      counts(corpus_counts()),
      words(words_of(counts)) {
  options.vocab_size = 300;
  options.threads = 1;
}

std::unique_ptr<Segmenter> Run::fresh() const {
  auto s = registry.create(plugin);
  if (!s) throw CheckFailure("expected a segmenter, the factory gave none");
  return s;
}

}  // namespace tokenlab::conformance

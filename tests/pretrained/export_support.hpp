// Helpers for the export tests: small models trained on a few real sentences in
// several scripts, the held-out lines they are checked on, and the neutral
// description an exporter takes.
#pragma once

#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tokenlab/model_description.hpp"
#include "tokenlab/normalizer.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/tokenizer.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::test {

/// SentencePiece-style: ▁ before each white-space-separated word.
inline const PreTokenizerOptions kSentencePiece{PreTokenizerKind::whitespace, MarkerStyle::prefix};

inline const std::vector<std::string>& training_lines() {
  static const std::vector<std::string> lines = {
      "The lowest newest widest wider lower low, the newer low.",
      "It was the best of times, it was the worst of times; it was the age of wisdom.",
      "Numbers like 1,234.56 and 2026 appear; so do e-mail addresses and URLs (www.example.org).",
      "यह एक परीक्षण वाक्य है। हिंदी में लिखा गया पाठ भी यहाँ है।",
      "これはテストの文です。日本語の文章も少しあります。",
      "The quick brown fox jumps over the lazy dog.   Tabs\tand  spaces   collapse.",
  };
  return lines;
}

// Held-out lines: seen words, unseen words, unseen characters (emoji, Greek).
inline const std::vector<std::string>& test_lines() {
  static const std::vector<std::string> lines = {
      "The widest of the lowest times.",    "Unseen words: zebra, quixotic, Zürich!",
      "Ελληνικά και 🙂 emoji", "हिंदी पाठ और テスト",
      "  leading and trailing spaces  ",    "",
  };
  return lines;
}

inline Tokenizer trained(std::shared_ptr<Segmenter> segmenter, NormalizerOptions n,
                         PreTokenizerOptions p, std::size_t vocab_size,
                         std::map<std::string, std::string> extra = {}) {
  const Normalizer normalizer(n);
  const PreTokenizer pre(p);
  WordCounts counts;
  std::string normalized;
  for (const auto& line : training_lines()) {
    normalizer.normalize(line, normalized);
    for (const auto& word : pre.split(normalized)) counts.add(word);
  }
  TrainOptions options;
  options.vocab_size = vocab_size;
  options.character_coverage = 1.0;
  options.extra = std::move(extra);
  segmenter->train(counts, options, nullptr);
  return Tokenizer(n, p, std::move(segmenter));
}

inline ModelDescription description_of(const Tokenizer& t) {
  std::stringstream description;
  t.segmenter().export_model(description, kModelDescriptionFormat);
  return read_model_description(description);
}

}  // namespace tokenlab::test

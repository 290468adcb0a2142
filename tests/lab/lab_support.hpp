// Helpers for the lab tests: the five built-in segmenters trained once on the
// English fixture, in a catalog, behind a LabApi.
#pragma once

#include <memory>
#include <string>

#include "lab/lab_api.hpp"
#include "lab/lab_catalog.hpp"
#include "tokenlab/corpus.hpp"
#include "tokenlab/counting.hpp"
#include "tokenlab/plugin_registry.hpp"

namespace tokenlab::test {

inline const PluginRegistry& lab_plugins() {
  static const PluginRegistry* registry = [] {
    auto* r = new PluginRegistry();
    r->load_search_path({TOKENLAB_TEST_PLUGIN_DIR});
    return r;
  }();
  return *registry;
}

inline std::shared_ptr<const Tokenizer> trained_on_fixture(const std::string& algorithm,
                                                           std::size_t vocab_size) {
  CorpusReader reader({std::string(TOKENLAB_TEST_DATA_DIR) + "/corpus/english.txt"});
  const NormalizerOptions n;
  const PreTokenizerOptions p;
  const WordCounts counts = count_words(reader, Normalizer(n), PreTokenizer(p), {.threads = 1});
  auto segmenter = lab_plugins().create(algorithm);
  TrainOptions options;
  options.vocab_size = vocab_size;
  options.threads = 1;
  segmenter->train(counts, options, nullptr);
  return std::make_shared<const Tokenizer>(n, p, std::shared_ptr<Segmenter>(std::move(segmenter)));
}

/// The catalog of the five, trained once per test run.
inline const lab::LabCatalog& fixture_catalog() {
  static const lab::LabCatalog* catalog = [] {
    auto* c = new lab::LabCatalog();
    for (const char* a : {"character", "word", "bpe", "wordpiece", "unigram"})
      c->add(lab::LabTokenizer(a, a, trained_on_fixture(a, 400)));
    return c;
  }();
  return *catalog;
}

/// A sweep already finished, with two points.
inline const lab::SweepState& fixture_sweep() {
  static const lab::SweepState* sweep = [] {
    auto* s = new lab::SweepState();
    s->finish({{"bpe", 200, 200, 1.9, 2.4, 0.01, 100}, {"bpe", 400, 400, 1.5, 3.1, 0.0, 100}});
    return s;
  }();
  return *sweep;
}

inline const lab::LabApi& fixture_api() {
  static const lab::LabApi api(
      fixture_catalog(), lab_plugins(), fixture_sweep(),
      {.opening_texts = {"The children walked to the old library."},
       .multilingual_texts = {{"English", "The children walked to the old library."},
                              {"Hindi", "बच्चे पुस्तकालय गए।"}},
       .fonts = {{"Test-Regular.ttf", "font/ttf", "not really a font"}}});
  return api;
}

}  // namespace tokenlab::test

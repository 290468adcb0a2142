// File: conformance.hpp
// The plugin conformance suite, runnable on any plugin (tokenlab check-plugin).
//
//   for (const auto& r : run_conformance(registry, "bpe")) std::cout << r.check << r.passed;
//
// Checks: the plugin creates a segmenter; training on a small multilingual corpus
// succeeds; ids are dense and below the vocabulary size; decode(encode(w)) == w
// when no unknown token appears; training is byte-identical at 1 and 2 threads;
// save/load gives identical encodings; concurrent encoding equals serial encoding;
// the empty word encodes to nothing without crashing; a 1 MB word encodes; an
// unknown option is rejected with a message listing the valid ones.
#pragma once

#include <string>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

class PluginRegistry;

struct ConformanceCheck {
  std::string check;
  bool passed = false;
  std::string detail;
};

TOKENLAB_API std::vector<ConformanceCheck> run_conformance(const PluginRegistry& registry,
                                                           const std::string& plugin_name);

}  // namespace tokenlab

// File: segmenter_source.hpp
// Where a saved model's segmenter comes from: a factory of segmenters by plugin
// name. The text layer loads models through this interface, so that it needs no
// plugin loading of its own; PluginRegistry (the host layer) is the source the
// programs use.
//
//   Tokenizer tok = Tokenizer::load("model.tkl", registry);  // registry: a SegmenterSource
#pragma once

#include <memory>
#include <string>

#include "tokenlab/export.hpp"
#include "tokenlab/segmenter.hpp"

namespace tokenlab {

class TOKENLAB_API SegmenterSource {
 public:
  virtual ~SegmenterSource();

  /// Whether a segmenter of this plugin name can be created.
  [[nodiscard]] virtual bool has(const std::string& name) const = 0;
  /// A fresh, untrained segmenter; throws Error listing the available names if
  /// name is unknown.
  [[nodiscard]] virtual std::unique_ptr<Segmenter> create(const std::string& name) const = 0;
  /// "a, b, c" in name order, or "(none found)": for error messages.
  [[nodiscard]] virtual std::string available_names() const = 0;
};

}  // namespace tokenlab

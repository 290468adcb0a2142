// File: training_observer.hpp
// How a trainer reports progress and, for traces, each step it takes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

/// One step of a training algorithm (a merge, an EM round, a pruning step), as
/// ordered name/value columns so any algorithm's trace prints as a table.
struct TrainingStep {
  std::string kind;  // "merge", "em", "prune", ...
  std::size_t index = 0;
  std::vector<std::pair<std::string, std::string>> fields;
};

/// Receives training events. Default implementations ignore them. Called from the
/// thread that called train(); implementations need not be thread-safe.
class TOKENLAB_API TrainingObserver {
 public:
  virtual ~TrainingObserver();
  /// Coarse progress of a named stage, fraction in [0, 1].
  virtual void on_progress(std::string_view stage, double fraction);
  /// Called only when trace() returns true, for every step.
  virtual void on_step(const TrainingStep& step);
  /// A human-readable note (e.g. "stopped at 19 pieces: best count 1 < min_frequency 2").
  virtual void on_message(std::string_view message);
  /// Whether the trainer should build TrainingStep records (they cost time).
  [[nodiscard]] virtual bool trace() const;
};

}  // namespace tokenlab

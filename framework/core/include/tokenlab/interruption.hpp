// File: interruption.hpp
// Stopping a long encode from another thread, at a point where stopping is safe.
//
// A host that runs an encode on a worker thread (the Python module, so that
// Ctrl-C is answered while a 100 MB text is encoded) sets a flag; the encoders
// look at it every few hundred pieces and throw Interrupted, which unwinds the
// encode like any other error. Nothing else is told: without an
// InterruptionScope on the thread, the checks read a null pointer and go on.
//
//   std::atomic<bool> stop{false};
//   std::thread worker([&] {
//     InterruptionScope scope(stop);
//     tokenizer.encode(text, ids);          // throws Interrupted soon after stop = true
//   });
#pragma once

#include <atomic>

#include "tokenlab/error.hpp"
#include "tokenlab/export.hpp"

namespace tokenlab {

/// What an interrupted encode throws.
class TOKENLAB_API Interrupted : public Error {
 public:
  Interrupted();
  ~Interrupted() override;
};

/// Makes flag this thread's interruption flag until the scope ends (scopes nest).
class TOKENLAB_API InterruptionScope {
 public:
  explicit InterruptionScope(const std::atomic<bool>& flag) noexcept;
  ~InterruptionScope();
  InterruptionScope(const InterruptionScope&) = delete;
  InterruptionScope& operator=(const InterruptionScope&) = delete;

 private:
  const std::atomic<bool>* previous_;
};

/// Throws Interrupted when this thread's flag is set. A call into the library
/// and a thread-local read: callers check every few hundred pieces, not each.
TOKENLAB_API void throw_if_interrupted();

}  // namespace tokenlab

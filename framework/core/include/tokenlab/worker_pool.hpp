// File: worker_pool.hpp
// Threads that stay between calls. parallel_for starts and joins new threads on
// each call, so whatever a thread keeps for the next call (the encoders' piece
// and word caches, per thread) starts cold every time: `tokenlab encode
// --threads 2` re-warmed a 4 MiB piece cache on every batch of 8,192 lines. A
// WorkerPool runs each call's indices on the same threads, dynamically
// scheduled, with the caller as one of them.
//
//   WorkerPool pool(2);                              // one helper thread
//   pool.run(chunks, [&](std::size_t i) { ... });    // may run again and again
//   pool.start(chunks, fn); read_next(); pool.wait(); // or overlap the caller's work
//
// Results do not depend on the thread count as long as fn(i) writes only what
// index i owns (parallel.hpp's contract).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "tokenlab/export.hpp"

namespace tokenlab {

class TOKENLAB_API WorkerPool {
 public:
  /// threads in total, the caller of run() included (0 or 1: no helper thread).
  /// Throws Error (thread_start_error) when a thread cannot be started.
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  [[nodiscard]] unsigned threads() const noexcept {
    return static_cast<unsigned>(helpers_.size()) + 1;
  }
  /// Calls fn(i) for each i in [0, n) once, on the pool's threads and the
  /// caller's, and returns when all calls have returned. The first exception
  /// thrown stops the handing out of further indices and is rethrown here. Not
  /// reentrant: one run at a time, from one thread.
  void run(std::size_t n, const std::function<void(std::size_t)>& fn);
  /// run() in two halves, so that the caller can do other work (read the next
  /// batch, write the last one) while the helpers start on this one: start()
  /// hands the indices to the helpers and returns at once; wait() works on
  /// what is left on the caller's thread too, returns when all calls have
  /// returned, and rethrows the first exception. Every start() must be followed
  /// by wait() before the next start() or run(), and before anything fn uses
  /// goes away (a pool without helpers runs everything in wait()).
  void start(std::size_t n, std::function<void(std::size_t)> fn);
  void wait();

 private:
  // Hands a run's indices to the helpers (the first half of run and start).
  void begin(std::size_t n, const std::function<void(std::size_t)>& fn);
  void help();             // a helper thread's loop
  void work_on_indices();  // takes indices of the current run until none is left

  std::vector<std::thread> helpers_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  const std::function<void(std::size_t)>* fn_ = nullptr;  // the current run's
  std::function<void(std::size_t)> started_;              // start()'s fn, which fn_ points to
  std::size_t n_ = 0;
  std::size_t next_ = 0;        // the next index to hand out (under mutex_)
  std::size_t generation_ = 0;  // runs started; a helper joins each once
  unsigned busy_ = 0;           // helpers still in the current run
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace tokenlab

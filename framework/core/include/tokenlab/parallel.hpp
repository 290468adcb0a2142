// File: parallel.hpp
// Deterministic data parallelism on std::thread: work is split into fixed chunks
// by index, so results merged in chunk order never depend on the thread count.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "tokenlab/error.hpp"

namespace tokenlab {

/// The Error for a thread that could not be started (the system's thread or
/// memory limit): callers join the threads already started, then throw this.
inline Error thread_start_error(std::size_t started, std::size_t wanted,
                                const std::system_error& e) {
  return Error("cannot start worker thread " + std::to_string(started + 1) + " of " +
               std::to_string(wanted) + ": " + e.what() + " (use fewer threads)");
}

/// Calls fn(worker, i) for i in [0, n) on up to threads threads (dynamic
/// scheduling); worker < threads identifies the calling thread, for per-thread
/// buffers (worker 0 is the caller). The first exception thrown is rethrown after
/// all threads finish. If a thread cannot be started, the started ones stop
/// taking work and are joined, and thread_start_error is thrown.
template <class Fn>
void parallel_for_workers(std::size_t n, unsigned threads, Fn&& fn) {
  threads =
      std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(n, 1))));
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(0u, i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&](unsigned w) {
    for (;;) {
      const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n) return;
      try {
        fn(w, i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        next.store(n);
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  try {
    for (unsigned w = 1; w < threads; ++w) pool.emplace_back(worker, w);
  } catch (const std::system_error& e) {
    next.store(n);  // no more work for the threads that did start
    for (auto& t : pool) t.join();
    throw thread_start_error(pool.size() + 1, threads, e);
  }
  worker(0);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

/// Calls fn(i) for i in [0, n) on up to threads threads, as parallel_for_workers.
template <class Fn>
void parallel_for(std::size_t n, unsigned threads, Fn&& fn) {
  parallel_for_workers(n, threads, [&fn](unsigned, std::size_t i) { fn(i); });
}

}  // namespace tokenlab

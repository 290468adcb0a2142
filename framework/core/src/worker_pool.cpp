#include "tokenlab/worker_pool.hpp"

#include <system_error>
#include <utility>

#include "tokenlab/parallel.hpp"

namespace tokenlab {

WorkerPool::WorkerPool(unsigned threads) {
  const unsigned helpers = threads > 1 ? threads - 1 : 0;
  helpers_.reserve(helpers);
  try {
    for (unsigned i = 0; i < helpers; ++i) helpers_.emplace_back([this] { help(); });
  } catch (const std::system_error& e) {
    const std::size_t started = helpers_.size();
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    start_.notify_all();
    for (std::thread& t : helpers_) t.join();
    throw thread_start_error(started + 1, threads, e);
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (std::thread& t : helpers_) t.join();
}

void WorkerPool::run(std::size_t n, const std::function<void(std::size_t)>& fn) {
  begin(n, fn);
  wait();
}

void WorkerPool::start(std::size_t n, std::function<void(std::size_t)> fn) {
  started_ = std::move(fn);
  begin(n, started_);
}

void WorkerPool::begin(std::size_t n, const std::function<void(std::size_t)>& fn) {
  {
    std::lock_guard lock(mutex_);
    fn_ = &fn;
    n_ = n;
    next_ = 0;
    error_ = nullptr;
    busy_ = static_cast<unsigned>(helpers_.size());
    ++generation_;
  }
  start_.notify_all();
}

void WorkerPool::wait() {
  work_on_indices();
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return busy_ == 0; });
  fn_ = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void WorkerPool::help() {
  std::size_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    work_on_indices();
    {
      std::lock_guard lock(mutex_);
      --busy_;
    }
    done_.notify_one();
  }
}

void WorkerPool::work_on_indices() {
  // Indices are handed out one at a time under the lock: a call encodes a
  // chunk of lines (tens of microseconds at least), so the lock is not contended.
  for (;;) {
    std::size_t i = 0;
    {
      std::lock_guard lock(mutex_);
      if (next_ >= n_) return;
      i = next_++;
    }
    try {
      (*fn_)(i);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      next_ = n_;
    }
  }
}

}  // namespace tokenlab

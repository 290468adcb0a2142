// File: tokenlab/pretrained/thread_caches.hpp
// The caches a thread keeps for encoding, made ahead of its first encode.
//
//   WorkerPool pool(threads);
//   pool.start(pool.threads() - 1, [](std::size_t) { prepare_thread_caches(); });
//   auto tokenizer = PretrainedTokenizer::load(path);   // meanwhile, on this thread
//   pool.wait();
#pragma once

#include "tokenlab/pretrained/export.hpp"

namespace tokenlab {

/// Allocates the calling thread's piece cache for the fused byte-level
/// encoder (5 MiB, on huge pages where the kernel gives them) and writes a
/// byte of each of its pages, so that the kernel allocates and zeroes them
/// now and not during the thread's first encode. For a worker that would
/// otherwise wait while a model loads (`tokenlab encode --threads N`): the
/// faults then overlap the load (docs/performance.md, twenty-fifth round).
/// The next encoder the thread runs takes the cache as it is, without
/// clearing it again. Cheap to repeat: a thread that has the cache does
/// nothing. Thread-safe (it touches only the caller's own caches).
TOKENLAB_PRETRAINED_API void prepare_thread_caches();

}  // namespace tokenlab

// File: heap_pages.hpp
// The tokenlab program's heap: one arena that keeps what it is given.
//
// Loading a tokenizer builds tables of tens of MB in a few tens of ms, and
// counting or training fills and frees blocks of MB all along; every page
// first touched is a page fault, and on a virtual machine a fault costs
// microseconds. So, from main():
//   - blocks up to 32 MiB come from the heap, not from a mapping of their own
//     that is unmapped when freed and faulted in again when the next is made;
//   - the heap grows 256 MiB at a time (address space; pages are taken when
//     touched) and is not trimmed, so freed memory is reused, not faulted again;
//   - every thread allocates from that one heap (M_ARENA_MAX 1): the threads
//     allocate little while they work.
// The heap is in ordinary pages. Until the thirteenth round of issue 30 it was
// advised for transparent huge pages, which paid on the machine of the seventh
// round (a page fault a hypervisor exit of several microseconds); on the
// thirteenth's, whose host takes freed memory back, a lone command paid up to
// milliseconds for each 2 MiB page instead (training 90 MB: 0.73 against 0.93
// to 1.14 s wall; docs/performance.md). TOKENLAB_HUGE_PAGES=1 in the
// environment advises the heap as before, for a machine of the first kind.
// Only the program does this: a library must not change its host's allocator.
// A long-lived process that frees much and must give it back (compare between
// trainings) calls malloc_trim. TOKENLAB_SYSTEM_HEAP=1 in the environment
// leaves glibc's defaults, for measuring the difference.
#pragma once

namespace tokenlab::cli {

/// Call first thing in main, before any thread starts. Each step is advice:
/// when the C library or a sanitizer's allocator does not take it, the heap is
/// what it would have been. Never fails; returns whether glibc took every
/// setting (false with TOKENLAB_SYSTEM_HEAP set, or without glibc).
bool tune_program_heap() noexcept;

}  // namespace tokenlab::cli

// File: heap_pages.hpp
// The tokenlab program's heap: one arena, in transparent huge pages.
//
// Loading a tokenizer builds tables of tens of MB in a few tens of ms, and
// every 4 KiB page first touched is a page fault. On a virtual machine a fault
// costs microseconds: on the one issue 30 was measured on, the faults were
// about a third of loading o200k (55 ms of CPU) and of counting 100 MB of
// English on one thread. glibc can put its heap in huge pages
// (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), but only when told before the
// process starts; this does the same for the program from main():
//   - blocks up to 32 MiB come from the heap, not from a mapping of their own
//     that is unmapped when freed and faulted in again when the next is made;
//   - the heap grows 256 MiB at a time (address space; pages are taken when
//     touched) and is not trimmed, and the kernel is advised to back the
//     first growth with huge pages, so that 2 MiB fault once;
//   - every thread allocates from that one heap (M_ARENA_MAX 1): a worker's
//     own arena would be 4 KiB pages again, and the threads allocate little
//     while they work.
// Only the program does this: a library must not change its host's allocator.
// A long-lived process that frees much and must give it back (compare between
// trainings) calls malloc_trim. TOKENLAB_SYSTEM_HEAP=1 in the environment
// leaves glibc's defaults, for measuring the difference.
#pragma once

namespace tokenlab::cli {

/// Call first thing in main, before any thread starts. Each step is advice:
/// when the C library, the kernel or a sanitizer's allocator does not take it,
/// the heap is what it would have been. Never fails.
void use_huge_pages_for_heap() noexcept;

}  // namespace tokenlab::cli

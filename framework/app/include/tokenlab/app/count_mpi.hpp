// File: count_mpi.hpp
// Counting across the ranks of an MPI job (docs/scale.md):
//
//   mpirun -np 8 tokenlab count --corpus big.txt more.txt.xz -o counts.tsv
//
// The corpus is cut into line-aligned byte ranges (a compressed file is one
// piece), which the ranks count in rounds. After each round every rank sends
// each word to the rank its hash names, so every word is counted on exactly one
// rank and no rank holds the whole table. Each word keeps its first occurrence
// (piece, rank in the piece's table); at the end rank 0 merges the ranks' tables
// by that key as they stream in and writes exactly the file one process would
// write, byte for byte, whatever the number of ranks.
//
// Pieces are about a quarter of a rank's share, 1 MiB to 256 MiB; the tests set
// TOKENLAB_MPI_PIECE_BYTES to cut a small corpus into many small pieces.
//
// A rank that fails (a file it cannot read, invalid UTF-8 under
// --invalid-utf8 error) makes every rank stop at the end of the round; rank 0
// prints that rank's message, all exit non-zero, and no output file is written.
#pragma once

#include <string>
#include <vector>

#include "tokenlab/app/requests.hpp"

namespace tokenlab::app {

/// The exit codes count_across_ranks returns.
inline constexpr int kRankOk = 0;
inline constexpr int kRankFailed = 1;

/// Whether an MPI launcher (mpirun, mpiexec, srun) started this process as one
/// of several ranks. Reads only the environment: callable before MPI starts,
/// and meaningful in a tokenlab built without MPI.
[[nodiscard]] bool started_as_mpi_ranks();

/// This process's rank as the launcher's environment gives it; 0 when there is
/// none. Only rank 0 prints messages.
[[nodiscard]] int launcher_rank();

/// Whether this tokenlab was built with Boost.MPI.
[[nodiscard]] bool built_with_mpi();

/// Counts corpus across the ranks and writes output on rank 0. Every rank calls
/// it with the same arguments. Returns this rank's exit code; prints errors
/// itself (rank 0 only).
int count_across_ranks(const std::vector<std::string>& corpus, const PipelineOptions& pipeline,
                       const std::string& output);

}  // namespace tokenlab::app

// What count_mpi.cpp and the MPI counting module (count_mpi_ranks.cpp) share:
// the one symbol the module exports and its type, as count_across_ranks looks
// it up, and the reading of integer environment variables. The module is built
// in the same build with the same compiler as the CLI that loads it, so the
// arguments are the C++ objects themselves, passed by pointer.
#pragma once

#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "tokenlab/app/requests.hpp"

namespace tokenlab::app {

/// The value of the first of names that is set to an integer (and nothing
/// else): Open MPI's mpirun, MPICH's Hydra (PMI), PMIx launchers and Slurm's
/// srun each set their own rank and size variables.
inline std::optional<long> first_integer(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    const long number = std::strtol(value, &end, 10);
    if (end != nullptr && *end == '\0') return number;
  }
  return std::nullopt;
}

inline constexpr const char* kCountAcrossRanksSymbol = "tokenlab_count_across_ranks";
using CountAcrossRanksEntry = int(const std::vector<std::string>* corpus,
                                  const PipelineOptions* pipeline, const std::string* output);

/// count_across_ranks' body, in the module.
int count_across_ranks_in_module(const std::vector<std::string>& corpus,
                                 const PipelineOptions& pipeline, const std::string& output);

}  // namespace tokenlab::app

// The one symbol the MPI counting module (count_mpi_ranks.cpp) exports, and
// its type, as count_across_ranks (count_mpi.cpp) looks it up. The module is
// built in the same build with the same compiler as the CLI that loads it, so
// the arguments are the C++ objects themselves, passed by pointer.
#pragma once

#include <string>
#include <vector>

#include "tokenlab/app/requests.hpp"

namespace tokenlab::app {

inline constexpr const char* kCountAcrossRanksSymbol = "tokenlab_count_across_ranks";
using CountAcrossRanksEntry = int(const std::vector<std::string>* corpus,
                                  const PipelineOptions* pipeline, const std::string* output);

/// count_across_ranks' body, in the module.
int count_across_ranks_in_module(const std::vector<std::string>& corpus,
                                 const PipelineOptions& pipeline, const std::string& output);

}  // namespace tokenlab::app

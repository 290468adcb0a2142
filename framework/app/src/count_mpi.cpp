#include "tokenlab/app/count_mpi.hpp"

#include "count_mpi_entry.hpp"
#include "tokenlab/error.hpp"

#ifdef TOKENLAB_WITH_MPI
#include <dlfcn.h>

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#endif

namespace tokenlab::app {

bool started_as_mpi_ranks() {
  const auto size =
      first_integer({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS"});
  const bool launched =
      first_integer({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}).has_value();
  return launched && size.value_or(2) > 1;
}

int launcher_rank() {
  return static_cast<int>(
      first_integer({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}).value_or(0));
}

bool built_with_mpi() {
#ifdef TOKENLAB_WITH_MPI
  return true;
#else
  return false;
#endif
}

#ifndef TOKENLAB_WITH_MPI

int count_across_ranks(const std::vector<std::string>&, const PipelineOptions&,
                       const std::string&) {
  throw Error(
      "this tokenlab was built without MPI, and it was started as one of several MPI ranks: "
      "every rank would count the whole corpus. Install libboost-mpi-dev and openmpi-bin and "
      "rebuild, or run tokenlab count as one process");
}

#else

int count_across_ranks(const std::vector<std::string>& corpus, const PipelineOptions& pipeline,
                       const std::string& output) {
  // Beside the executable as the build and the install lay it out
  // (TOKENLAB_MPI_MODULE is bin/'s path to it). Loaded global, as Open MPI
  // wants its own libraries to be for the components it opens in turn, and
  // never unloaded: Open MPI, hwloc and libevent do not expect to be unmapped
  // before the process exits.
  const boost::dll::fs::path module =
      boost::dll::program_location().parent_path() / TOKENLAB_MPI_MODULE;
  const std::string advice = "; reinstall tokenlab, or run tokenlab count as one process";
  boost::dll::fs::error_code ec;
  if (!boost::dll::fs::exists(module, ec))
    throw Error(module.string() + ": tokenlab's MPI counting module is missing" + advice);
  auto* library = new boost::dll::shared_library(
      module, boost::dll::load_mode::rtld_global | boost::dll::load_mode::rtld_now, ec);
  if (ec) {
    // Boost.DLL's error code says only "bad file descriptor"; dlerror() says why.
    const char* why = ::dlerror();
    throw Error(module.string() + ": cannot load tokenlab's MPI counting module (" +
                (why != nullptr ? why : ec.message()) + ")" + advice);
  }
  if (!library->has(kCountAcrossRanksSymbol))
    throw Error(module.string() + ": not tokenlab's MPI counting module (no " +
                kCountAcrossRanksSymbol + ")" + advice);
  return library->get<CountAcrossRanksEntry>(kCountAcrossRanksSymbol)(&corpus, &pipeline, &output);
}

#endif

}  // namespace tokenlab::app

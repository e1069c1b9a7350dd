// liebatch: ensembles of Lie group integrations from a JSON config, to HDF5, CSV and PNG.
// Exit status (README's table): 0 success; 1 a check failed (validate above its bound, no member
// of a run finished, no order fitted); 2 bad command line or config; 3 a file could not be read
// or written; 4 any other error; 5 checkpointed and stopped. An error (2, 3, 4) leaves no output
// file behind; no run replaces a file liebatch did not write.
#include <functional>

#include "cli/commands/commands.hpp"
#ifdef LIEBATCH_MPI
#include "cli/ranks/ranks.hpp"
#endif

int main(int argc, char** argv) {
#ifdef LIEBATCH_MPI
  // Started by mpirun or srun: a job of ranks. Otherwise MPI is never initialised.
  if (lb::cli::under_launcher()) {
    lb::cli::MpiJob job(argc, argv);
    return lb::cli::cli_main(argc, argv, std::ref(job));
  }
#endif
  return lb::cli::cli_main(argc, argv);
}

// A job of several processes started by an MPI launcher (mpirun, srun): the `liebatch` program
// built with MPI (LIEBATCH_MPI) makes one where a launcher started it, and hands it the commands
// that run members; everywhere else nothing here runs and MPI is never initialised
// (docs/cluster.md).
#pragma once
#include <string>

#include "cli/commands/commands.hpp"

namespace lb::cli {

/// True where an MPI launcher started this process: OMPI_COMM_WORLD_SIZE (Open MPI), PMI_SIZE
/// (Slurm's PMI, MPICH) or PMIX_RANK (PMIx) is set.
bool under_launcher();

/// MPI for the life of the object (MPI_Init, MPI_Finalize), and the commands over its ranks.
class MpiJob {
 public:
  MpiJob(int& argc, char**& argv);
  ~MpiJob();
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;
  /// `command` over the job: run and poincare in blocks of members dealt to the ranks (--balance),
  /// each block written as a slice and the slices merged by rank 0 into the output; converge's
  /// runs dealt to the ranks; validate on rank 0 alone. The exit status, the same on every rank; an
  /// error on a rank after the config was accepted ends the job (MPI_Abort) with its status.
  int operator()(const Options& o, const std::string& command);

 private:
  int rank_ = 0, size_ = 1;
  /// converge: its runs (the reference, each method in double and in long double) dealt to the
  /// ranks in turn, their results sent to rank 0, which writes the output.
  int converge(const Options& o);
};

}  // namespace lb::cli

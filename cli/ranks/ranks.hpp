// A job of several processes started by an MPI launcher (mpirun, srun): the `liebatch` program
// built with MPI (LIEBATCH_MPI) makes one where a launcher started it, and hands it the commands
// that run members; everywhere else nothing here runs and MPI is never initialised
// (docs/cluster.md).
#pragma once
#include <string>

#include "cli/commands/commands.hpp"

namespace lb::cli {

enum class Command;  // cli/commands/study.hpp

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
  /// runs and validate's batches dealt to the ranks. The exit status, the same on every rank; an
  /// error on a rank after the config was accepted ends the job (MPI_Abort) with its status.
  int operator()(const Options& o, const std::string& command);

 private:
  int rank_ = 0, size_ = 1, node_ranks_ = 1;  ///< this rank, the job's ranks, the ranks on this node
  std::string gpu_;                           ///< this rank's CUDA device (gpu_of_rank.hpp; "": CUDA's default)
  /// converge, validate: their work dealt to the ranks in turn (converge's runs: the reference,
  /// each method in double and in long double; validate's batches), its results sent to rank 0,
  /// which writes the output. validate's maxima and medians are reduced over the ranks.
  int shared(const Options& o, Command c);
};

}  // namespace lb::cli

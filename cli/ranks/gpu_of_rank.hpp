// Which GPU each rank of a job uses: the node's rank r takes its GPU r mod the node's GPUs, so the
// ranks of a node spread over its devices (docs/cluster.md). The choice is made by narrowing
// CUDA_VISIBLE_DEVICES to that one device before anything initialises CUDA, which holds for every
// thread of the process.
#pragma once
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace lb::cli {

/// The node-local rank that the launcher tells this process before MPI starts (Open MPI, MPICH's
/// Hydra, Slurm's srun), or −1 where none does. Slurm's comes last: a batch script's SLURM_LOCALID
/// (0) reaches every rank that mpirun or mpiexec starts inside the allocation, and their own
/// variable is the one that tells the rank apart. MpiJob checks the answer against MPI's node
/// communicator once MPI has started.
inline int launcher_local_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (const char* s = std::getenv(v); s && *s) return std::atoi(s);
  return -1;
}

/// The NVIDIA GPUs the driver lists (/proc/driver/nvidia/gpus), counted without CUDA: 0 where it
/// lists none or there is no driver.
inline int driver_gpus() {
  std::error_code ec;
  int n = 0;
  for (std::filesystem::directory_iterator d("/proc/driver/nvidia/gpus", ec), end; !ec && d != end; d.increment(ec)) ++n;
  return n;
}

/// CUDA_VISIBLE_DEVICES for the node's rank `local`: entry `local` mod their number in `visible`
/// (the list a launcher or the user set, e.g. Slurm's "2,3", UUIDs too), or device `local` mod
/// `count` where none is set. "" where there is nothing to choose from: no GPU, or an empty list.
/// The list is read as CUDA reads it (CUDA C Programming Guide, "CUDA Environment Variables"):
/// up to its first entry that names no device (empty, negative, or an index the driver lacks),
/// since CUDA hides that entry and every one after it.
inline std::string gpu_of_rank(int local, const char* visible, int count) {
  if (local < 0) return "";
  std::vector<std::string> entries;
  if (visible) {
    const std::string s = visible;
    for (std::size_t at = 0; at <= s.size();) {
      const std::size_t comma = std::min(s.find(',', at), s.size());
      const std::string e = s.substr(at, comma - at);
      const bool index = !e.empty() && std::all_of(e.begin(), e.end(), [](char c) { return c >= '0' && c <= '9'; });
      const bool absent = index && count > 0 && (e.size() > 9 || std::stoi(e) >= count);
      if (e.empty() || e[0] == '-' || absent) break;
      entries.push_back(e);
      at = comma + 1;
    }
  } else {
    for (int k = 0; k < count; ++k) entries.push_back(std::to_string(k));
  }
  return entries.empty() ? "" : entries[std::size_t(local) % entries.size()];
}

}  // namespace lb::cli

// Running another program (gnuplot) without a shell: an argument vector handed to posix_spawnp,
// so no string of a user's (a file name, TMPDIR) is ever parsed as a command. Header-only, so the
// examples use the same code as the command line.
#pragma once
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace lb::cli {

/// Where a program runs and where its output goes; empty: the caller's directory, /dev/null.
struct ProgramIo {
  std::string dir;          ///< working directory of the program
  std::string error_file;   ///< file that receives its standard error (relative to `dir`)
  std::string output_file;  ///< file that receives its standard output (relative to `dir`)
};

/// How a program ended.
struct ProgramResult {
  int status = -1;    ///< its exit status, or -1 when it did not start or was killed
  std::string error;  ///< why it did not start or end normally; empty when it exited
  bool ok() const { return status == 0; }
};

/// Whether an executable `name` is in PATH, as posix_spawnp would find it (an empty entry is the
/// current directory; no PATH: confstr's default).
inline bool in_path(const std::string& name) {
  const char* env = std::getenv("PATH");
  const std::string path = env ? env : "/bin:/usr/bin";
  for (std::size_t b = 0;;) {
    const std::size_t e = path.find(':', b);
    const std::string dir = path.substr(b, e == std::string::npos ? std::string::npos : e - b);
    if (::access(((dir.empty() ? "." : dir) + "/" + name).c_str(), X_OK) == 0) return true;
    if (e == std::string::npos) return false;
    b = e + 1;
  }
}

/// Runs `argv` (argv[0] looked up in PATH) and waits for it: standard input is /dev/null, its
/// output and error go as `io` says. The arguments reach the program unchanged.
inline ProgramResult run_program(const std::vector<std::string>& argv, const ProgramIo& io = {}) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!io.dir.empty()) posix_spawn_file_actions_addchdir_np(&fa, io.dir.c_str());  // before the opens
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, io.output_file.empty() ? "/dev/null" : io.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&fa, 2, io.error_file.empty() ? "/dev/null" : io.error_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ProgramResult r;
  if (rc != 0) {
    r.error = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return r;
  }
  int ws = 0;
  while (::waitpid(pid, &ws, 0) < 0)
    if (errno != EINTR) {
      r.error = "lost " + argv[0] + ": " + std::strerror(errno);
      return r;
    }
  if (WIFEXITED(ws)) r.status = WEXITSTATUS(ws);
  else r.error = argv[0] + " killed by signal " + std::to_string(WTERMSIG(ws));
  return r;
}

}  // namespace lb::cli

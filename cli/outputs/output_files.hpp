// The files a command writes: each under a temporary name until complete, and checked before any
// computation: liebatch replaces only files it wrote itself (recognised by a mark it leaves in
// each), never an input, a read-only file or a symlink, and refuses an output that cannot fit
// where it goes.
#pragma once
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef LIEBATCH_VERSION  // set by the build
#define LIEBATCH_VERSION "unknown"
#endif

namespace lb::cli {

/// A file that cannot be read or written: the message names the path and the reason.
struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Why `path` cannot be read as a file ("it is a directory", "not a regular file": a device
/// would be read without end), or "" (a missing file is left to the open, which says why).
std::string unreadable(const std::string& path);

/// Makes the file `path`, and its name in its directory, durable (fsync of both): a file that a
/// checkpoint is removed for must survive a crash of the machine (IoError where it cannot).
void make_durable(const std::string& path);

/// A new file beside `path` (`path`.tmp-PID, or -PID-k where a stale one is in the way; the name
/// part shortened where that would pass NAME_MAX), created
/// exclusively, so no existing file is ever truncated; removed by the destructor, or when SIGINT,
/// SIGTERM or SIGHUP ends the process, unless renamed into place by commit().
class Temporary {
 public:
  explicit Temporary(const std::string& path);
  ~Temporary();
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;
  const std::string& name() const { return name_; }
  /// Renames it to `path`; an IoError if that fails (the temporary is then removed).
  void commit(const std::string& path);

 private:
  std::string name_;
  bool live_ = true;
};

/// While it lives, a directory of the process's own whose files (not its subdirectories) and then
/// itself SIGINT, SIGTERM or SIGHUP removes as they remove a Temporary (where the process ends by
/// that signal): a plot's working directory, a job's parts.
class RemovedOnSignal {
 public:
  explicit RemovedOnSignal(std::string dir);
  ~RemovedOnSignal();
  RemovedOnSignal(const RemovedOnSignal&) = delete;
  RemovedOnSignal& operator=(const RemovedOnSignal&) = delete;

 private:
  std::string dir_;
};

/// A text file (CSV) written under a temporary name: finish() writes it out (a full disk shows
/// here), commit() renames it into place.
class TextOutput {
 public:
  explicit TextOutput(std::string path);
  std::ostream& out() { return file_; }
  void finish();
  void commit();

 private:
  std::string path_;
  Temporary tmp_;
  std::ofstream file_;
};

/// Whether `path` holds a file liebatch wrote, by its mark: the HDF5 root attribute
/// `liebatch_version`, a CSV's first line "# liebatch", a PNG's tEXt chunk "Software" = "liebatch …".
bool written_by_liebatch(const std::string& path);

/// The first line of every CSV liebatch writes (its mark).
std::string csv_mark(const std::string& command);
/// A CSV field (RFC 4180): quoted, its quotes doubled, where it holds a comma, a quote or a line end.
std::string csv_field(const std::string& s);

/// Adds the mark to a PNG just written (a tEXt chunk after IHDR); false if the file is no PNG.
bool mark_png(const std::string& path);

/// Refuses, before any work: an output that is one of `inputs` (the same file, however its path
/// is spelled; ConfigError, exit 2, even with --force); an output that is a symlink, a directory
/// or another non-regular file, or read-only (checked on the mode bits, so also for root); an
/// existing file liebatch did not write, unless `force` (IoError, exit 3).
void check_outputs(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs, bool force);

/// Refuses (IoError) an output of about `bytes` that does not fit in the free space of its file
/// system or in the largest file this process may write (RLIMIT_FSIZE); the message names both.
void check_space(const std::string& output, double bytes, const std::string& what);

/// The memory this process may still take, in bytes: the system's (MemAvailable), within the limits
/// of its cgroups (a batch job's, a container's) and of its address space (ulimit -v); +∞ where
/// nothing says.
double available_memory();

/// Refuses (ConfigError) a run that needs more than the memory available.
void check_memory(double bytes, const std::string& what);

/// "1.2 GB".
std::string human_bytes(double bytes);

}  // namespace lb::cli

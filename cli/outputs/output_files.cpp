#include "cli/outputs/output_files.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include <fcntl.h>
#include <hdf5.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <dirent.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zlib.h>

#include "cli/config/config_node.hpp"
#include "cli/outputs/h5_sink.hpp"

// The record getdents64 fills (linux_dirent64 in getdents(2)), which glibc declares only with
// _GNU_SOURCE's dirent64.
struct linux_dirent64_view {
  std::uint64_t d_ino;
  std::int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

namespace lb::cli {
namespace {

// Temporary files to remove when a signal ends the process (unlink is async-signal-safe). Where
// the process had a handler of its own (Python's, which turns SIGINT into KeyboardInterrupt), the
// signal does not end it: that handler runs instead, and the temporaries go with their owners.
std::array<std::atomic<const char*>, 8> pending{};
// Directories of the process's own (a plot's, a job's parts), emptied and removed there too.
std::array<std::atomic<const char*>, 4> pending_dirs{};
constexpr int removal_signals[] = {SIGINT, SIGTERM, SIGHUP};  // SIGHUP: the terminal closed
struct sigaction before[std::size(removal_signals)];
// Removes the files in `dir` (not below it), then `dir`, with async-signal-safe calls alone:
// getdents64 where opendir would allocate.
void empty_and_remove(const char* dir) {
  const int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) static char buf[8192];
  for (long n; (n = ::syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0;)
    for (long at = 0; at < n;) {
      const auto* e = reinterpret_cast<const struct linux_dirent64_view*>(buf + at);
      if (e->d_type != DT_DIR) ::unlinkat(fd, e->d_name, 0);
      at += e->d_reclen;
    }
  ::close(fd);
  ::rmdir(dir);
}

extern "C" void remove_pending(int sig) {
  for (std::size_t k = 0; k < std::size(removal_signals); ++k) {
    if (removal_signals[k] != sig) continue;
    const struct sigaction& old = before[k];
    if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction) return old.sa_sigaction(sig, nullptr, nullptr);
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) return;
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL) return old.sa_handler(sig);
  }
  for (auto& p : pending)
    if (const char* f = p.load()) ::unlink(f);
  for (auto& p : pending_dirs)
    if (const char* d = p.load()) empty_and_remove(d);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

namespace fs = std::filesystem;

constexpr char png_key[] = "Software";
const std::string png_text = std::string("liebatch ") + LIEBATCH_VERSION;

std::string head(const std::string& path, std::size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string s(n, '\0');
  in.read(s.data(), std::streamsize(n));
  s.resize(std::size_t(in.gcount()));
  return s;
}

bool liebatch_h5(const std::string& path) {
  h5_setup();  // not an HDF5 file: a quiet failure
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return false;
  const bool marked = H5Aexists(f, "liebatch_version") > 0;
  H5Fclose(f);
  return marked;
}

std::string quoted(const std::string& p) { return "'" + echo(p) + "'"; }

}  // namespace

std::string unreadable(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return "it is a directory";
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) return "not a regular file";
  return "";
}

namespace {
void install_removal() {
  static const bool installed = [] {
    struct sigaction mine {};
    mine.sa_handler = remove_pending;
    sigemptyset(&mine.sa_mask);
    for (std::size_t k = 0; k < std::size(removal_signals); ++k) sigaction(removal_signals[k], &mine, &before[k]);
    return true;
  }();
  (void)installed;
}
template <std::size_t n> void register_pending(std::array<std::atomic<const char*>, n>& list, const std::string& path) {
  install_removal();
  for (auto& p : list) {
    const char* none = nullptr;
    if (p.compare_exchange_strong(none, path.c_str())) return;
  }
}
template <std::size_t n> void unregister_pending(std::array<std::atomic<const char*>, n>& list, const std::string& path) {
  for (auto& p : list)
    if (p.load() == path.c_str()) p.store(nullptr);
}
void register_temporary(const std::string& path) { register_pending(pending, path); }
void unregister_temporary(const std::string& path) { unregister_pending(pending, path); }
}  // namespace

RemovedOnSignal::RemovedOnSignal(std::string dir) : dir_(std::move(dir)) { register_pending(pending_dirs, dir_); }
RemovedOnSignal::~RemovedOnSignal() { unregister_pending(pending_dirs, dir_); }

Temporary::Temporary(const std::string& path) {
  // path.tmp-PID, its name part shortened where the suffix (and a "-k") would pass NAME_MAX: every
  // name the file system takes must be writable.
  namespace fs = std::filesystem;
  const std::string suffix = ".tmp-" + std::to_string(::getpid());
  std::string name = fs::path(path).filename().string();
  const std::size_t room = NAME_MAX - suffix.size() - 3;
  if (name.size() > room) name.resize(room);
  const std::string base = (fs::path(path).parent_path() / (name + suffix)).string();
  for (int k = 0;; ++k) {
    name_ = k == 0 ? base : base + "-" + std::to_string(k);
    const int fd = ::open(name_.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd >= 0) {
      ::close(fd);
      break;
    }
    if (errno != EEXIST || k == 99)
      throw IoError("cannot write output '" + echo(path) + "': " + std::strerror(errno) + " (creating '" + echo(name_) + "')");
  }
  register_temporary(name_);
}
Temporary::~Temporary() {
  unregister_temporary(name_);
  if (live_) std::remove(name_.c_str());
}
void make_durable(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  for (const std::string& name : {path, dir.empty() ? std::string(".") : dir}) {
    const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
      const std::string why = std::strerror(errno);
      if (fd >= 0) ::close(fd);
      throw IoError("cannot make '" + echo(name) + "' durable (fsync): " + why);
    }
    ::close(fd);
  }
}

void Temporary::commit(const std::string& path) {
  unregister_temporary(name_);
  live_ = false;
  if (std::rename(name_.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(name_.c_str());
    throw IoError("cannot rename '" + echo(name_) + "' to '" + echo(path) + "': " + why);
  }
}

TextOutput::TextOutput(std::string path) : path_(std::move(path)), tmp_(path_), file_(tmp_.name()) {
  if (!file_) throw IoError("cannot write '" + echo(path_) + "': " + std::strerror(errno));
}
void TextOutput::finish() {
  if (!file_.is_open()) return;
  file_.close();
  if (!file_) throw IoError("cannot write '" + echo(path_) + "' (e.g. a full disk)");
}
void TextOutput::commit() {
  finish();
  tmp_.commit(path_);
}

std::string csv_mark(const std::string& command) { return "# liebatch " LIEBATCH_VERSION " " + command; }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

bool written_by_liebatch(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".h5") return liebatch_h5(path);
  if (ext == ".csv") return head(path, 10) == "# liebatch";
  if (ext == ".png") {
    const std::string h = head(path, 33 + 8 + sizeof png_key + 8);  // signature, IHDR, our chunk's start
    return h.find(std::string("tEXt") + png_key + '\0' + "liebatch") != std::string::npos;
  }
  return false;
}

bool mark_png(const std::string& path) {
  std::string png;
  {
    std::ifstream in(path, std::ios::binary);
    png.assign(std::istreambuf_iterator<char>(in), {});
  }
  // Signature (8 bytes), then IHDR: length 13, type, data, CRC (25 bytes).
  if (png.size() < 33 || png.compare(1, 3, "PNG") != 0 || png.compare(12, 4, "IHDR") != 0) return false;
  std::string body = std::string("tEXt") + png_key + '\0' + png_text;
  const auto be32 = [](std::uint32_t x) { return std::string{char(x >> 24), char(x >> 16), char(x >> 8), char(x)}; };
  const auto crc = std::uint32_t(crc32(0, reinterpret_cast<const Bytef*>(body.data()), uInt(body.size())));
  png.insert(33, be32(std::uint32_t(body.size() - 4)) + body + be32(crc));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(png.data(), std::streamsize(png.size()));
  out.close();
  return bool(out);
}

void check_outputs(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs, bool force) {
  for (const auto& out : outputs) {
    std::error_code ec;
    // Where it goes: a directory, and a name it takes (a rename at the end would fail, after the run).
    const fs::path dir = fs::absolute(out, ec).parent_path();
    if (!fs::is_directory(dir, ec)) throw IoError("cannot write output " + quoted(out) + ": no directory " + quoted(dir.string()));
    const long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
    if (const std::size_t n = fs::path(out).filename().string().size(); name_max > 0 && n > std::size_t(name_max))
      throw IoError("cannot write output " + quoted(out) + ": its name has " + std::to_string(n) + " bytes, more than the " +
                    std::to_string(name_max) + " its file system takes");
    const fs::file_status st = fs::symlink_status(out, ec);
    if (!fs::exists(st)) continue;  // (an input exists, so this is none of them)
    for (const auto& in : inputs)
      if (fs::equivalent(out, in, ec))
        throw ConfigError("output " + quoted(out) + " is the input " + quoted(in) + (out == in ? "" : " (the same file)") +
                          "; choose another output name with -o");
    if (fs::is_symlink(st)) throw IoError("output " + quoted(out) + " is a symbolic link; liebatch does not write through links");
    if (fs::is_directory(st)) throw IoError("cannot write output " + quoted(out) + ": it is a directory");
    if (!fs::is_regular_file(st)) throw IoError("output " + quoted(out) + " exists and is not a regular file");
    // The mode bits, not access(W_OK), which says yes to root whatever the mode.
    struct stat sb {};
    if (::stat(out.c_str(), &sb) != 0 || (sb.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || ::access(out.c_str(), W_OK) != 0)
      throw IoError("output " + quoted(out) + " exists and is read-only; liebatch does not replace it");
    if (!force && !written_by_liebatch(out))
      throw IoError("output " + quoted(out) +
                    " exists and was not written by liebatch; give --force to replace it, or another name with -o");
  }
}

std::string human_bytes(double b) {
  const char* unit[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (b >= 1000 && u < 6) {
    b /= 1000;
    ++u;
  }
  char s[32];
  std::snprintf(s, sizeof s, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
  return s;
}

void check_space(const std::string& output, double bytes, const std::string& what) {
  const fs::path dir = fs::absolute(output).parent_path();
  struct statvfs v {};
  if (::statvfs(dir.c_str(), &v) == 0) {
    const double free = double(v.f_bavail) * double(v.f_frsize);
    if (bytes > free)
      throw IoError("output " + quoted(output) + " needs about " + human_bytes(bytes) + " (" + what + ") but its file system has " +
                    human_bytes(free) + " free");
  }
  struct rlimit r {};
  if (::getrlimit(RLIMIT_FSIZE, &r) == 0 && r.rlim_cur != RLIM_INFINITY && bytes > double(r.rlim_cur))
    throw IoError("output " + quoted(output) + " needs about " + human_bytes(bytes) + " (" + what +
                  ") but this process may write files of at most " + human_bytes(double(r.rlim_cur)) + " (ulimit -f)");
}

namespace {
constexpr double unlimited = std::numeric_limits<double>::infinity();

/// The number after `key` in a file of "key value" lines (/proc/meminfo, memory.stat), or +∞.
double field(const fs::path& file, const std::string& key) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 && (line[key.size()] == ' ' || line[key.size()] == ':'))
      return std::strtod(line.c_str() + key.size() + 1, nullptr);
  return unlimited;
}
/// A cgroup file of one number ("max": +∞), or +∞ where there is none.
double number(const fs::path& file) {
  std::ifstream in(file);
  std::string v;
  return in >> v && v != "max" ? std::strtod(v.c_str(), nullptr) : unlimited;
}

/// The room under the memory limits of this process's cgroups (a batch job's, a container's),
/// each level up to the root: the limit less what is used and cannot be reclaimed (inactive page
/// cache can). cgroup v2 (memory.max) and v1 (memory.limit_in_bytes).
double cgroup_room() {
  double room = unlimited;
  std::ifstream in("/proc/self/cgroup");  // "0::/path" (v2), "4:memory:/path" (v1)
  for (std::string line; std::getline(in, line);) {
    const std::size_t a = line.find(':'), b = line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = "," + line.substr(a + 1, b - a - 1) + ",";
    const bool v2 = controllers == ",,";
    if (!v2 && controllers.find(",memory,") == std::string::npos) continue;
    const char* limit = v2 ? "memory.max" : "memory.limit_in_bytes";
    const char* used = v2 ? "memory.current" : "memory.usage_in_bytes";
    const char* cache = v2 ? "inactive_file" : "total_inactive_file";
    for (const char* root :
         v2 ? std::vector<const char*>{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} : std::vector<const char*>{"/sys/fs/cgroup/memory"})
      for (fs::path p = fs::path(line.substr(b + 1)).relative_path();; p = p.parent_path()) {
        const fs::path d = fs::path(root) / p;
        const double max = number(d / limit), use = number(d / used), reclaim = field(d / "memory.stat", cache);
        if (std::isfinite(max) && std::isfinite(use)) room = std::min(room, max - (use - (std::isfinite(reclaim) ? reclaim : 0)));
        if (p.empty()) break;
      }
  }
  return std::max(0.0, room);
}
}  // namespace

double available_memory() {
  double avail = field("/proc/meminfo", "MemAvailable") * 1024;
  avail = std::min(avail, cgroup_room());
  // An address-space limit (ulimit -v; some batch systems set it) less what is mapped now.
  struct rlimit r {};
  if (::getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
    avail = std::min(avail, std::max(0.0, double(r.rlim_cur) - field("/proc/self/status", "VmSize") * 1024));
  return avail;
}

void check_memory(double bytes, const std::string& what) {
  const double avail = available_memory();
  if (bytes > avail)
    throw ConfigError("the run needs about " + human_bytes(bytes) + " of memory (" + what + ") but " + human_bytes(avail) +
                      " is available");
}

}  // namespace lb::cli

// Running the `liebatch` command from tests, without a shell: a scratch directory per test, the
// command's exit status and output, and its HDF5 files read back with the C API.
#pragma once
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <hdf5.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace lbtest {

namespace fs = std::filesystem;

/// A scratch directory per test.
struct Scratch {
  fs::path dir;
  explicit Scratch(const std::string& name) : dir(fs::path(LIEBATCH_TEST_TMP) / name) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  std::string file(const std::string& name, const std::string& text) const {
    const auto p = dir / name;
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
};

struct Result {
  int status;
  std::string err, out;
};

/// How the command is started besides its arguments (set the fields by name: GCC 12 warns of the
/// others left out of a designated initializer).
struct Launch {
  std::string dir;                                        ///< working directory; empty: the test's
  long file_kb = 0;                                       ///< RLIMIT_FSIZE in KiB (ulimit -f); 0: unchanged
  bool ignore_xfsz = false;                               ///< SIGXFSZ ignored, so a write past file_kb fails with EFBIG
  std::vector<std::pair<std::string, std::string>> env;  ///< variables set (or replaced) for it
};

/// Runs liebatch with exactly these arguments (no shell: fork and execve) and captures its exit
/// status (-1 if a signal ended it), stdout and stderr.
inline Result liebatch(const Scratch& s, const std::vector<std::string>& args, const Launch& how = {}) {
  const std::string out = s.path("stdout.txt"), err = s.path("stderr.txt");
  // Everything the child needs is built here: between fork and exec only async-signal-safe calls.
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    const std::string v = *e;
    bool replaced = false;
    for (const auto& [k, _] : how.env) replaced |= v.rfind(k + "=", 0) == 0;
    if (!replaced) env_text.push_back(v);
  }
  for (const auto& [k, v] : how.env) env_text.push_back(k + "=" + v);
  std::vector<char*> argv{const_cast<char*>(LIEBATCH_CLI)}, envp;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  for (auto& e : env_text) envp.push_back(e.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) ::_exit(126);
    if (!how.dir.empty() && ::chdir(how.dir.c_str()) != 0) ::_exit(126);
    if (how.file_kb > 0) {
      const rlimit lim{rlim_t(how.file_kb) * 1024, rlim_t(how.file_kb) * 1024};
      if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) ::_exit(126);
    }
    ::signal(SIGXFSZ, how.ignore_xfsz ? SIG_IGN : SIG_DFL);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  int rc = 0;
  while (pid > 0 && ::waitpid(pid, &rc, 0) < 0 && errno == EINTR) {
  }
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream b;
    b << in.rdbuf();
    return b.str();
  };
  return {pid > 0 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(err), slurp(out)};
}

/// The same with `args` split at spaces (no argument of these tests holds one).
inline Result liebatch(const Scratch& s, const std::string& args, const Launch& how = {}) {
  std::vector<std::string> v;
  std::istringstream in(args);
  for (std::string a; in >> a;) v.push_back(a);
  return liebatch(s, v, how);
}

/// Reading back an HDF5 output with the C API.
struct H5 {
  hid_t f;
  explicit H5(const std::string& p) : f(H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)) {}
  ~H5() {
    if (f >= 0) H5Fclose(f);
  }
  /// Whether a dataset or group exists at `path` (its parent must exist).
  bool exists(const std::string& path) const { return H5Lexists(f, path.c_str(), H5P_DEFAULT) > 0; }
  std::vector<hsize_t> shape(const std::string& path) const {
    const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
    if (d < 0) return {};
    const hid_t sp = H5Dget_space(d);
    std::vector<hsize_t> dims(std::size_t(H5Sget_simple_extent_ndims(sp)));
    H5Sget_simple_extent_dims(sp, dims.data(), nullptr);
    H5Sclose(sp);
    H5Dclose(d);
    return dims;
  }
  template <class T> std::vector<T> read(const std::string& path, hid_t type) const {
    std::size_t n = 1;
    for (auto x : shape(path)) n *= x;
    std::vector<T> v(n);
    const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
    H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Dclose(d);
    return v;
  }
  std::vector<double> doubles(const std::string& p) const { return read<double>(p, H5T_NATIVE_DOUBLE); }
  std::vector<long> longs(const std::string& p) const { return read<long>(p, H5T_NATIVE_LONG); }
  /// Attribute `name` of the file, or of the object at `object`; "" when absent.
  std::string attr(const std::string& name) const { return attr(".", name); }
  std::string attr(const std::string& object, const std::string& name) const {
    if (H5Aexists_by_name(f, object.c_str(), name.c_str(), H5P_DEFAULT) <= 0) return "";
    const hid_t a = H5Aopen_by_name(f, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
    const hid_t t = H5Aget_type(a);
    std::string s(H5Tget_size(t), '\0');
    H5Aread(a, t, s.data());
    H5Tclose(t);
    H5Aclose(a);
    return s.c_str();
  }
};

}  // namespace lbtest

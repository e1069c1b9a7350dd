// Running the `liebatch` command from tests: a scratch directory per test, the command's exit
// status and output, and its HDF5 files read back with the C API.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <hdf5.h>
#include <sys/wait.h>

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

/// Runs `prefix liebatch args` in a shell and captures its exit status, stdout and stderr.
inline Result liebatch(const Scratch& s, const std::string& args, const std::string& prefix = "") {
  const std::string out = s.path("stdout.txt"), err = s.path("stderr.txt");
  const std::string cmd = prefix + std::string(LIEBATCH_CLI) + " " + args + " > " + out + " 2> " + err;
  const int rc = std::system(cmd.c_str());
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream b;
    b << in.rdbuf();
    return b.str();
  };
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(err), slurp(out)};
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

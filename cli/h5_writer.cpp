#include "h5_writer.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include "config_node.hpp"

namespace lb::cli {
namespace {
void check(herr_t r, const std::string& what, const std::string& path) {
  if (r < 0) throw IoError("cannot write " + what + " to '" + echo(path) + "' (HDF5 error, e.g. a full disk)");
}

// Temporary files to remove when a signal ends the process (unlink is async-signal-safe).
std::array<std::atomic<const char*>, 8> pending{};
extern "C" void remove_pending(int sig) {
  for (auto& p : pending)
    if (const char* f = p.load()) ::unlink(f);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}
}  // namespace

void h5_setup() {
  static const bool done = [] {
    H5dont_atexit();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)done;
}

std::string unreadable(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return "it is a directory";
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) return "not a regular file";
  return "";
}

namespace {
void register_temporary(const std::string& path) {
  static const bool installed = [] {
    std::signal(SIGINT, remove_pending);
    std::signal(SIGTERM, remove_pending);
    std::signal(SIGHUP, remove_pending);  // the terminal closed
    return true;
  }();
  (void)installed;
  for (auto& p : pending) {
    const char* none = nullptr;
    if (p.compare_exchange_strong(none, path.c_str())) return;
  }
}
void unregister_temporary(const std::string& path) {
  for (auto& p : pending)
    if (p.load() == path.c_str()) p.store(nullptr);
}
}  // namespace

Temporary::Temporary(const std::string& path) {
  const std::string base = path + ".tmp-" + std::to_string(::getpid());
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

H5Writer::H5Writer(std::string path) : path_(std::move(path)), tmp_(path_) {
  h5_setup();
  // A strong close releases everything even after a failed write (a full disk), so closing works.
  // Attributes in dense storage (HDF5 ≥ 1.8 format): the config attribute may exceed the 64 kB
  // of compact storage.
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), fcpl = H5Pcreate(H5P_FILE_CREATE);
  H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
  H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
  H5Pset_attr_phase_change(fcpl, 0, 0);
  file_ = H5Fcreate(tmp_.name().c_str(), H5F_ACC_TRUNC, fcpl, fapl);
  H5Pclose(fcpl);
  H5Pclose(fapl);
  if (file_ < 0) throw IoError("cannot create HDF5 file '" + echo(tmp_.name()) + "'");
}

H5Writer::~H5Writer() {
  // Not committed: closed (which may fail after a failed write) and its temporary removed.
  if (file_ >= 0) H5Fclose(hid_t(file_));
}

void H5Writer::attr(const std::string& name, const std::string& value) { attr(".", name, value); }

void H5Writer::attr(const std::string& path, const std::string& name, const std::string& value) {
  const hid_t obj = H5Oopen(hid_t(file_), path.c_str(), H5P_DEFAULT);
  check(obj, "attribute " + name, path_);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.size() + 1);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t r = a < 0 ? -1 : H5Awrite(a, type, value.c_str());
  if (a >= 0) H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
  H5Oclose(obj);
  check(r, "attribute " + name, path_);
}

void H5Writer::attr(const std::string& name, double value) {
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(hid_t(file_), name.c_str(), H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t r = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_DOUBLE, &value);
  if (a >= 0) H5Aclose(a);
  H5Sclose(space);
  check(r, "attribute " + name, path_);
}

void H5Writer::write_raw(const std::string& path, std::int64_t type, const void* data, std::vector<std::uint64_t> dims) {
  std::vector<hsize_t> d(dims.begin(), dims.end());
  const hid_t space = H5Screate_simple(int(d.size()), d.data(), nullptr);
  const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  const hid_t set = H5Dcreate2(hid_t(file_), path.c_str(), hid_t(type), space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  herr_t r = set < 0 ? -1 : 0;
  std::uint64_t n = 1;
  for (auto x : dims) n *= x;
  if (set >= 0 && n > 0) r = H5Dwrite(set, hid_t(type), H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  if (set >= 0) H5Dclose(set);
  H5Pclose(lcpl);
  H5Sclose(space);
  check(r, "dataset " + path, path_);
}

void H5Writer::write(const std::string& path, const std::vector<double>& v, std::vector<std::uint64_t> dims) {
  write_raw(path, H5T_NATIVE_DOUBLE, v.data(), std::move(dims));
}
void H5Writer::write(const std::string& path, const std::vector<long>& v, std::vector<std::uint64_t> dims) {
  write_raw(path, H5T_NATIVE_LONG, v.data(), std::move(dims));
}
void H5Writer::write(const std::string& path, const std::vector<std::uint8_t>& v, std::vector<std::uint64_t> dims) {
  write_raw(path, H5T_NATIVE_UINT8, v.data(), std::move(dims));
}
void H5Writer::write(const std::string& path, const std::vector<std::string>& v) {
  std::size_t w = 1;
  for (const auto& s : v) w = std::max(w, s.size() + 1);
  std::vector<char> buf(w * v.size(), '\0');
  for (std::size_t k = 0; k < v.size(); ++k) std::memcpy(buf.data() + k * w, v[k].data(), v[k].size());
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, w);
  write_raw(path, type, buf.data(), {v.size()});
  H5Tclose(type);
}

std::int64_t H5Writer::type_of(double) { return H5T_NATIVE_DOUBLE; }
std::int64_t H5Writer::type_of(long) { return H5T_NATIVE_LONG; }
std::int64_t H5Writer::type_of(std::uint8_t) { return H5T_NATIVE_UINT8; }

namespace {
hid_t native(H5Writer::Kind k) {
  return k == H5Writer::Kind::f64 ? H5T_NATIVE_DOUBLE : k == H5Writer::Kind::i64 ? H5T_NATIVE_LONG : H5T_NATIVE_UINT8;
}
}  // namespace

void H5Writer::create(const std::string& path, Kind kind, std::vector<std::uint64_t> dims) {
  std::vector<hsize_t> d(dims.begin(), dims.end());
  const hid_t space = H5Screate_simple(int(d.size()), d.data(), nullptr);
  const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  const hid_t set = H5Dcreate2(hid_t(file_), path.c_str(), native(kind), space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
  if (set >= 0) H5Dclose(set);
  H5Pclose(lcpl);
  H5Sclose(space);
  check(set, "dataset " + path, path_);
}

void H5Writer::write_slab(const std::string& path, std::int64_t type, const void* data, std::uint64_t col0, std::uint64_t cols) {
  const hid_t set = H5Dopen2(hid_t(file_), path.c_str(), H5P_DEFAULT);
  check(set, "dataset " + path, path_);
  const hid_t file_space = H5Dget_space(set);
  const int rank = H5Sget_simple_extent_ndims(file_space);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank)), start(static_cast<std::size_t>(rank), 0);
  H5Sget_simple_extent_dims(file_space, dims.data(), nullptr);
  start.back() = col0;
  dims.back() = cols;
  herr_t r = H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, dims.data(), nullptr);
  const hid_t mem = H5Screate_simple(rank, dims.data(), nullptr);
  if (r >= 0 && cols > 0) r = H5Dwrite(set, hid_t(type), mem, file_space, H5P_DEFAULT, data);
  H5Sclose(mem);
  H5Sclose(file_space);
  H5Dclose(set);
  check(r, "dataset " + path, path_);
}

void H5Writer::create_rows(const std::string& path, Kind kind, std::uint64_t width) {
  const bool vec = width > 0;
  const hsize_t dims[2] = {0, width}, maxd[2] = {H5S_UNLIMITED, width}, chunk[2] = {4096, vec ? width : 1};
  const hid_t space = H5Screate_simple(vec ? 2 : 1, dims, maxd);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, vec ? 2 : 1, chunk);
  const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  const hid_t set = H5Dcreate2(hid_t(file_), path.c_str(), native(kind), space, lcpl, dcpl, H5P_DEFAULT);
  if (set >= 0) H5Dclose(set);
  H5Pclose(lcpl);
  H5Pclose(dcpl);
  H5Sclose(space);
  check(set, "dataset " + path, path_);
}

void H5Writer::append_raw(const std::string& path, std::int64_t type, const void* data, std::uint64_t rows, std::uint64_t width) {
  if (rows == 0) return;
  const hid_t set = H5Dopen2(hid_t(file_), path.c_str(), H5P_DEFAULT);
  check(set, "dataset " + path, path_);
  const bool vec = width > 0;
  hid_t space = H5Dget_space(set);
  hsize_t old[2] = {0, 0};
  H5Sget_simple_extent_dims(space, old, nullptr);
  H5Sclose(space);
  const hsize_t grown[2] = {old[0] + rows, width}, start[2] = {old[0], 0}, count[2] = {rows, width};
  herr_t r = H5Dset_extent(set, grown);
  space = H5Dget_space(set);
  if (r >= 0) r = H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
  const hid_t mem = H5Screate_simple(vec ? 2 : 1, count, nullptr);
  if (r >= 0) r = H5Dwrite(set, hid_t(type), mem, space, H5P_DEFAULT, data);
  H5Sclose(mem);
  H5Sclose(space);
  H5Dclose(set);
  check(r, "dataset " + path, path_);
}

void H5Writer::commit() {
  const herr_t r = H5Fclose(hid_t(file_));
  file_ = -1;
  if (r < 0) throw IoError("cannot finish HDF5 file '" + echo(tmp_.name()) + "' (e.g. a full disk)");
  tmp_.commit(path_);
}

}  // namespace lb::cli

#include "cli/outputs/h5_sink.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <hdf5.h>

#include "cli/config/config_node.hpp"

namespace lb::cli {
namespace {
void check(herr_t r, const std::string& what, const std::string& path) {
  if (r < 0) throw IoError("cannot write " + what + " to '" + echo(path) + "' (HDF5 error, e.g. a full disk)");
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

H5Sink::H5Sink(std::string path) : path_(std::move(path)), tmp_(path_) {
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

H5Sink::~H5Sink() {
  // Not committed: closed (which may fail after a failed write) and its temporary removed.
  if (file_ >= 0) H5Fclose(hid_t(file_));
}

void H5Sink::attr(const std::string& name, const std::string& value) { attr(".", name, value); }

void H5Sink::attr(const std::string& path, const std::string& name, const std::string& value) {
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

void H5Sink::attr(const std::string& name, double value) {
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(hid_t(file_), name.c_str(), H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t r = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_DOUBLE, &value);
  if (a >= 0) H5Aclose(a);
  H5Sclose(space);
  check(r, "attribute " + name, path_);
}

void H5Sink::write_raw(const std::string& path, std::int64_t type, const void* data, Dims dims) {
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

void H5Sink::write(const std::string& path, const std::vector<double>& v, Dims dims) {
  write_raw(path, H5T_NATIVE_DOUBLE, v.data(), std::move(dims));
}
void H5Sink::write(const std::string& path, const std::vector<long>& v, Dims dims) {
  write_raw(path, H5T_NATIVE_LONG, v.data(), std::move(dims));
}
void H5Sink::write(const std::string& path, const std::vector<std::uint8_t>& v, Dims dims) {
  write_raw(path, H5T_NATIVE_UINT8, v.data(), std::move(dims));
}
void H5Sink::write(const std::string& path, const std::vector<std::string>& v) {
  std::size_t w = 1;
  for (const auto& s : v) w = std::max(w, s.size() + 1);
  std::vector<char> buf(w * v.size(), '\0');
  for (std::size_t k = 0; k < v.size(); ++k) std::memcpy(buf.data() + k * w, v[k].data(), v[k].size());
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, w);
  write_raw(path, type, buf.data(), {v.size()});
  H5Tclose(type);
}

void H5Sink::write_columns(const std::string& path, const std::vector<double>& v, std::uint64_t col0, std::uint64_t cols) {
  write_slab(path, H5T_NATIVE_DOUBLE, v.data(), col0, cols);
}
void H5Sink::write_columns(const std::string& path, const std::vector<long>& v, std::uint64_t col0, std::uint64_t cols) {
  write_slab(path, H5T_NATIVE_LONG, v.data(), col0, cols);
}
void H5Sink::write_columns(const std::string& path, const std::vector<std::uint8_t>& v, std::uint64_t col0, std::uint64_t cols) {
  write_slab(path, H5T_NATIVE_UINT8, v.data(), col0, cols);
}
void H5Sink::append_rows(const std::string& path, const std::vector<double>& v, std::uint64_t width) {
  append_raw(path, H5T_NATIVE_DOUBLE, v.data(), width ? v.size() / width : v.size(), width);
}
void H5Sink::append_rows(const std::string& path, const std::vector<long>& v, std::uint64_t width) {
  append_raw(path, H5T_NATIVE_LONG, v.data(), width ? v.size() / width : v.size(), width);
}

namespace {
hid_t native(H5Sink::Kind k) {
  return k == H5Sink::Kind::f64 ? H5T_NATIVE_DOUBLE : k == H5Sink::Kind::i64 ? H5T_NATIVE_LONG : H5T_NATIVE_UINT8;
}
}  // namespace

void H5Sink::create(const std::string& path, Kind kind, Dims dims) {
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

void H5Sink::write_slab(const std::string& path, std::int64_t type, const void* data, std::uint64_t col0, std::uint64_t cols) {
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

void H5Sink::create_rows(const std::string& path, Kind kind, std::uint64_t width) {
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

void H5Sink::append_raw(const std::string& path, std::int64_t type, const void* data, std::uint64_t rows, std::uint64_t width) {
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

void H5Sink::commit() {
  const herr_t r = H5Fclose(hid_t(file_));
  file_ = -1;
  if (r < 0) throw IoError("cannot finish HDF5 file '" + echo(tmp_.name()) + "' (e.g. a full disk)");
  tmp_.commit(path_);
}

}  // namespace lb::cli

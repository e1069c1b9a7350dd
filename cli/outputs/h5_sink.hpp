// The HDF5 sink: one HDF5 file, written under a temporary name and renamed into place only by
// commit().
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cli/outputs/output_files.hpp"
#include "cli/outputs/sink.hpp"

namespace lb::cli {

/// Sets up the HDF5 library before its first use: errors reported by us with the path, not
/// printed by HDF5; and no clean-up at exit, which in HDF5 1.10 crashes on a file whose close
/// failed (a full disk) — every file is closed explicitly instead.
void h5_setup();

/// The HDF5 file format: arrays as datasets (chunked where filled in parts), attributes as
/// string or double attributes, groups created on demand.
class H5Sink final : public Sink {
 public:
  explicit H5Sink(std::string path);
  ~H5Sink() override;
  H5Sink(const H5Sink&) = delete;
  H5Sink& operator=(const H5Sink&) = delete;

  void attr(const std::string& name, const std::string& value) override;
  void attr(const std::string& name, double value) override;
  void attr(const std::string& path, const std::string& name, const std::string& value) override;
  void write(const std::string& path, const std::vector<double>& v, Dims dims) override;
  void write(const std::string& path, const std::vector<long>& v, Dims dims) override;
  void write(const std::string& path, const std::vector<std::uint8_t>& v, Dims dims) override;
  void write(const std::string& path, const std::vector<std::string>& v) override;
  void create(const std::string& path, Kind kind, Dims dims) override;
  void write_columns(const std::string& path, const std::vector<double>& v, std::uint64_t col0, std::uint64_t cols) override;
  void write_columns(const std::string& path, const std::vector<long>& v, std::uint64_t col0, std::uint64_t cols) override;
  void write_columns(const std::string& path, const std::vector<std::uint8_t>& v, std::uint64_t col0, std::uint64_t cols) override;
  void create_rows(const std::string& path, Kind kind, std::uint64_t width) override;
  void append_rows(const std::string& path, const std::vector<double>& v, std::uint64_t width) override;
  void append_rows(const std::string& path, const std::vector<long>& v, std::uint64_t width) override;
  void commit() override;
  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  Temporary tmp_;
  std::int64_t file_ = -1;
  void write_raw(const std::string& path, std::int64_t type, const void* data, Dims dims);
  void write_slab(const std::string& path, std::int64_t type, const void* data, std::uint64_t col0, std::uint64_t cols);
  void append_raw(const std::string& path, std::int64_t type, const void* data, std::uint64_t rows, std::uint64_t width);
};

}  // namespace lb::cli

// One HDF5 output file, written under a temporary name and renamed into place only by commit():
// a run that fails leaves no partial file. Groups are created on demand.
#pragma once
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace lb::cli {

/// A file that cannot be read or written: the message names the path and the reason.
struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Why `path` cannot be read as a file ("it is a directory", "not a regular file": a device
/// would be read without end), or "" (a missing file is left to the open, which says why).
std::string unreadable(const std::string& path);

/// A new file beside `path` (`path`.tmp-PID, or -PID-k where a stale one is in the way), created
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

/// Sets up the HDF5 library before its first use: errors reported by us with the path, not
/// printed by HDF5; and no clean-up at exit, which in HDF5 1.10 crashes on a file whose close
/// failed (a full disk) — every file is closed explicitly instead.
void h5_setup();

class H5Writer {
 public:
  /// Creates its temporary now, so an unwritable path fails before any computation.
  explicit H5Writer(std::string path);
  ~H5Writer();
  H5Writer(const H5Writer&) = delete;
  H5Writer& operator=(const H5Writer&) = delete;

  /// Attributes on the root group.
  void attr(const std::string& name, const std::string& value);
  void attr(const std::string& name, double value);
  /// Datasets at a path like "final/y", shape `dims` (row-major).
  void write(const std::string& path, const std::vector<double>& v, std::vector<std::uint64_t> dims);
  void write(const std::string& path, const std::vector<long>& v, std::vector<std::uint64_t> dims);
  void write(const std::string& path, const std::vector<std::uint8_t>& v, std::vector<std::uint64_t> dims);
  void write(const std::string& path, const std::vector<std::string>& v);
  /// A dataset of the given shape to be filled by blocks of columns (the last index: members).
  enum class Kind { f64, i64, u8 };
  void create(const std::string& path, Kind kind, std::vector<std::uint64_t> dims);
  /// Writes `v`, of shape dims with the last extent `cols`, at columns [col0, col0 + cols).
  template <class T> void write_columns(const std::string& path, const std::vector<T>& v, std::uint64_t col0, std::uint64_t cols);
  /// A dataset of rows of `width` that grows by append_rows (hit records).
  void create_rows(const std::string& path, Kind kind, std::uint64_t width);
  template <class T> void append_rows(const std::string& path, const std::vector<T>& v, std::uint64_t width);
  /// An attribute on a dataset or group at `path`.
  void attr(const std::string& path, const std::string& name, const std::string& value);
  /// Closes the file and renames it to its final name.
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  Temporary tmp_;
  std::int64_t file_ = -1;
  void write_raw(const std::string& path, std::int64_t type, const void* data, std::vector<std::uint64_t> dims);
  void write_slab(const std::string& path, std::int64_t type, const void* data, std::uint64_t col0, std::uint64_t cols);
  void append_raw(const std::string& path, std::int64_t type, const void* data, std::uint64_t rows, std::uint64_t width);
  static std::int64_t type_of(double);
  static std::int64_t type_of(long);
  static std::int64_t type_of(std::uint8_t);
};

template <class T>
void H5Writer::write_columns(const std::string& path, const std::vector<T>& v, std::uint64_t col0, std::uint64_t cols) {
  write_slab(path, type_of(T{}), v.data(), col0, cols);
}
template <class T> void H5Writer::append_rows(const std::string& path, const std::vector<T>& v, std::uint64_t width) {
  append_raw(path, type_of(T{}), v.data(), width ? v.size() / width : v.size(), width);
}

}  // namespace lb::cli

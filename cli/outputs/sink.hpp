// Where a command's results go: named arrays and attributes in groups ("final/y", "converge/h"),
// per-member arrays filled batch by batch, hit records appended, and the whole put in place only
// by commit(), so a run that fails leaves no partial file. The commands write through this
// interface alone: HDF5 (H5Sink) is the one format today, and another is one more implementation
// and one more line in open_sink.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lb::cli {

class Sink {
 public:
  using Dims = std::vector<std::uint64_t>;
  /// Element types of the arrays created empty and filled later.
  enum class Kind { f64, i64, u8 };
  virtual ~Sink() = default;

  /// Attributes on the root, and on the array or group at `path`.
  virtual void attr(const std::string& name, const std::string& value) = 0;
  virtual void attr(const std::string& name, double value) = 0;
  virtual void attr(const std::string& path, const std::string& name, const std::string& value) = 0;
  /// A whole array at `path`, of shape `dims` (row-major); a list of strings.
  virtual void write(const std::string& path, const std::vector<double>& v, Dims dims) = 0;
  virtual void write(const std::string& path, const std::vector<long>& v, Dims dims) = 0;
  virtual void write(const std::string& path, const std::vector<std::uint8_t>& v, Dims dims) = 0;
  virtual void write(const std::string& path, const std::vector<std::string>& v) = 0;
  /// An array of shape `dims` whose last index is the member, filled by write_columns: `v` holds
  /// the shape with `cols` members in the last index, written at members [col0, col0 + cols).
  virtual void create(const std::string& path, Kind kind, Dims dims) = 0;
  virtual void write_columns(const std::string& path, const std::vector<double>& v, std::uint64_t col0, std::uint64_t cols) = 0;
  virtual void write_columns(const std::string& path, const std::vector<long>& v, std::uint64_t col0, std::uint64_t cols) = 0;
  virtual void write_columns(const std::string& path, const std::vector<std::uint8_t>& v, std::uint64_t col0, std::uint64_t cols) = 0;
  /// An array of rows of `width` numbers (0: scalars) that grows by append_rows (hit records).
  virtual void create_rows(const std::string& path, Kind kind, std::uint64_t width) = 0;
  virtual void append_rows(const std::string& path, const std::vector<double>& v, std::uint64_t width) = 0;
  virtual void append_rows(const std::string& path, const std::vector<long>& v, std::uint64_t width) = 0;
  /// Completes the output and puts it in place under path(); an IoError if that fails.
  virtual void commit() = 0;
  /// The output's final name.
  virtual const std::string& path() const = 0;
};

/// "" when `path` names a format liebatch writes (by its extension: .h5), else what it expects.
std::string sink_format_error(const std::string& path);
/// The sink for `path`'s format, its temporary created now (so an unwritable path fails before
/// any computation).
std::unique_ptr<Sink> open_sink(const std::string& path);

}  // namespace lb::cli

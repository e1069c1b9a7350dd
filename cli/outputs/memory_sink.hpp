// The in-memory sink: every array and attribute a command writes, kept in vectors for a caller in
// the same process (Python's run_config), in the HDF5 file's layout and names. Nothing touches a
// file; commit() only marks the output complete.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "cli/outputs/sink.hpp"

namespace lb::cli {

/// What a MemorySink holds once its command returns.
struct MemoryStore {
  /// One array: its shape (row-major; rows appended grow dims[0]) and its numbers in the vector of
  /// its kind, or a list of strings.
  struct Array {
    Sink::Kind kind = Sink::Kind::f64;
    Sink::Dims dims;
    std::vector<double> f64;
    std::vector<long> i64;
    std::vector<std::uint8_t> u8;
    std::vector<std::string> strings;
    bool is_strings = false;
  };
  using Value = std::variant<std::string, double>;
  std::map<std::string, Array> arrays;
  /// Attributes by the path they are on ("" : the root).
  std::map<std::string, std::map<std::string, Value>> attrs;
  bool committed = false;
};

class MemorySink final : public Sink {
 public:
  explicit MemorySink(std::shared_ptr<MemoryStore> store) : store_(std::move(store)) {}

  void attr(const std::string& name, const std::string& value) override { store_->attrs[""][name] = value; }
  void attr(const std::string& name, double value) override { store_->attrs[""][name] = value; }
  void attr(const std::string& path, const std::string& name, const std::string& value) override { store_->attrs[path][name] = value; }
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
  void commit() override { store_->committed = true; }
  const std::string& path() const override { return path_; }

 private:
  std::shared_ptr<MemoryStore> store_;
  std::string path_ = "(memory)";
};

}  // namespace lb::cli

// The sink of a run that takes checkpoints: per-member arrays and hit rows go to raw files in the
// checkpoint's directory as they come, everything else is remembered, and commit() writes the
// output from them in one go. A run killed at any moment leaves no partial output, only raw files
// that a resumed run takes up (checkpoint.hpp makes them durable and says how much of them counts).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/outputs/sink.hpp"

namespace lb::cli {

class StagedSink final : public Sink {
 public:
  /// Raw files in `dir` for the output `path`. `rows`: for a resumed run, the rows each row array
  /// had at its checkpoint (the files are cut back to them, and column files must have their size);
  /// null for a new run (every file starts empty).
  StagedSink(std::string path, std::string dir, const std::map<std::string, std::uint64_t>* rows);
  ~StagedSink() override;
  StagedSink(const StagedSink&) = delete;
  StagedSink& operator=(const StagedSink&) = delete;

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
  /// Writes the output (open_sink) from what was remembered and the raw files, and puts it in place.
  void commit() override;
  const std::string& path() const override { return path_; }

  /// Every raw file on disk (fdatasync): what a checkpoint's manifest then counts is durable.
  void sync();
  /// The rows each row array holds now.
  std::map<std::string, std::uint64_t> rows() const;
  /// Each column array's raw file (its name in the directory) and its size: a checkpoint's
  /// manifest lists them, and a resume finds each whole.
  std::map<std::string, std::uint64_t> column_files() const;
  /// Whether a raw file exists for the array at `path` (made by an earlier run of this checkpoint).
  bool staged(const std::string& path) const;

 private:
  struct File;
  std::string path_, dir_;
  const std::map<std::string, std::uint64_t>* resumed_;
  std::map<std::string, std::unique_ptr<File>> files_;
  std::vector<std::function<void(Sink&)>> ops_;  ///< in order, replayed by commit()
  File& file(const std::string& path);
  std::string raw_name(const std::string& path) const;
  void columns(const std::string& path, const void* data, std::uint64_t col0, std::uint64_t cols);
  void rows_raw(const std::string& path, const void* data, std::uint64_t bytes);
  void copy_out(Sink& out, const std::string& path);
};

}  // namespace lb::cli

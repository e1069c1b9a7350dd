#include "cli/outputs/staged_sink.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/config/config_node.hpp"
#include "cli/outputs/output_files.hpp"

namespace lb::cli {

/// A raw file: a column array's elements at their place in the array (row-major, the member
/// last), or a row array's rows one after another.
struct StagedSink::File {
  int fd = -1;
  std::string name;
  Kind kind = Kind::f64;
  Dims dims;  ///< columns: the array's shape
  bool columns = true;
  std::uint64_t width = 0;  ///< rows: numbers per row (0: scalars)
  std::uint64_t bytes = 0;  ///< rows: the bytes that count
  ~File() {
    if (fd >= 0) ::close(fd);
  }
  std::uint64_t elem() const { return kind == Kind::u8 ? 1 : 8; }
  /// Columns: the rows of the array, each as long as the member count (dims.back()).
  std::uint64_t rows() const {
    std::uint64_t r = 1;
    for (std::size_t k = 0; k + 1 < dims.size(); ++k) r *= dims[k];
    return r;
  }
  std::uint64_t row_bytes() const { return std::max<std::uint64_t>(width, 1) * elem(); }
};

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& name) {
  throw IoError("checkpoint: cannot " + what + " '" + echo(name) + "': " + std::strerror(errno));
}

void pwrite_all(const std::string& name, int fd, const void* data, std::uint64_t n, std::uint64_t at) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, p, n, off_t(at));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fail("write", name);
    p += w, n -= std::uint64_t(w), at += std::uint64_t(w);
  }
}

void pread_all(const std::string& name, int fd, void* data, std::uint64_t n, std::uint64_t at) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, off_t(at));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) errno = EIO;  // shorter than its manifest says
    if (r <= 0) fail("read", name);
    p += r, n -= std::uint64_t(r), at += std::uint64_t(r);
  }
}

/// One element type's vector, for the Sink calls that take each.
template <class F> void with_kind(Sink::Kind k, F&& f) {
  if (k == Sink::Kind::f64) f(std::vector<double>{});
  else if (k == Sink::Kind::i64) f(std::vector<long>{});
  else f(std::vector<std::uint8_t>{});
}

constexpr std::uint64_t copy_block = 64ull << 20;  ///< bytes read at a time by commit()

}  // namespace

StagedSink::StagedSink(std::string path, std::string dir, const std::map<std::string, std::uint64_t>* rows)
    : path_(std::move(path)), dir_(std::move(dir)), resumed_(rows) {}

StagedSink::~StagedSink() = default;

std::string StagedSink::raw_name(const std::string& path) const {
  // The array's path in hexadecimal: any name a model gives its parameters makes a plain file name.
  static const char hex[] = "0123456789abcdef";
  std::string s;
  for (unsigned char c : path) s += hex[c >> 4], s += hex[c & 15];
  return dir_ + "/" + s + ".raw";
}

StagedSink::File& StagedSink::file(const std::string& path) {
  const auto it = files_.find(path);
  if (it == files_.end()) throw IoError("checkpoint: no array '" + echo(path) + "' was created");
  return *it->second;
}

bool StagedSink::staged(const std::string& path) const {
  struct stat sb {};
  return ::stat(raw_name(path).c_str(), &sb) == 0;
}

void StagedSink::attr(const std::string& name, const std::string& value) {
  ops_.push_back([=](Sink& s) { s.attr(name, value); });
}
void StagedSink::attr(const std::string& name, double value) {
  ops_.push_back([=](Sink& s) { s.attr(name, value); });
}
void StagedSink::attr(const std::string& path, const std::string& name, const std::string& value) {
  ops_.push_back([=](Sink& s) { s.attr(path, name, value); });
}
void StagedSink::write(const std::string& path, const std::vector<double>& v, Dims dims) {
  ops_.push_back([=](Sink& s) { s.write(path, v, dims); });
}
void StagedSink::write(const std::string& path, const std::vector<long>& v, Dims dims) {
  ops_.push_back([=](Sink& s) { s.write(path, v, dims); });
}
void StagedSink::write(const std::string& path, const std::vector<std::uint8_t>& v, Dims dims) {
  ops_.push_back([=](Sink& s) { s.write(path, v, dims); });
}
void StagedSink::write(const std::string& path, const std::vector<std::string>& v) {
  ops_.push_back([=](Sink& s) { s.write(path, v); });
}

void StagedSink::create(const std::string& path, Kind kind, Dims dims) {
  auto f = std::make_unique<File>();
  f->name = raw_name(path);
  f->kind = kind;
  f->dims = dims;
  const std::uint64_t size = f->elem() * f->rows() * dims.back();
  // A resumed run's file must be the array it was: its size says so (its contents are the checkpoint's).
  const bool keep = resumed_ && staged(path);
  f->fd = ::open(f->name.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (f->fd < 0) fail("create", f->name);
  struct stat sb {};
  if (keep && (::fstat(f->fd, &sb) != 0 || std::uint64_t(sb.st_size) != size))
    throw IoError("checkpoint: '" + echo(f->name) + "' (array " + path + ") has " + std::to_string(sb.st_size) + " bytes, not " +
                  std::to_string(size) + "; the checkpoint is damaged: run again with --restart");
  if (!keep && (::ftruncate(f->fd, 0) != 0 || ::ftruncate(f->fd, off_t(size)) != 0)) fail("size", f->name);
  files_[path] = std::move(f);
  ops_.push_back([=, this](Sink& s) {
    s.create(path, kind, dims);
    copy_out(s, path);
  });
}

void StagedSink::create_rows(const std::string& path, Kind kind, std::uint64_t width) {
  auto f = std::make_unique<File>();
  f->name = raw_name(path);
  f->kind = kind;
  f->columns = false;
  f->width = width;
  f->fd = ::open(f->name.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (f->fd < 0) fail("create", f->name);
  // A resumed run keeps the rows its checkpoint counted; rows written after it are cut off.
  std::uint64_t keep = 0;
  if (resumed_)
    if (const auto it = resumed_->find(path); it != resumed_->end()) keep = it->second * f->row_bytes();
  struct stat sb {};
  if (::fstat(f->fd, &sb) != 0) fail("read", f->name);
  if (std::uint64_t(sb.st_size) < keep)
    throw IoError("checkpoint: '" + echo(f->name) + "' (array " + path + ") has " + std::to_string(sb.st_size) + " bytes, fewer than the " +
                  std::to_string(keep) + " its manifest counts; the checkpoint is damaged: run again with --restart");
  if (::ftruncate(f->fd, off_t(keep)) != 0) fail("size", f->name);
  f->bytes = keep;
  files_[path] = std::move(f);
  ops_.push_back([=, this](Sink& s) {
    s.create_rows(path, kind, width);
    copy_out(s, path);
  });
}

void StagedSink::columns(const std::string& path, const void* data, std::uint64_t col0, std::uint64_t cols) {
  File& f = file(path);
  const std::uint64_t n = f.dims.back(), e = f.elem();
  for (std::uint64_t r = 0; r < f.rows(); ++r)
    pwrite_all(f.name, f.fd, static_cast<const char*>(data) + r * cols * e, cols * e, (r * n + col0) * e);
}
void StagedSink::write_columns(const std::string& path, const std::vector<double>& v, std::uint64_t col0, std::uint64_t cols) {
  columns(path, v.data(), col0, cols);
}
void StagedSink::write_columns(const std::string& path, const std::vector<long>& v, std::uint64_t col0, std::uint64_t cols) {
  columns(path, v.data(), col0, cols);
}
void StagedSink::write_columns(const std::string& path, const std::vector<std::uint8_t>& v, std::uint64_t col0, std::uint64_t cols) {
  columns(path, v.data(), col0, cols);
}

void StagedSink::rows_raw(const std::string& path, const void* data, std::uint64_t bytes) {
  File& f = file(path);
  pwrite_all(f.name, f.fd, data, bytes, f.bytes);
  f.bytes += bytes;
}
void StagedSink::append_rows(const std::string& path, const std::vector<double>& v, std::uint64_t) {
  rows_raw(path, v.data(), v.size() * sizeof(double));
}
void StagedSink::append_rows(const std::string& path, const std::vector<long>& v, std::uint64_t) {
  rows_raw(path, v.data(), v.size() * sizeof(long));
}

void StagedSink::copy_out(Sink& out, const std::string& path) {
  const File& f = file(path);
  const std::uint64_t e = f.elem();
  with_kind(f.kind, [&](auto v) {
    using V = typename decltype(v)::value_type;
    if (f.columns) {  // blocks of whole columns
      const std::uint64_t n = f.dims.back(), rows = f.rows();
      const std::uint64_t block = std::max<std::uint64_t>(1, copy_block / std::max<std::uint64_t>(rows * e, 1));
      for (std::uint64_t c0 = 0; c0 < n; c0 += block) {
        const std::uint64_t cols = std::min(block, n - c0);
        v.resize(rows * cols);
        for (std::uint64_t r = 0; r < rows; ++r) pread_all(f.name, f.fd, v.data() + r * cols, cols * e, (r * n + c0) * e);
        out.write_columns(path, v, c0, cols);
      }
    } else if constexpr (!std::is_same_v<V, std::uint8_t>) {  // blocks of whole rows
      const std::uint64_t rb = f.row_bytes(), block = std::max<std::uint64_t>(1, copy_block / rb) * rb;
      for (std::uint64_t at = 0; at < f.bytes; at += block) {
        const std::uint64_t bytes = std::min(block, f.bytes - at);
        v.resize(bytes / e);
        pread_all(f.name, f.fd, v.data(), bytes, at);
        out.append_rows(path, v, f.width);
      }
    }
  });
}

void StagedSink::commit() {
  const auto out = open_sink(path_);
  for (const auto& op : ops_) op(*out);
  out->commit();
  make_durable(path_);  // before the checkpoint goes
}

void StagedSink::sync() {
  for (const auto& [path, f] : files_)
    if (::fdatasync(f->fd) != 0) fail("sync", f->name);
}

std::map<std::string, std::uint64_t> StagedSink::column_files() const {
  std::map<std::string, std::uint64_t> r;
  for (const auto& [path, f] : files_)
    if (f->columns) r[std::filesystem::path(f->name).filename().string()] = f->elem() * f->rows() * f->dims.back();
  return r;
}

std::map<std::string, std::uint64_t> StagedSink::rows() const {
  std::map<std::string, std::uint64_t> r;
  for (const auto& [path, f] : files_)
    if (!f->columns) r[path] = f->bytes / f->row_bytes();
  return r;
}

}  // namespace lb::cli

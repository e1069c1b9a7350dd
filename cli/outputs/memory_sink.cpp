#include "cli/outputs/memory_sink.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

namespace lb::cli {
namespace {

using Array = MemoryStore::Array;

std::uint64_t count(const Sink::Dims& d) { return std::accumulate(d.begin(), d.end(), std::uint64_t(1), std::multiplies<>()); }

template <class V> std::vector<V>& numbers(Array& a) {
  if constexpr (std::is_same_v<V, double>) return a.f64;
  else if constexpr (std::is_same_v<V, long>) return a.i64;
  else return a.u8;
}

template <class V> void put(MemoryStore& s, const std::string& path, Sink::Kind kind, const std::vector<V>& v, Sink::Dims dims) {
  Array& a = s.arrays[path] = Array{};
  a.kind = kind;
  a.dims = std::move(dims);
  numbers<V>(a) = v;
}

/// v: the array's shape with `cols` members in the last index, at columns [col0, col0 + cols).
template <class V> void columns(Array& a, const std::vector<V>& v, std::uint64_t col0, std::uint64_t cols) {
  const std::uint64_t n = a.dims.back(), rows = cols ? v.size() / cols : 0;
  std::vector<V>& x = numbers<V>(a);
  for (std::uint64_t r = 0; r < rows; ++r)
    std::copy_n(v.begin() + std::ptrdiff_t(r * cols), cols, x.begin() + std::ptrdiff_t(r * n + col0));
}

template <class V> void rows(Array& a, const std::vector<V>& v, std::uint64_t width) {
  std::vector<V>& x = numbers<V>(a);
  x.insert(x.end(), v.begin(), v.end());
  a.dims[0] = width ? x.size() / width : x.size();
}

}  // namespace

void MemorySink::write(const std::string& path, const std::vector<double>& v, Dims dims) { put(*store_, path, Kind::f64, v, dims); }
void MemorySink::write(const std::string& path, const std::vector<long>& v, Dims dims) { put(*store_, path, Kind::i64, v, dims); }
void MemorySink::write(const std::string& path, const std::vector<std::uint8_t>& v, Dims dims) { put(*store_, path, Kind::u8, v, dims); }
void MemorySink::write(const std::string& path, const std::vector<std::string>& v) {
  Array& a = store_->arrays[path] = Array{};
  a.is_strings = true;
  a.dims = {v.size()};
  a.strings = v;
}

void MemorySink::create(const std::string& path, Kind kind, Dims dims) {
  Array& a = store_->arrays[path] = Array{};
  a.kind = kind;
  a.dims = std::move(dims);
  const std::uint64_t n = count(a.dims);
  // Zeros until write_columns fills every column, as HDF5's default fill value.
  if (kind == Kind::f64) a.f64.assign(n, 0.0);
  if (kind == Kind::i64) a.i64.assign(n, 0);
  if (kind == Kind::u8) a.u8.assign(n, 0);
}

void MemorySink::write_columns(const std::string& path, const std::vector<double>& v, std::uint64_t col0, std::uint64_t cols) {
  columns(store_->arrays.at(path), v, col0, cols);
}
void MemorySink::write_columns(const std::string& path, const std::vector<long>& v, std::uint64_t col0, std::uint64_t cols) {
  columns(store_->arrays.at(path), v, col0, cols);
}
void MemorySink::write_columns(const std::string& path, const std::vector<std::uint8_t>& v, std::uint64_t col0, std::uint64_t cols) {
  columns(store_->arrays.at(path), v, col0, cols);
}

void MemorySink::create_rows(const std::string& path, Kind kind, std::uint64_t width) {
  Array& a = store_->arrays[path] = Array{};
  a.kind = kind;
  a.dims = width ? Dims{0, width} : Dims{0};
}
void MemorySink::append_rows(const std::string& path, const std::vector<double>& v, std::uint64_t width) {
  rows(store_->arrays.at(path), v, width);
}
void MemorySink::append_rows(const std::string& path, const std::vector<long>& v, std::uint64_t width) {
  rows(store_->arrays.at(path), v, width);
}

}  // namespace lb::cli

// An ensemble's output as bytes and back: how the ranks of a job (cli/ranks/) send their members'
// results to rank 0, which writes the output. Every field of EnsembleOutput travels, in the order
// fields() names them, so what rank 0 writes is what the rank computed, bit for bit.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <liebatch/ensemble/ensemble.hpp>

namespace lb::cli {
namespace detail {

/// Appends values to a string of bytes.
struct BytesOut {
  std::string b;
  template <class T> void operator()(const T& x) {
    static_assert(std::is_trivially_copyable_v<T>);
    b.append(reinterpret_cast<const char*>(&x), sizeof x);
  }
  template <class T> void operator()(const std::vector<T>& v) {
    (*this)(std::uint64_t(v.size()));
    b.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void operator()(const std::string& s) {
    (*this)(std::uint64_t(s.size()));
    b.append(s);
  }
};

/// Reads them back, in the same order; bytes that end early are an error, never read past.
struct BytesIn {
  const std::string& b;
  std::size_t at = 0;
  const char* take(std::size_t n) {
    if (n > b.size() - at) throw std::runtime_error("a rank's results ended early (" + std::to_string(b.size()) + " bytes)");
    at += n;
    return b.data() + at - n;
  }
  template <class T> void operator()(T& x) { std::memcpy(&x, take(sizeof x), sizeof x); }
  template <class T> void operator()(std::vector<T>& v) {
    std::uint64_t n = 0;
    (*this)(n);
    if (n > (b.size() - at) / sizeof(T)) take(b.size() - at + 1);  // (its error)
    v.resize(n);
    std::memcpy(v.data(), take(n * sizeof(T)), n * sizeof(T));
  }
  void operator()(std::string& s) {
    std::uint64_t n = 0;
    (*this)(n);
    const char* p = take(n);
    s.assign(p, n);
  }
};

/// Every field of `o`, each once, to `f` (BytesOut or BytesIn).
template <class F, class O> void fields(F& f, O& o) {
  f(o.size), f(o.dim), f(o.nobs), f(o.samples);
  f(o.y), f(o.t), f(o.steps), f(o.rejected), f(o.status), f(o.iterations), f(o.iterations_max);
  f(o.sample_t), f(o.sample_y), f(o.sample_obs);
  f(o.device), f(o.integrate_seconds), f(o.lane_occupancy);
  f(o.hit_member), f(o.hit_index), f(o.hit_t), f(o.hit_y), f(o.hit_obs), f(o.hits), f(o.lost_hits), f(o.suspects);
}

}  // namespace detail

/// `o` as bytes.
inline std::string to_bytes(const EnsembleOutput<double>& o) {
  detail::BytesOut f;
  detail::fields(f, o);
  return std::move(f.b);
}

/// The output that to_bytes gave `b`.
inline EnsembleOutput<double> output_of(const std::string& b) {
  EnsembleOutput<double> o;
  detail::BytesIn f{b};
  detail::fields(f, o);
  if (f.at != b.size()) throw std::runtime_error("a rank's results have " + std::to_string(b.size() - f.at) + " bytes too many");
  return o;
}

}  // namespace lb::cli

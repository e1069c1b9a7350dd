// A pack of W members in the lanes of one SIMD register, as a scalar type of the core: the CPU's
// counterpart of a warp. Step code written for a scalar T runs unchanged on Pack<T> wherever it
// branches through lb::select/lb::max/lb::min and the lb::any/all/none of a comparison (scalar.hpp);
// a plain `if (a < b)` on packs does not compile, so every branch that lanes may take differently
// is found by the compiler. Built on xsimd ([xsimd]); host only, never included by device code.
//
// Lane-wise results against the scalar path: + − × ÷, sqrt, abs, floor and comparisons are the
// IEEE operations themselves (bitwise); sin and cos are xsimd's vector polynomials (within 2 ulps
// of libm, tests/test_pack.cpp); pow, atan2 and tan, which the core evaluates once per step or less,
// call libm per lane, so they agree bitwise.
#pragma once
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

// GCC 12 reports the _mm512_undefined_* operands of its own AVX-512 intrinsics, which xsimd's
// kernels use, as (maybe-)uninitialised (GCC bug 105593, fixed in 13): silenced for those headers
// alone, where the report is located, so that every other line keeps the warning.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13 && defined(__x86_64__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#include <xsimd/xsimd.hpp>
#pragma GCC diagnostic pop
#else
#include <xsimd/xsimd.hpp>
#endif

#include "scalar.hpp"
#include "vec.hpp"

namespace lb {

template <class T, class Arch = xsimd::default_arch> struct Pack;

/// The lanes where a comparison of packs holds.
template <class T, class Arch> struct PackMask {
  xsimd::batch_bool<T, Arch> m;

  PackMask() = default;
  /// Every lane b, as a scalar path's `bool singular = false`.
  PackMask(bool b) : m(b) {}
  PackMask(xsimd::batch_bool<T, Arch> b) : m(b) {}
  PackMask& operator|=(PackMask b) { m = m || b.m; return *this; }

  friend PackMask operator&&(PackMask a, PackMask b) { return {a.m && b.m}; }
  friend PackMask operator||(PackMask a, PackMask b) { return {a.m || b.m}; }
  friend PackMask operator!(PackMask a) { return {!a.m}; }
  /// Lane i (host convenience for tests and the engine's bookkeeping).
  bool operator[](int i) const {
    alignas(64) bool b[Pack<T, Arch>::size];
    m.store_aligned(b);
    return b[i];
  }
  /// The mask of lanes b[0 … W−1].
  static PackMask load(const bool* b) { return {xsimd::batch_bool<T, Arch>::load_unaligned(b)}; }
};

/// W members' values of an integer or enum quantity I beside Pack<T> (counts, sample indices,
/// statuses): lanes_t<Pack<T>, I>. Held as integers of T's width in a register of the same lane
/// count (64-bit beside double, 32-bit beside float: a float pack's counts stop at 2³¹ − 1), so that
/// the stepping's bookkeeping stays in vector registers; comparisons give the pack's mask, so that
/// conditions on counts and on times combine.
template <class I, class T, class Arch> struct Lanes {
  using J = std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t>;
  using batch = xsimd::batch<J, Arch>;
  static constexpr int size = int(batch::size);
  static_assert(size == int(xsimd::batch<T, Arch>::size));
  using mask = PackMask<T, Arch>;
  batch v;

  Lanes() = default;
  /// Every lane x.
  Lanes(I x) : v(J(x)) {}
  explicit Lanes(batch b) : v(b) {}
  /// Lanes x[0 … W−1].
  static Lanes load(const I* x) {
    alignas(64) J a[size];
    for (int l = 0; l < size; ++l) a[l] = J(x[l]);
    return Lanes(batch::load_aligned(a));
  }
  /// Lane l.
  I operator[](int l) const { return array()[std::size_t(l)]; }
  /// Every lane.
  std::array<I, size> array() const {
    alignas(64) J a[size];
    v.store_aligned(a);
    std::array<I, size> r;
    for (int l = 0; l < size; ++l) r[std::size_t(l)] = I(a[l]);
    return r;
  }

  friend Lanes operator+(const Lanes& a, const Lanes& b) { return Lanes(a.v + b.v); }
  friend mask operator==(const Lanes& a, const Lanes& b) { return to_mask(a.v == b.v); }
  // Not xsimd's integer <: in xsimd 8.1 it compares AVX-512's 32/64-bit lanes as unsigned.
  friend mask operator<(const Lanes& a, const Lanes& b) { return !to_mask(a.v >= b.v); }
  friend mask operator>=(const Lanes& a, const Lanes& b) { return to_mask(a.v >= b.v); }

  /// The pack's mask of an integer comparison, and back (all bits of a lane set, or none).
  static mask to_mask(xsimd::batch_bool<J, Arch> b) {
    using F = xsimd::batch<T, Arch>;
    return !mask{xsimd::bitwise_cast<F>(xsimd::select(b, batch(J(-1)), batch(J(0)))) == F(T(0))};
  }
  static batch bits(const mask& c) {
    using F = xsimd::batch<T, Arch>;
    return xsimd::bitwise_cast<batch>(xsimd::select(c.m, xsimd::bitwise_cast<F>(batch(J(-1))), F(T(0))));
  }
};

/// W = xsimd::batch<T, Arch>::size members' values of one scalar quantity.
template <class T, class Arch> struct Pack {
  static_assert(std::is_floating_point_v<T>, "a pack holds float or double lanes");
  using batch = xsimd::batch<T, Arch>;
  using value_type = T;
  using mask = PackMask<T, Arch>;
  static constexpr int size = int(batch::size);
  batch v;

  Pack() = default;
  /// Every lane x: a literal or a shared parameter, as `T(x)` in scalar code.
  template <class U>
    requires std::is_arithmetic_v<U>
  Pack(U x) : v(T(x)) {}
  explicit Pack(batch b) : v(b) {}

  /// Lanes p[0 … W−1] (any alignment), and back.
  static Pack load(const T* p) { return Pack(batch::load_unaligned(p)); }
  void store(T* p) const { v.store_unaligned(p); }
  /// Lane i.
  T operator[](int i) const {
    alignas(64) T a[size];
    v.store_aligned(a);
    return a[i];
  }

  Pack& operator+=(const Pack& b) { v += b.v; return *this; }
  Pack& operator-=(const Pack& b) { v -= b.v; return *this; }
  Pack& operator*=(const Pack& b) { v *= b.v; return *this; }
  Pack& operator/=(const Pack& b) { v /= b.v; return *this; }
  friend Pack operator+(Pack a, const Pack& b) { return a += b; }
  friend Pack operator-(Pack a, const Pack& b) { return a -= b; }
  friend Pack operator*(Pack a, const Pack& b) { return a *= b; }
  friend Pack operator/(Pack a, const Pack& b) { return a /= b; }
  /// −a by the sign bit, as the scalar's negation (−(+0) = −0).
  friend Pack operator-(const Pack& a) { return Pack(xsimd::bitwise_xor(a.v, batch(-T(0)))); }
  friend Pack operator+(const Pack& a) { return a; }

  friend mask operator<(const Pack& a, const Pack& b) { return {a.v < b.v}; }
  friend mask operator<=(const Pack& a, const Pack& b) { return {a.v <= b.v}; }
  friend mask operator>(const Pack& a, const Pack& b) { return {a.v > b.v}; }
  friend mask operator>=(const Pack& a, const Pack& b) { return {a.v >= b.v}; }
  friend mask operator==(const Pack& a, const Pack& b) { return {a.v == b.v}; }
  /// As the scalar's != (true where a lane is NaN), not xsimd's ordered one.
  friend mask operator!=(const Pack& a, const Pack& b) { return {!(a.v == b.v)}; }

  /// f applied to every lane (libm, where the vector polynomial would differ from the scalar path).
  template <class F> static Pack lanewise(F&& f, const Pack& a, const Pack& b = Pack(T(0))) {
    alignas(64) T x[size], y[size];
    a.v.store_aligned(x);
    b.v.store_aligned(y);
    for (int i = 0; i < size; ++i) x[i] = f(x[i], y[i]);
    return Pack(batch::load_aligned(x));
  }
};

/// The vector unit this build's packs use and their widths, e.g. "avx512bw (8 doubles, 16 floats)"
/// (LIEBATCH_SIMD; reported by `liebatch --version` and in the output files).
inline std::string pack_arch() {
  return std::string(xsimd::default_arch::name()) + " (" + std::to_string(Pack<double>::size) + " doubles, " +
         std::to_string(Pack<float>::size) + " floats)";
}

template <class T, class A> inline constexpr bool is_pack_v<Pack<T, A>> = true;
template <class T, class A> struct lane_of<Pack<T, A>> {
  using type = T;
};
template <class T, class A, class I> struct lanes_of<Pack<T, A>, I> {
  using type = Lanes<I, T, A>;
};

/// Lane l of a pack, of a vector of packs, of integer lanes.
template <class T, class A> T lane(const Pack<T, A>& x, int l) { return x[l]; }
template <class T, class A, int N> Vec<T, N> lane(const Vec<Pack<T, A>, N>& x, int l) {
  alignas(64) T a[Pack<T, A>::size];
  Vec<T, N> r;
  for (int d = 0; d < N; ++d) {
    x[d].v.store_aligned(a);
    r[d] = a[l];
  }
  return r;
}
template <class I, class T, class A> I lane(const Lanes<I, T, A>& x, int l) { return x[l]; }

// Math of the core: scalar.hpp's lb::sqrt etc. find these by argument-dependent lookup.
template <class T, class A> Pack<T, A> sqrt(const Pack<T, A>& x) { return Pack<T, A>(xsimd::sqrt(x.v)); }
template <class T, class A> Pack<T, A> abs(const Pack<T, A>& x) { return Pack<T, A>(xsimd::abs(x.v)); }
/// ⌊x⌋, ±0 kept (xsimd's SSE2 floor turns −0 into +0).
template <class T, class A> Pack<T, A> floor(const Pack<T, A>& x) {
  return Pack<T, A>(xsimd::select(x.v == T(0), x.v, xsimd::floor(x.v)));
}
template <class T, class A> Pack<T, A> sin(const Pack<T, A>& x) { return Pack<T, A>(xsimd::sin(x.v)); }
template <class T, class A> Pack<T, A> cos(const Pack<T, A>& x) { return Pack<T, A>(xsimd::cos(x.v)); }
template <class T, class A> Pack<T, A> tan(const Pack<T, A>& x) {
  return Pack<T, A>::lanewise([](T a, T) { return std::tan(a); }, x);
}
template <class T, class A> Pack<T, A> atan2(const Pack<T, A>& y, const Pack<T, A>& x) {
  return Pack<T, A>::lanewise([](T a, T b) { return std::atan2(a, b); }, y, x);
}
template <class T, class A> Pack<T, A> pow(const Pack<T, A>& x, const Pack<T, A>& y) {
  return Pack<T, A>::lanewise([](T a, T b) { return std::pow(a, b); }, x, y);
}
template <class T, class A> PackMask<T, A> isfinite(const Pack<T, A>& x) { return {xsimd::isfinite(x.v)}; }

// Masks, for scalar.hpp's any, all, none and select.
template <class T, class A> bool lanes_any(const PackMask<T, A>& c) { return xsimd::any(c.m); }
template <class T, class A> bool lanes_all(const PackMask<T, A>& c) { return xsimd::all(c.m); }
template <class I, class T, class A, class V>
void lanes_add_where(const PackMask<T, A>& c, Lanes<I, T, A>& x, const V& v) {
  using L = Lanes<I, T, A>;
  x.v = x.v + (L::bits(c) & typename L::batch(typename L::J(v)));
}
template <class I, class T, class A, class V>
void lanes_set_where(const PackMask<T, A>& c, Lanes<I, T, A>& x, const V& v) {
  using L = Lanes<I, T, A>;
  x.v = xsimd::select(L::bits(c) != typename L::batch(0), typename L::batch(typename L::J(v)), x.v);
}
template <class T, class A, class F> void lanes_for(const PackMask<T, A>& c, F&& f) {
  alignas(64) bool b[Pack<T, A>::size];
  c.m.store_aligned(b);
  for (int l = 0; l < Pack<T, A>::size; ++l)
    if (b[l]) f(l);
}
/// Integer lanes converted to the pack's type, each as the scalar conversion T(k).
template <class P, class I, class T, class A> P lanes_as(const Lanes<I, T, A>& k) {
  return P(xsimd::batch_cast<T>(k.v));
}
template <class T, class A> Pack<T, A> lanes_select(const PackMask<T, A>& c, const Pack<T, A>& a, const Pack<T, A>& b) {
  return Pack<T, A>(xsimd::select(c.m, a.v, b.v));
}

}  // namespace lb

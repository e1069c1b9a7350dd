// A pack of W members in the lanes of R SIMD registers, as a scalar type of the core: the CPU's
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

/// R registers of lanes: R independent dependency chains through each step, which hide the
/// latency of a step whose work is short (members_packed.hpp's pack_registers_of).
template <class T, class Arch = xsimd::default_arch, int R = 1> struct Pack;

/// The lanes where a comparison of packs holds.
template <class T, class Arch, int R> struct PackMask {
  using bits_t = xsimd::batch_bool<T, Arch>;
  static constexpr int width = int(bits_t::size);  ///< lanes per register
  std::array<bits_t, R> m;

  PackMask() = default;
  /// Every lane b, as a scalar path's `bool singular = false`.
  PackMask(bool b) { m.fill(bits_t(b)); }
  explicit PackMask(const std::array<bits_t, R>& b) : m(b) {}
  PackMask& operator|=(PackMask b) { return *this = *this || b; }

  /// f(register r's …) for every register r, as a mask.
  template <class F> static PackMask each(F&& f) {
    PackMask c;
    for (int r = 0; r < R; ++r) c.m[std::size_t(r)] = f(r);
    return c;
  }
  friend PackMask operator&&(PackMask a, PackMask b) {
    return each([&](int r) { return a.m[std::size_t(r)] && b.m[std::size_t(r)]; });
  }
  friend PackMask operator||(PackMask a, PackMask b) {
    return each([&](int r) { return a.m[std::size_t(r)] || b.m[std::size_t(r)]; });
  }
  friend PackMask operator!(PackMask a) {
    return each([&](int r) { return !a.m[std::size_t(r)]; });
  }
  /// Every lane, in order.
  void store(bool* b) const {
    for (int r = 0; r < R; ++r) m[std::size_t(r)].store_unaligned(b + r * width);
  }
  /// Lane i (host convenience for tests and the engine's bookkeeping).
  bool operator[](int i) const {
    bool b[R * width];
    store(b);
    return b[i];
  }
  /// The mask of lanes b[0 … W−1].
  static PackMask load(const bool* b) {
    return each([&](int r) { return bits_t::load_unaligned(b + r * width); });
  }
};

/// W members' values of an integer or enum quantity I beside Pack<T> (counts, sample indices,
/// statuses): lanes_t<Pack<T>, I>. Held as integers of T's width in registers of the same lane
/// count (64-bit beside double, 32-bit beside float: a float pack's counts stop at 2³¹ − 1), so that
/// the stepping's bookkeeping stays in vector registers; comparisons give the pack's mask, so that
/// conditions on counts and on times combine.
template <class I, class T, class Arch, int R> struct Lanes {
  using J = std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t>;
  using batch = xsimd::batch<J, Arch>;
  static constexpr int width = int(batch::size), size = R * width;
  static_assert(width == int(xsimd::batch<T, Arch>::size));
  using mask = PackMask<T, Arch, R>;
  std::array<batch, R> v;

  Lanes() = default;
  /// Every lane x.
  Lanes(I x) { v.fill(batch(J(x))); }
  /// f(r) for every register r.
  template <class F> static Lanes each(F&& f) {
    Lanes a;
    for (int r = 0; r < R; ++r) a.v[std::size_t(r)] = f(r);
    return a;
  }
  /// Lanes x[0 … W−1].
  static Lanes load(const I* x) {
    alignas(64) J a[size];
    for (int l = 0; l < size; ++l) a[l] = J(x[l]);
    return each([&](int r) { return batch::load_aligned(a + r * width); });
  }
  /// Lane l.
  I operator[](int l) const { return array()[std::size_t(l)]; }
  /// Every lane.
  std::array<I, size> array() const {
    alignas(64) J a[size];
    for (int r = 0; r < R; ++r) v[std::size_t(r)].store_aligned(a + r * width);
    std::array<I, size> b;
    for (int l = 0; l < size; ++l) b[std::size_t(l)] = I(a[l]);
    return b;
  }

  friend Lanes operator+(const Lanes& a, const Lanes& b) {
    return each([&](int r) { return a.v[std::size_t(r)] + b.v[std::size_t(r)]; });
  }
  friend mask operator==(const Lanes& a, const Lanes& b) {
    return to_mask(a, b, [](batch x, batch y) { return x == y; });
  }
  // Not xsimd's integer <: in xsimd 8.1 it compares AVX-512's 32/64-bit lanes as unsigned.
  friend mask operator<(const Lanes& a, const Lanes& b) { return !(a >= b); }
  friend mask operator>=(const Lanes& a, const Lanes& b) {
    return to_mask(a, b, [](batch x, batch y) { return x >= y; });
  }

  /// The pack's mask of an integer comparison, register by register, and back (all bits of a lane
  /// set, or none).
  template <class C> static mask to_mask(const Lanes& a, const Lanes& b, C&& compare) {
    using F = xsimd::batch<T, Arch>;
    return mask::each([&](int r) {
      const auto k = compare(a.v[std::size_t(r)], b.v[std::size_t(r)]);
      return !(xsimd::bitwise_cast<F>(xsimd::select(k, batch(J(-1)), batch(J(0)))) == F(T(0)));
    });
  }
  static batch bits(const mask& c, int r) {
    using F = xsimd::batch<T, Arch>;
    return xsimd::bitwise_cast<batch>(xsimd::select(c.m[std::size_t(r)], xsimd::bitwise_cast<F>(batch(J(-1))), F(T(0))));
  }
};

/// W = R · xsimd::batch<T, Arch>::size members' values of one scalar quantity.
template <class T, class Arch, int R> struct Pack {
  static_assert(std::is_floating_point_v<T>, "a pack holds float or double lanes");
  using batch = xsimd::batch<T, Arch>;
  using value_type = T;
  using mask = PackMask<T, Arch, R>;
  static constexpr int width = int(batch::size), size = R * width;
  std::array<batch, R> v;

  Pack() = default;
  /// Every lane x: a literal or a shared parameter, as `T(x)` in scalar code.
  template <class U>
  requires std::is_arithmetic_v<U> Pack(U x) { v.fill(batch(T(x))); }
  /// f(r) for every register r.
  template <class F> static Pack each(F&& f) {
    Pack a;
    for (int r = 0; r < R; ++r) a.v[std::size_t(r)] = f(r);
    return a;
  }

  /// Lanes p[0 … W−1] (any alignment), and back.
  static Pack load(const T* p) {
    return each([&](int r) { return batch::load_unaligned(p + r * width); });
  }
  void store(T* p) const {
    for (int r = 0; r < R; ++r) v[std::size_t(r)].store_unaligned(p + r * width);
  }
  /// Lane i.
  T operator[](int i) const {
    alignas(64) T a[size];
    store(a);
    return a[i];
  }

  Pack& operator+=(const Pack& b) { return *this = *this + b; }
  Pack& operator-=(const Pack& b) { return *this = *this - b; }
  Pack& operator*=(const Pack& b) { return *this = *this * b; }
  Pack& operator/=(const Pack& b) { return *this = *this / b; }
  friend Pack operator+(const Pack& a, const Pack& b) {
    return each([&](int r) { return a.v[std::size_t(r)] + b.v[std::size_t(r)]; });
  }
  friend Pack operator-(const Pack& a, const Pack& b) {
    return each([&](int r) { return a.v[std::size_t(r)] - b.v[std::size_t(r)]; });
  }
  friend Pack operator*(const Pack& a, const Pack& b) {
    return each([&](int r) { return a.v[std::size_t(r)] * b.v[std::size_t(r)]; });
  }
  friend Pack operator/(const Pack& a, const Pack& b) {
    return each([&](int r) { return a.v[std::size_t(r)] / b.v[std::size_t(r)]; });
  }
  /// −a by the sign bit, as the scalar's negation (−(+0) = −0).
  friend Pack operator-(const Pack& a) {
    return each([&](int r) { return xsimd::bitwise_xor(a.v[std::size_t(r)], batch(-T(0))); });
  }
  friend Pack operator+(const Pack& a) { return a; }

  /// The lanes where compare(a's, b's) holds, register by register.
  template <class C> static mask compare(const Pack& a, const Pack& b, C&& c) {
    return mask::each([&](int r) { return c(a.v[std::size_t(r)], b.v[std::size_t(r)]); });
  }
  friend mask operator<(const Pack& a, const Pack& b) {
    return compare(a, b, [](batch x, batch y) { return x < y; });
  }
  friend mask operator<=(const Pack& a, const Pack& b) {
    return compare(a, b, [](batch x, batch y) { return x <= y; });
  }
  friend mask operator>(const Pack& a, const Pack& b) {
    return compare(a, b, [](batch x, batch y) { return x > y; });
  }
  friend mask operator>=(const Pack& a, const Pack& b) {
    return compare(a, b, [](batch x, batch y) { return x >= y; });
  }
  friend mask operator==(const Pack& a, const Pack& b) {
    return compare(a, b, [](batch x, batch y) { return x == y; });
  }
  /// As the scalar's != (true where a lane is NaN), not xsimd's ordered one.
  friend mask operator!=(const Pack& a, const Pack& b) { return !(a == b); }

  /// f applied to every lane (libm, where the vector polynomial would differ from the scalar path).
  template <class F> static Pack lanewise(F&& f, const Pack& a, const Pack& b = Pack(T(0))) {
    alignas(64) T x[size], y[size];
    a.store(x);
    b.store(y);
    for (int i = 0; i < size; ++i) x[i] = f(x[i], y[i]);
    return load(x);
  }
};

/// The vector unit this build's packs use and a register's widths, e.g. "avx512bw (8 doubles, 16
/// floats)" (LIEBATCH_SIMD; reported by `liebatch --version` and in the output files).
inline std::string pack_arch() {
  return std::string(xsimd::default_arch::name()) + " (" + std::to_string(Pack<double>::size) + " doubles, " +
         std::to_string(Pack<float>::size) + " floats)";
}

template <class T, class A, int R> inline constexpr bool is_pack_v<Pack<T, A, R>> = true;
template <class T, class A, int R> struct lane_of<Pack<T, A, R>> { using type = T; };
template <class T, class A, int R, class I> struct lanes_of<Pack<T, A, R>, I> { using type = Lanes<I, T, A, R>; };

/// Lane l of a pack, of a vector of packs, of integer lanes.
template <class T, class A, int R> T lane(const Pack<T, A, R>& x, int l) { return x[l]; }
template <class T, class A, int R, int N> Vec<T, N> lane(const Vec<Pack<T, A, R>, N>& x, int l) {
  Vec<T, N> r;
  for (int d = 0; d < N; ++d) r[d] = x[d][l];
  return r;
}
template <class I, class T, class A, int R> I lane(const Lanes<I, T, A, R>& x, int l) { return x[l]; }

// Math of the core: scalar.hpp's lb::sqrt etc. find these by argument-dependent lookup.
template <class T, class A, int R> Pack<T, A, R> sqrt(const Pack<T, A, R>& x) {
  return Pack<T, A, R>::each([&](int r) { return xsimd::sqrt(x.v[std::size_t(r)]); });
}
template <class T, class A, int R> Pack<T, A, R> abs(const Pack<T, A, R>& x) {
  return Pack<T, A, R>::each([&](int r) { return xsimd::abs(x.v[std::size_t(r)]); });
}
/// ⌊x⌋, ±0 kept (xsimd's SSE2 floor turns −0 into +0).
template <class T, class A, int R> Pack<T, A, R> floor(const Pack<T, A, R>& x) {
  return Pack<T, A, R>::each([&](int r) {
    const auto& u = x.v[std::size_t(r)];
    return xsimd::select(u == T(0), u, xsimd::floor(u));
  });
}
template <class T, class A, int R> Pack<T, A, R> sin(const Pack<T, A, R>& x) {
  return Pack<T, A, R>::each([&](int r) { return xsimd::sin(x.v[std::size_t(r)]); });
}
template <class T, class A, int R> Pack<T, A, R> cos(const Pack<T, A, R>& x) {
  return Pack<T, A, R>::each([&](int r) { return xsimd::cos(x.v[std::size_t(r)]); });
}
template <class T, class A, int R> Pack<T, A, R> tan(const Pack<T, A, R>& x) {
  return Pack<T, A, R>::lanewise([](T a, T) { return std::tan(a); }, x);
}
template <class T, class A, int R> Pack<T, A, R> atan2(const Pack<T, A, R>& y, const Pack<T, A, R>& x) {
  return Pack<T, A, R>::lanewise([](T a, T b) { return std::atan2(a, b); }, y, x);
}
template <class T, class A, int R> Pack<T, A, R> pow(const Pack<T, A, R>& x, const Pack<T, A, R>& y) {
  return Pack<T, A, R>::lanewise([](T a, T b) { return std::pow(a, b); }, x, y);
}
template <class T, class A, int R> PackMask<T, A, R> isfinite(const Pack<T, A, R>& x) {
  return PackMask<T, A, R>::each([&](int r) { return xsimd::isfinite(x.v[std::size_t(r)]); });
}

// Masks, for scalar.hpp's any, all, none and select.
template <class T, class A, int R> bool lanes_any(const PackMask<T, A, R>& c) {
  bool a = false;
  for (const auto& m : c.m) a = a || xsimd::any(m);
  return a;
}
template <class T, class A, int R> bool lanes_all(const PackMask<T, A, R>& c) {
  bool a = true;
  for (const auto& m : c.m) a = a && xsimd::all(m);
  return a;
}
template <class I, class T, class A, int R, class V> void lanes_add_where(const PackMask<T, A, R>& c, Lanes<I, T, A, R>& x, const V& v) {
  using L = Lanes<I, T, A, R>;
  for (int r = 0; r < R; ++r) x.v[std::size_t(r)] = x.v[std::size_t(r)] + (L::bits(c, r) & typename L::batch(typename L::J(v)));
}
template <class I, class T, class A, int R, class V> void lanes_set_where(const PackMask<T, A, R>& c, Lanes<I, T, A, R>& x, const V& v) {
  using L = Lanes<I, T, A, R>;
  for (int r = 0; r < R; ++r)
    x.v[std::size_t(r)] = xsimd::select(L::bits(c, r) != typename L::batch(0), typename L::batch(typename L::J(v)), x.v[std::size_t(r)]);
}
template <class T, class A, int R, class F> void lanes_for(const PackMask<T, A, R>& c, F&& f) {
  bool b[Pack<T, A, R>::size];
  c.store(b);
  for (int l = 0; l < Pack<T, A, R>::size; ++l)
    if (b[l]) f(l);
}
/// Integer lanes converted to the pack's type, each as the scalar conversion T(k).
template <class P, class I, class T, class A, int R> P lanes_as(const Lanes<I, T, A, R>& k) {
  return P::each([&](int r) { return xsimd::batch_cast<T>(k.v[std::size_t(r)]); });
}
template <class T, class A, int R> Pack<T, A, R> lanes_select(const PackMask<T, A, R>& c, const Pack<T, A, R>& a, const Pack<T, A, R>& b) {
  return Pack<T, A, R>::each([&](int r) { return xsimd::select(c.m[std::size_t(r)], a.v[std::size_t(r)], b.v[std::size_t(r)]); });
}

}  // namespace lb

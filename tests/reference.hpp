// Independent reference computations in quad precision (boost float128): dense matrices, the
// matrix exponential by Taylor series with scaling and squaring, and dexp / dexp⁻¹ from the
// ad-series Σ ad^k/(k+1)! of the matrix commutator. Nothing here uses liebatch's formulas.
#pragma once
#include <boost/multiprecision/float128.hpp>

#include <array>
#include <cmath>
#include <random>

namespace ref {

using Q = boost::multiprecision::float128;

/// Dense N×N matrix in quad precision.
template <int N> struct Mat {
  std::array<Q, N * N> a{};
  Q& operator()(int i, int j) { return a[N * i + j]; }
  const Q& operator()(int i, int j) const { return a[N * i + j]; }
  static Mat identity() {
    Mat m;
    for (int i = 0; i < N; ++i) m(i, i) = 1;
    return m;
  }
  friend Mat operator*(const Mat& x, const Mat& y) {
    Mat r;
    for (int i = 0; i < N; ++i)
      for (int k = 0; k < N; ++k)
        for (int j = 0; j < N; ++j) r(i, j) += x(i, k) * y(k, j);
    return r;
  }
  friend Mat operator+(Mat x, const Mat& y) {
    for (int i = 0; i < N * N; ++i) x.a[i] += y.a[i];
    return x;
  }
  friend Mat operator-(Mat x, const Mat& y) {
    for (int i = 0; i < N * N; ++i) x.a[i] -= y.a[i];
    return x;
  }
  friend Mat operator*(Q s, Mat x) {
    for (auto& e : x.a) e *= s;
    return x;
  }
  std::array<Q, N> operator*(const std::array<Q, N>& v) const {
    std::array<Q, N> r{};
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) r[i] += (*this)(i, j) * v[j];
    return r;
  }
  Q norm1() const {
    Q m = 0;
    for (int j = 0; j < N; ++j) {
      Q s = 0;
      for (int i = 0; i < N; ++i) s += abs((*this)(i, j));
      m = s > m ? s : m;
    }
    return m;
  }
};

/// Matrix exponential: Taylor series to quad round-off after scaling by 2^-s, then squaring.
template <int N> Mat<N> expm(const Mat<N>& A) {
  int s = 0;
  Q n = A.norm1();
  while (n > Q(0.25)) { n /= 2; ++s; }
  const Mat<N> B = ldexp(Q(1), -s) * A;
  Mat<N> term = Mat<N>::identity(), sum = term;
  for (int k = 1; k < 40; ++k) {
    term = (Q(1) / k) * (term * B);
    sum = sum + term;
  }
  for (int i = 0; i < s; ++i) sum = sum * sum;
  return sum;
}

/// Solves A x = b by Gaussian elimination with partial pivoting.
template <int N> std::array<Q, N> solve(Mat<N> A, std::array<Q, N> b) {
  for (int c = 0; c < N; ++c) {
    int p = c;
    for (int r = c + 1; r < N; ++r) if (abs(A(r, c)) > abs(A(p, c))) p = r;
    for (int j = 0; j < N; ++j) std::swap(A(c, j), A(p, j));
    std::swap(b[c], b[p]);
    for (int r = c + 1; r < N; ++r) {
      const Q f = A(r, c) / A(c, c);
      for (int j = c; j < N; ++j) A(r, j) -= f * A(c, j);
      b[r] -= f * b[c];
    }
  }
  std::array<Q, N> x{};
  for (int r = N - 1; r >= 0; --r) {
    Q s = b[r];
    for (int j = r + 1; j < N; ++j) s -= A(r, j) * x[j];
    x[r] = s / A(r, r);
  }
  return x;
}

/// hat(w) as a 3×3 matrix.
inline Mat<3> hat(const std::array<Q, 3>& w) {
  Mat<3> m;
  m(0, 1) = -w[2]; m(0, 2) = w[1];
  m(1, 0) = w[2];  m(1, 2) = -w[0];
  m(2, 0) = -w[1]; m(2, 1) = w[0];
  return m;
}

/// The 4×4 matrix [[Â, a], [0, 0]] of (A, a) ∈ se(3).
inline Mat<4> se3_matrix(const std::array<Q, 6>& u) {
  Mat<4> m;
  const Mat<3> A = hat({u[0], u[1], u[2]});
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) m(i, j) = A(i, j);
    m(i, 3) = u[3 + i];
  }
  return m;
}

/// Inverse of se3_matrix: reads (A, a) back from a 4×4 matrix (skew part of the block).
inline std::array<Q, 6> se3_vector(const Mat<4>& m) {
  return {(m(2, 1) - m(1, 2)) / 2, (m(0, 2) - m(2, 0)) / 2, (m(1, 0) - m(0, 1)) / 2, m(0, 3), m(1, 3), m(2, 3)};
}

/// The matrix of ad_u on ℝᴺ for an algebra given by its matrix representation: column j is
/// vec([U, E_j]) with the commutator of matrices, so the bracket is never taken from liebatch.
template <int N> Mat<N> ad_matrix(const std::array<Q, N>& u);

template <> inline Mat<3> ad_matrix<3>(const std::array<Q, 3>& u) {
  Mat<3> ad;
  const Mat<3> U = hat(u);
  for (int j = 0; j < 3; ++j) {
    std::array<Q, 3> e{};
    e[j] = 1;
    const Mat<3> E = hat(e), C = U * E - E * U;
    ad(0, j) = C(2, 1); ad(1, j) = C(0, 2); ad(2, j) = C(1, 0);
  }
  return ad;
}

template <> inline Mat<6> ad_matrix<6>(const std::array<Q, 6>& u) {
  Mat<6> ad;
  const Mat<4> U = se3_matrix(u);
  for (int j = 0; j < 6; ++j) {
    std::array<Q, 6> e{};
    e[j] = 1;
    const Mat<4> E = se3_matrix(e);
    const std::array<Q, 6> c = se3_vector(U * E - E * U);
    for (int i = 0; i < 6; ++i) ad(i, j) = c[i];
  }
  return ad;
}

/// dexp_u as a matrix: Σ_{k≥0} ad_u^k/(k+1)!, summed until the terms vanish in quad.
template <int N> Mat<N> dexp_matrix(const std::array<Q, N>& u) {
  const Mat<N> ad = ad_matrix<N>(u);
  Mat<N> term = Mat<N>::identity(), sum = term;
  for (int k = 1; k < 400; ++k) {
    term = (Q(1) / (k + 1)) * (term * ad);
    sum = sum + term;
    if (term.norm1() < Q(1e-40) * sum.norm1()) break;
  }
  return sum;
}

/// dexp_u(v) and dexp⁻¹_u(v) from the ad-series (the latter by solving dexp_u x = v).
template <int N> std::array<Q, N> dexp(const std::array<Q, N>& u, const std::array<Q, N>& v) {
  return dexp_matrix<N>(u) * v;
}
template <int N> std::array<Q, N> dexpinv(const std::array<Q, N>& u, const std::array<Q, N>& v) {
  return solve<N>(dexp_matrix<N>(u), v);
}

template <std::size_t N> Q norm(const std::array<Q, N>& r) {
  Q n = 0;
  for (const Q& x : r) n += x * x;
  return sqrt(n);
}

/// Relative error ‖x − r‖/scale of a computed vector x against a reference r; scale = ‖r‖ unless given.
template <class V, std::size_t N> double rel_err(const V& x, const std::array<Q, N>& r, Q scale = Q(-1)) {
  Q e = 0;
  for (std::size_t i = 0; i < N; ++i) {
    const Q d = Q(x[int(i)]) - r[i];
    e += d * d;
  }
  return static_cast<double>(sqrt(e) / (scale < 0 ? norm(r) : scale));
}

}  // namespace ref

// Newton's method for a fixed-size system r(z) = 0 of one trajectory, on the host and the device:
// the exact Jacobian by forward-mode dual numbers (dual.hpp) through the residual's own code, an
// unrolled LU with partial pivoting, a bounded number of iterations and an honest outcome. No
// allocation, no exceptions, no virtual calls; float and double (and long double on the host).
#pragma once
#include "../dual.hpp"
#include "../vec.hpp"

namespace lb {

/// An N×N matrix for the solver, row-major.
template <class T, int N> struct SquareMat {
  T a[N][N];
};

/// Solves A x = b by Gaussian elimination with partial pivoting (A and b are copies). Returns false
/// (x then unspecified) when a pivot is zero or not finite: a singular or non-finite system.
template <int N, class T> LB_HD bool lu_solve(SquareMat<T, N> A, Vec<T, N> b, Vec<T, N>& x) {
  LB_UNROLL for (int k = 0; k < N; ++k) {
    int p = k;
    LB_UNROLL for (int i = k + 1; i < N; ++i) if (lb::abs(A.a[i][k]) > lb::abs(A.a[p][k])) p = i;
    if (p != k) {
      LB_UNROLL for (int j = 0; j < N; ++j) {
        const T t = A.a[k][j];
        A.a[k][j] = A.a[p][j];
        A.a[p][j] = t;
      }
      const T t = b[k];
      b[k] = b[p];
      b[p] = t;
    }
    const T piv = A.a[k][k];
    if (!(piv != T(0) && lb::isfinite(piv))) return false;
    LB_UNROLL for (int i = k + 1; i < N; ++i) {
      const T l = A.a[i][k] / piv;
      LB_UNROLL for (int j = k + 1; j < N; ++j) A.a[i][j] -= l * A.a[k][j];
      b[i] -= l * b[k];
    }
  }
  LB_UNROLL for (int i = N - 1; i >= 0; --i) {
    T s = b[i];
    LB_UNROLL for (int j = i + 1; j < N; ++j) s -= A.a[i][j] * x[j];
    x[i] = s / A.a[i][i];
  }
  return true;
}

/// r(z) and its Jacobian J = ∂r/∂z, exact: r evaluated once on Dual<T, N> with zᵢ seeded as the
/// i-th variable. `residual` is a generic callable taking Vec<S, N> to Vec<S, N> for S = T and
/// S = Dual<T, N>.
template <int N, class T, class F> LB_HD void residual_and_jacobian(F&& residual, const Vec<T, N>& z, Vec<T, N>& r,
                                                                    SquareMat<T, N>& J) {
  using D = Dual<T, N>;
  Vec<D, N> zd;
  LB_UNROLL for (int i = 0; i < N; ++i) zd[i] = D::variable(z[i], i);
  const Vec<D, N> rd = residual(zd);
  LB_UNROLL for (int i = 0; i < N; ++i) {
    r[i] = rd[i].v;
    LB_UNROLL for (int j = 0; j < N; ++j) J.a[i][j] = rd[i].d[j];
  }
}

/// Defaults of the solve for T ([the notes' §2.4]): at most 10 iterations in double (12 in float,
/// whose Newton steps stall earlier relative to the tolerance), tolerance 1e-13 (1e-5 in float).
template <class T> struct NewtonDefaults {
  static constexpr int max_iterations = sizeof(T) <= 4 ? 12 : 10;
  LB_HD static constexpr T tol() { return sizeof(T) <= 4 ? T(1e-5) : T(1e-13); }
};

/// What a solve gives: the last iterate, the number of Newton updates made and whether it converged.
/// A non-finite value or a singular Jacobian anywhere is not converged.
template <class T, int N> struct NewtonOutcome {
  Vec<T, N> z;
  int iterations;
  bool converged;
};

/// Newton from the caller's guess z (warm start). Each iteration solves J Δ = −r(z), z ← z + Δ.
/// Stopping rule: once ‖Δ‖∞ ≤ tol·max(1, ‖z‖∞) one more update is made, which brings z to the root
/// to round-off whatever the size of the last Δ (quadratic convergence), and the solve has converged.
/// The updates, that last one included, are at most max_iterations.
template <int N, class T, class F>
LB_HD NewtonOutcome<T, N> newton(F&& residual, Vec<T, N> z, T tol = NewtonDefaults<T>::tol(),
                                 int max_iterations = NewtonDefaults<T>::max_iterations) {
  bool last = false;  // the next update is the one after the stopping rule held
  for (int k = 0; k < max_iterations; ++k) {
    Vec<T, N> r, dz;
    SquareMat<T, N> J;
    residual_and_jacobian<N>(residual, z, r, J);
    if (!lu_solve<N>(J, -r, dz)) return {z, k, false};
    z += dz;
    bool finite = true;
    LB_UNROLL for (int i = 0; i < N; ++i) finite = finite && lb::isfinite(z[i]);
    if (!finite) return {z, k + 1, false};
    if (last) return {z, k + 1, true};
    last = norm_inf(dz) <= tol * lb::max(T(1), norm_inf(z));
  }
  return {z, max_iterations, false};
}

}  // namespace lb

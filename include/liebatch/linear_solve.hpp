// Small dense linear systems of one trajectory, on the host and the device: an N×N matrix and an
// unrolled LU with partial pivoting that reports a singular or non-finite system instead of
// returning garbage. No allocation, no exceptions; float and double (and long double on the host).
// Used by Newton's update (methods/newton.hpp) and by the multiplier solves of constrained systems
// (constrained_model.hpp, constrained_system.hpp, methods/half_explicit.hpp).
#pragma once

#include "vec.hpp"

namespace lb {

/// An N×N matrix for the solver, row-major.
template <class T, int N> struct SquareMat { T a[N][N]; };

/// Solves A x = b by Gaussian elimination with partial pivoting (A and b are copies). Returns false
/// (x then NaN) when a pivot is zero or not finite: a singular or non-finite system.
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
    if (!(piv != T(0) && lb::isfinite(piv))) {
      LB_UNROLL for (int i = 0; i < N; ++i) x[i] = T(0) / T(0);  // never read as a solution: NaN, not stale memory
      return false;
    }
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

}  // namespace lb

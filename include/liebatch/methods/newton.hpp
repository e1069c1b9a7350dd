// Newton's method for a fixed-size system r(z) = 0 of one trajectory, on the host and the device:
// the exact Jacobian by forward-mode dual numbers (dual.hpp) through the residual's own code, an
// unrolled LU with partial pivoting (linear_solve.hpp), a bounded number of iterations and an
// honest outcome. No allocation, no exceptions, no virtual calls; float and double (and long
// double on the host).
#pragma once
#include <type_traits>

#include "../double_word.hpp"
#include "../dual.hpp"
#include "../linear_solve.hpp"
#include "../vec.hpp"

namespace lb {

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

/// Defaults of the solve for T ([Notes §2.4]): at most 10 iterations in double (12 in float,
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

namespace newton_detail {
/// newton's loop; with `refined`, the update after the stopping rule held takes the residual in
/// DoubleWord<T> and is added to z in double words, and the outcome holds z as double words.
template <bool refined, int N, class T, class F>
LB_HD auto solve(F&& residual, Vec<T, N> z, T tol, int max_iterations) {
  using Z = std::conditional_t<refined, DoubleWord<T>, T>;
  using Out = NewtonOutcome<Z, N>;
  bool last = false;  // the next update is the one after the stopping rule held
  for (int k = 0; k < max_iterations; ++k) {
    Vec<T, N> r, dz;
    SquareMat<T, N> J;
    residual_and_jacobian<N>(residual, z, r, J);
    if constexpr (refined) {
      if (last) r = lb::cast<T>(residual(lb::cast<Z>(z)));
    }
    if (!lu_solve<N>(J, -r, dz)) return Out{lb::cast<Z>(z), k, false};
    if constexpr (refined) {
      if (last) {
        Vec<Z, N> w;
        bool finite = true;
        LB_UNROLL for (int i = 0; i < N; ++i) {
          w[i] = Z::two_sum(z[i], dz[i]);
          finite = finite && lb::isfinite(w[i].hi);
        }
        return Out{w, k + 1, finite};
      }
    }
    z += dz;
    bool finite = true;
    LB_UNROLL for (int i = 0; i < N; ++i) finite = finite && lb::isfinite(z[i]);
    if (!finite) return Out{lb::cast<Z>(z), k + 1, false};
    if (last) return Out{lb::cast<Z>(z), k + 1, true};
    last = norm_inf(dz) <= tol * lb::max(T(1), norm_inf(z));
  }
  return Out{lb::cast<Z>(z), max_iterations, false};
}
}  // namespace newton_detail

/// Newton from the caller's guess z (warm start). Each iteration solves J Δ = −r(z), z ← z + Δ.
/// Stopping rule: once ‖Δ‖∞ ≤ tol·max(1, ‖z‖∞) one more update is made, which brings z to the root
/// to round-off whatever the size of the last Δ (quadratic convergence), and the solve has converged.
/// The updates, that last one included, are at most max_iterations.
template <int N, class T, class F>
LB_HD NewtonOutcome<T, N> newton(F&& residual, Vec<T, N> z, T tol = NewtonDefaults<T>::tol(),
                                 int max_iterations = NewtonDefaults<T>::max_iterations) {
  return newton_detail::solve<false, N>(residual, z, tol, max_iterations);
}

/// What newton_refined holds its root in: DoubleWord<T> for the device scalars (float, double); a
/// host reference scalar (long double, float128) already has the digits the double run lacks and
/// stays itself (newton_refined is then newton).
template <class T> using refined_t = std::conditional_t<is_device_scalar_v<T>, DoubleWord<T>, T>;

/// newton with its last update refined: the residual of that update is evaluated in
/// DoubleWord<T> (one evaluation more; the iterations are newton's), and the update is added to z
/// in double words. The root then keeps the digits that T's rounding of the residual loses (to
/// the accuracy of T's sin and cos, which double words do not improve): that rounding is the same
/// step after step on a nearly steady trajectory and biases what the exact map conserves
/// (docs/symplectic.md §4). `residual` must take Vec<refined_t<T>, N> too.
template <int N, class T, class F>
LB_HD NewtonOutcome<refined_t<T>, N> newton_refined(F&& residual, Vec<T, N> z, T tol = NewtonDefaults<T>::tol(),
                                                    int max_iterations = NewtonDefaults<T>::max_iterations) {
  return newton_detail::solve<is_device_scalar_v<T>, N>(residual, z, tol, max_iterations);
}

}  // namespace lb

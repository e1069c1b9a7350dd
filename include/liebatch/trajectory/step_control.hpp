// Step-size settings, and the controller that turns an embedded pair's error estimate into an
// accept-or-reject verdict and the next step: a policy of advance() (trajectory.hpp), as odeint
// separates its error checker and step adjuster from the stepper.
#pragma once
#include <concepts>
#include <limits>

#include "../scalar.hpp"

namespace lb {

/// Step-size settings of one trajectory (of W members, for a pack T). Defaults are written as
/// ratios so that extended types get the nearest value of their own precision (the same value as
/// the literal in double).
template <class T> struct StepControl {
  T h = T(1) / T(100);                                 ///< fixed step, or the first attempt of an adaptive run
  T atol = T(1) / T(100000000);                        ///< adaptive: absolute tolerance (1e-8)
  T rtol = T(1) / T(100000000);                        ///< adaptive: relative tolerance (1e-8)
  T h_min = T(1) / T(1000000000000LL);                 ///< adaptive: below this, Status::step_underflow (1e-12)
  T h_max = T(std::numeric_limits<lane_t<T>>::max());  ///< adaptive: largest step
  lanes_t<T, long> max_attempts = 1000000;             ///< accepted + rejected attempts before Status::step_cap
  T safety = T(9) / T(10);                             ///< θ in h ← θ (1/e)^{1/(p̂+1)} h
  T grow = T(5);                                       ///< largest growth factor
  T shrink = T(1) / T(5);                              ///< smallest shrink factor
};

/// Weighted RMS norm of an error vector: eᵢ/(atol + rtol·max(|yᵢ|, |ŷᵢ|)).
template <class P>
LB_HD typename P::scalar error_norm(const P& err, const P& y0, const P& y1, typename P::scalar atol, typename P::scalar rtol) {
  using T = typename P::scalar;
  T s = T(0);
  for (int i = 0; i < P::size; ++i) {
    const T e = err[i] / (atol + rtol * lb::max(lb::abs(y0[i]), lb::abs(y1[i])));
    s += e * e;
  }
  return lb::sqrt(s / T(P::size));
}

/// A controller's verdict on one attempt (per lane for a pack).
template <class T> struct Verdict {
  mask_t<T> accepted;  ///< the attempt stands
  T h;                 ///< the next attempt, at most h_max
};

/// A step-size controller: given an attempt of size hh from y0 to y1 with error estimate err
/// (`good`: the trial was finite and its solve converged), of a pair of order p̂, and the step h
/// the controller had proposed before the attempt was shortened onto a stop (`shortened`),
/// accept or reject it and propose the next attempt.
template <class C, class T, class P>
concept StepController = requires(const StepControl<T>& c, const P& v, const mask_t<T>& m, const T& h) {
  { C::template judge<1>(c, v, v, v, m, h, h, m) } -> std::same_as<Verdict<T>>;
};

/// The elementary (integral) controller, [HNW93] II.4: accept where the weighted error e ≤ 1; the
/// next attempt is h·clamp(θ e^{−1/(p̂+1)}, shrink, grow), at most 1 after a rejection and shrink
/// after a failed trial. A step shortened to land on a stop does not cut the step proposed before.
struct IntegralControl {
  template <int order_hat, class T, class P> LB_HD static Verdict<T> judge(const StepControl<T>& c, const P& err, const P& y0, const P& y1,
                                                                           const mask_t<T>& good, const T& hh, const T& proposed,
                                                                           const mask_t<T>& shortened) {
    const T e = lb::select(good, error_norm(err, y0, y1, c.atol, c.rtol), T(0));
    const T expo = T(-1) / T(order_hat + 1);
    const mask_t<T> accepted = good && !(e > T(1));
    const T pe = c.safety * lb::pow(e, expo);
    const T grown = lb::min(lb::select(e > T(0), pe, c.grow), c.grow);
    const T cut = lb::min(lb::select(good, pe, c.shrink), T(1));
    const T factor = lb::max(lb::select(accepted, grown, cut), c.shrink);
    const T h = lb::select(accepted && shortened, lb::max(hh * factor, proposed), hh * factor);
    return {accepted, lb::min(h, c.h_max)};
  }
};

}  // namespace lb

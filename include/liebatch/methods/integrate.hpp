// Time stepping of one trajectory: fixed steps (last one shortened to land on t_end) and adaptive
// steps with an embedded pair (paper 2022 eq. (33)). One step attempt per loop iteration — accept
// or reject — so GPU threads of an ensemble stay in step; every exit carries a Status.
#pragma once
#include <limits>

#include "../scalar.hpp"
#include "step.hpp"

namespace lb {

/// State of a trajectory after integration.
template <class P> struct Outcome {
  P y;              ///< final state (the last accepted one if the trajectory failed)
  typename P::scalar t;  ///< time reached
  long steps;       ///< accepted steps
  long rejected;    ///< rejected step attempts
  Status status;
};

template <class P> LB_HD bool all_finite(const P& y) {
  bool ok = true;
  for (int i = 0; i < P::size; ++i) ok &= lb::isfinite(y[i]);
  return ok;
}

/// Fixed step h from t0 to t1: steps at t0 + k h, the last one shortened to end exactly at t1.
template <class Method, class Model>
LB_HD Outcome<typename Model::space::point> integrate_fixed(const Model& model, typename Model::space::scalar t0,
                                                            typename Model::space::scalar t1,
                                                            const typename Model::space::point& y0,
                                                            typename Model::space::scalar h, long max_steps) {
  using T = typename Model::space::scalar;
  Outcome<typename Model::space::point> o{y0, t0, 0, 0, Status::running};
  if (!all_finite(y0)) { o.status = Status::nonfinite; return o; }
  if (!(h > T(0))) { o.status = Status::step_underflow; return o; }
  while (o.status == Status::running) {
    if (o.steps >= max_steps) { o.status = Status::step_cap; break; }
    const T tn = t0 + T(o.steps) * h;  // no accumulated drift in t
    const T tnext = t0 + T(o.steps + 1) * h;
    const bool last = !(tnext < t1);
    const T hh = last ? t1 - tn : h;
    const auto r = Method::step(model, tn, o.y, hh);
    if (r.singular) { o.status = Status::dexpinv_singular; break; }
    if (!all_finite(r.y)) { o.status = Status::nonfinite; break; }
    o.y = r.y;
    ++o.steps;
    o.t = last ? t1 : tnext;
    if (last) o.status = Status::ok;
  }
  return o;
}

/// Tolerances and step-size controls of an adaptive run.
template <class T> struct AdaptiveOptions {
  T atol = T(1e-8);
  T rtol = T(1e-8);
  T h0 = T(1e-2);       ///< first step attempt
  T h_min = T(1e-12);   ///< below this: Status::step_underflow
  T h_max = std::numeric_limits<T>::max();  ///< largest step
  long max_attempts = 1000000;  ///< accepted + rejected attempts before Status::step_cap
  T safety = T(0.9);    ///< θ in h ← θ (tol/e)^{1/(p̂+1)} h
  T grow = T(5);        ///< largest growth factor
  T shrink = T(0.2);    ///< smallest shrink factor
};

/// Weighted RMS norm of an error vector: eᵢ/(atol + rtol·max(|yᵢ|, |ŷᵢ|)).
template <class P>
LB_HD typename P::scalar error_norm(const P& err, const P& y0, const P& y1, typename P::scalar atol,
                                    typename P::scalar rtol) {
  using T = typename P::scalar;
  T s = T(0);
  for (int i = 0; i < P::size; ++i) {
    const T a = lb::abs(y0[i]), b = lb::abs(y1[i]);
    const T e = err[i] / (atol + rtol * (a > b ? a : b));
    s += e * e;
  }
  return lb::sqrt(s / T(P::size));
}

/// Adaptive steps with an embedded pair: accept when the weighted error ≤ 1; either way the next
/// attempt is h·clamp(θ e^{−1/(p̂+1)}, shrink, grow) (no growth after a rejection). Non-finite
/// trials and singular dexp⁻¹ stages count as rejections with the largest shrink.
template <class Method, class Model>
LB_HD Outcome<typename Model::space::point> integrate_adaptive(const Model& model, typename Model::space::scalar t0,
                                                               typename Model::space::scalar t1,
                                                               const typename Model::space::point& y0,
                                                               const AdaptiveOptions<typename Model::space::scalar>& opt) {
  static_assert(Method::order_hat > 0, "adaptive steps need a method with an embedded pair");
  using T = typename Model::space::scalar;
  Outcome<typename Model::space::point> o{y0, t0, 0, 0, Status::running};
  if (!all_finite(y0)) { o.status = Status::nonfinite; return o; }
  const T expo = T(-1) / T(Method::order_hat + 1);
  T h = opt.h0 < opt.h_max ? opt.h0 : opt.h_max;
  bool failed_nonfinite = false;
  while (o.status == Status::running) {
    if (o.steps + o.rejected >= opt.max_attempts) { o.status = Status::step_cap; break; }
    const bool last = !(o.t + h < t1);
    const T hh = last ? t1 - o.t : h;
    const auto r = Method::step(model, o.t, o.y, hh);
    const bool finite = all_finite(r.y) && all_finite(r.err);
    const T e = finite && !r.singular ? error_norm(r.err, o.y, r.y, opt.atol, opt.rtol) : T(0);
    T factor;
    if (finite && !r.singular && !(e > T(1))) {  // accept
      o.y = r.y;
      o.t = last ? t1 : o.t + hh;
      ++o.steps;
      if (last) { o.status = Status::ok; break; }
      factor = e > T(0) ? opt.safety * lb::pow(e, expo) : opt.grow;
      factor = factor < opt.grow ? factor : opt.grow;
      failed_nonfinite = false;
    } else {  // reject
      ++o.rejected;
      failed_nonfinite = !finite;
      factor = finite && !r.singular ? opt.safety * lb::pow(e, expo) : opt.shrink;
      factor = factor < T(1) ? factor : T(1);
    }
    factor = factor > opt.shrink ? factor : opt.shrink;
    h = hh * factor;
    h = h < opt.h_max ? h : opt.h_max;
    if (h < opt.h_min) o.status = failed_nonfinite ? Status::nonfinite : (r.singular ? Status::dexpinv_singular : Status::step_underflow);
  }
  return o;
}

}  // namespace lb

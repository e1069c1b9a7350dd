// A trajectory's state between steps, kept between kernel launches: one member's, or a pack's
// with every field per lane (docs/packs.md).
#pragma once
#include "../methods/method.hpp"
#include "../scalar.hpp"
#include "../vec.hpp"

namespace lb {

/// Everything about a trajectory that changes while it runs (kept between kernel launches); for a
/// pack of members, every field per lane.
template <class P> struct Trajectory {
  using T = typename P::scalar;
  P y;                        ///< current state (the last good one after a failure)
  T t;                        ///< current time
  T h;                        ///< adaptive: next step attempt
  lanes_t<T, long> j;         ///< fixed: index of the last global grid point t₀ + jh passed
  lanes_t<T, long> steps;     ///< accepted steps
  lanes_t<T, long> rejected;  ///< rejected attempts
  lanes_t<T, int> sample;     ///< index of the next output sample
  lanes_t<T, Status> status;
  lanes_t<T, long> iterations;     ///< implicit methods: Newton iterations of every attempt, summed
  lanes_t<T, int> iterations_max;  ///< implicit methods: the most of one attempt
};

/// Whether every component of y is finite (per lane for a pack).
template <class P> LB_HD mask_t<typename P::scalar> all_finite(const P& y) {
  mask_t<typename P::scalar> ok = true;
  for (int i = 0; i < P::size; ++i) ok = ok && lb::isfinite(y[i]);
  return ok;
}

/// Fixed steps' global grid point j, t₀ + jh: one multiplication, no drift from repeated addition
/// (per lane for a pack). advance() and its grid runs both step by it, so they agree bitwise.
template <class T, class J> LB_HD T grid_time(const T& t0, const J& j, const T& h) { return t0 + as<T>(j) * h; }

/// A trajectory at t₀ from y₀, its first sample (k = 0, at t₀) already due.
template <class P> LB_HD Trajectory<P> start(const P& y0, typename P::scalar t0, typename P::scalar h0) {
  Trajectory<P> s{y0, t0, h0, 0, 0, 0, 0, Status::running, 0, 0};
  lb::set_where(!all_finite(y0), s.status, Status::nonfinite);
  return s;
}

}  // namespace lb

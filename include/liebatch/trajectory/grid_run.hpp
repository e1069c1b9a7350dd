// advance()'s fast path for packs on ℝⁿ with fixed steps: runs of whole grid steps that no lane's
// stop, pause or attempt cap interrupts, taken with only the step and its failure test
// (docs/packs.md §6).
#pragma once
#include <algorithm>
#include <utility>

#include "../methods/method.hpp"
#include "state.hpp"
#include "step_control.hpp"

namespace lb {

/// k whole steps h of a pack from its grid point t₀ + jh, each landing on the next: returns the
/// steps taken, stopping before the first one that fails in some lane. Flattened, the step and the
/// model inlined into the loop: on ℝⁿ a step costs a few FLOPs per component, as little as the call
/// that would keep none of the pack's registers across it.
template <class Method, class Model, class P>
[[gnu::flatten]] long grid_run(const Model& model, Trajectory<P>& s, typename P::scalar t0, typename P::scalar h, long k) {
  using T = typename P::scalar;
  P y = s.y;
  T t = s.t;
  auto j = s.j;
  long i = 0;
  for (; i < k; ++i) {
    const auto r = Method::step(model, t, y, h);
    if (!lb::all(!r.singular && !r.failed && all_finite(r.y))) break;
    y = r.y;
    j = j + 1;
    t = grid_time(t0, j, h);
  }
  s.y = y;
  s.t = t;
  s.j = j;
  s.steps = s.steps + decltype(s.steps)(i);
  return i;
}

/// The grid run ahead of a pack whose every lane is live and on its grid point t₀ + jh: the
/// iterations of advance() would take for every lane the step c.h, land on the next grid point and
/// record nothing until the first lane's stop (at_grid_of(t): t is that stop's grid point), pause
/// or attempt cap. Takes them with grid_run and returns how many it took (0: none such ahead, or
/// the first one failed in some lane). `after_failure` carries, between calls, that a run ended at
/// a failing step, which advance()'s own iteration must take next.
template <class Method, class Model, class P, class AtGridOf>
long grid_steps(const Model& model, Trajectory<P>& s, typename P::scalar t0, const StepControl<typename P::scalar>& c,
                const mask_t<typename P::scalar>& live, const typename P::scalar& stop, const typename P::scalar& t_pause,
                const AtGridOf& at_grid_of, bool& after_failure) {
  using T = typename P::scalar;
  auto grid_at = [&](const auto& m) { return grid_time(t0, m, c.h); };
  if (std::exchange(after_failure, false)) return 0;
  if (!lb::all(live) || !lb::all(s.t == grid_at(s.j))) return 0;
  // The run's length: a guess from each lane's distance to its stop and pause, checked with the
  // iterations' own tests on its last step (every test there is monotone in the step).
  long k = 1L << 20;
  const auto steps = s.steps.array(), rejected = s.rejected.array(), cap = c.max_attempts.array();
  for (int l = 0; l < T::size; ++l) {
    const auto room = [&](lane_t<T> end) { return lb::floor((end - lane(s.t, l)) / lane(c.h, l)); };
    const lane_t<T> guess = lb::min(room(lane(stop, l)) - 1, room(lane(t_pause, l)));
    k = std::min({k, long(lb::min(lb::max(guess, lane_t<T>(0)), lane_t<T>(k))), cap[l] - steps[l] - rejected[l]});
  }
  for (; k > 1; k /= 2) {
    const T last = grid_at(s.j + k);
    if (lb::all(last < stop && !at_grid_of(last) && grid_at(s.j + (k - 1)) < t_pause)) break;
  }
  if (k < 2) return 0;
  const long taken = grid_run<Method>(model, s, t0, c.h, k);
  after_failure = taken > 0 && taken < k;
  return taken;
}

}  // namespace lb

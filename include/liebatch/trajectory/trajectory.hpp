// One trajectory's stepping, shared by the single-trajectory drivers, the CPU ensemble path and
// the GPU kernel: advance(), which steps a Trajectory (state.hpp) until it finishes or reaches a
// pause time, its step sizes chosen by a controller policy (step_control.hpp). Output-grid times
// are stops (a step is shortened to land on them; fixed steps keep the global grid t₀ + jh);
// pauses (chunk ends) never alter a step, so a run split into chunks is bitwise the run in one
// piece.
#pragma once
#include <limits>
#include <type_traits>
#include <utility>

#include "../group_space.hpp"
#include "../methods/method.hpp"
#include "../scalar.hpp"
#include "../vec.hpp"
#include "grid_run.hpp"
#include "section.hpp"
#include "state.hpp"
#include "step_control.hpp"

namespace lb {

/// Output grid: n samples at t₀ + k(t₁ − t₀)/(n − 1), k = 0 … n−1 (t₁ exactly for the last);
/// n = 0: no grid. k per lane for a pack.
template <class T, class K> LB_HD T sample_time(T t0, T t1, K k, int n) {
  if constexpr (std::is_arithmetic_v<K>) return k == n - 1 ? t1 : t0 + (t1 - t0) * (T(k) / T(n - 1));
  else return lb::select(k == n - 1, t1, t0 + (t1 - t0) * (as<T>(k) / T(n - 1)));
}

/// Fraction of a step within which a stop counts as reached by that step. A fixed step's stop
/// within sliver·h of its grid point is that grid point (the step lands on the stop; a step between
/// two such stops is at most 2·sliver·h longer or shorter than h), and an adaptive step ending
/// within sliver·h before a stop is stretched onto it (so it may exceed h_max by that much): no
/// step of a few ulps is left after or before a stop, which a method that divides by h (HEDOP5's
/// multiplier, [ArnHE] §3) cannot take, unless two stops themselves lie that close. 2⁻¹⁰ is exact
/// in every precision.
template <class S> inline constexpr S sliver = S(1) / S(1024);

/// No output samples recorded.
struct NoRecord {
  template <class T, class P> LB_HD void operator()(int, int, T, const P&) const {}
};

/// No-op hit callback.
struct NoHits {
  template <class T, class P> LB_HD void operator()(int, T, const P&, bool) const {}
};

/// No per-lane models: a scalar run.
struct NoLaneModels {};

/// No warm start kept between steps (explicit methods, or a caller that keeps none).
struct NoWarm {};

/// Never interrupted: a leg runs to its end.
struct NoInterrupt {};

/// Where one call of advance() goes: the member's span t0 → t1 with `samples` output samples over
/// it (0: none), until t ≥ pause (a chunk's end; +∞: to the end of the span). With `until_any` it
/// returns as soon as some lane of a pack is done (finished, failed or paused), so that the caller
/// can give that lane another member. Per lane for a pack.
template <class T> struct Leg {
  T t0;
  T t1;
  int samples = 0;
  T pause = T(std::numeric_limits<lane_t<T>>::infinity());
  /// The samples this leg may record are those before it (its chunk's): one after them at the same
  /// time waits for the next chunk, whose slots hold it.
  int sample_end = std::numeric_limits<int>::max();
  bool until_any = false;
};

/// What advance() reports to its caller and what the caller keeps for it between calls, as named
/// members (designated initializers); each default does nothing.
template <class Record = NoRecord, class Section = NoSection, class OnHit = NoHits, class LaneModels = NoLaneModels, class Warm = NoWarm,
          class Interrupt = NoInterrupt>
struct Hooks {
  Record record = {};        ///< record(l, k, t, y): lane l landed on output sample k at (t, y)
  Section section = {};      ///< searched for crossings on every accepted step
  OnHit on_hit = {};         ///< on_hit(l, t, y, confirmed): lane l crossed the section at (t, y)
  LaneModels lanes = {};     ///< packs with a section: lanes(l) is lane l's scalar model
  Warm warm = {};            ///< an implicit method's warm start, Vec<T, method_warm<Method>()>
  Interrupt interrupt = {};  ///< interrupt(): true ends the leg early (a run stopped: its results are dropped)
};

/// What advance() needs: a method for the model, a step-size controller, and a section it can
/// search (on a scalar; packs search lane by lane with the lane's scalar model).
template <class Method, class Model, class Controller, class Hk>
concept Advances = MethodFor<Method, Model> && StepController<Controller, typename Model::space::scalar, typename Model::space::point> &&
    (is_pack_v<typename Model::space::scalar> || SectionFor<decltype(Hk::section), Model>);

/// Steps s from s.t towards leg.t1 until it finishes or s.t ≥ leg.pause. Calls
/// hooks.record(l, k, t, y) whenever lane l lands on output sample k of leg.samples. Fixed steps
/// (adaptive = false) follow the global grid t₀ + jh, the last step and any sample stop off the
/// grid shortened; adaptive steps use the method's embedded pair, one accept-or-reject attempt per
/// iteration, judged by Controller. With a section, every accepted step is searched for crossings
/// (find_crossings, default_hit_tol), reported as hooks.on_hit(l, t, y, confirmed) without
/// changing the step sequence.
///
/// On a pack (T = Pack, [docs/packs.md]) every lane is a member with its own t, h, counts, sample
/// and status, masked as a warp's divergent threads: a lane that has finished, failed or paused
/// idles (steps of size 0, its state kept) while the others go on, each lane taking exactly the
/// decisions the scalar code takes for that member. The callbacks get the lane's scalar values, and
/// sections are searched lane by lane with hooks.lanes. On a scalar every mask is a bool and the
/// code is the scalar stepping. An implicit method's warm start lives in hooks.warm, which the
/// caller keeps with the member: each step's solve starts from the last accepted step's solution
/// (from the method's explicit guess before the member's first step). Returns the number of
/// attempts it took (on a pack, one per iteration whatever its lanes did).
template <class Method, bool adaptive, class Controller = IntegralControl, class Model, class H = Hooks<>>
LB_HD long advance(const Model& model, Trajectory<typename Model::space::point>& s, const Leg<typename Model::space::scalar>& leg,
                   const StepControl<typename Model::space::scalar>& c,
                   H&& hooks = {}) requires Advances<Method, Model, Controller, std::remove_cvref_t<H>> {
  using T = typename Model::space::scalar;
  using P = typename Model::space::point;
  using M = mask_t<T>;
  using Hk = std::remove_cvref_t<H>;
  using Section = decltype(Hk::section);
  const T t0 = leg.t0, t1 = leg.t1, t_pause = leg.pause;
  const int n = leg.samples;
  constexpr bool sections = !std::is_same_v<Section, NoSection>;
  constexpr bool packed = is_pack_v<T>;
  // Whether crossings are searched: a section chosen at run time (AnySection, the command line's
  // in double) may be none, and its run then steps as one without a section.
  const bool searching = active(hooks.section);
  // Whether a pack may take its whole grid steps in grid_run (below), where nothing is searched.
  constexpr bool grid_runs = packed && !adaptive && may_be_inactive<Section> && is_euclidean_v<typename Model::space> &&
                             std::is_same_v<decltype(Hk::warm), NoWarm>;
  auto grid_at = [&](const auto& m) { return grid_time(t0, m, c.h); };
  auto at = [](const auto& x, int l) {
    if constexpr (packed) return lane(x, l); else return x;
  };
  // Lanes where a step (t_prev, y_prev) → (s.t, s.y) of size hh was accepted: crossings, lane by
  // lane; strobes against s.t itself, the next step's start, so that none falls between two steps.
  auto crossings = [&](const M& where, const T& t_prev, const P& y_prev, const T& hh) {
    if constexpr (sections) {
      if (!searching) return;
      const auto hit_tol = default_hit_tol<lane_t<T>>();
      lb::for_lanes(where, [&](int l) {
        auto hit = [&](auto th, const auto& yh, bool confirmed) { hooks.on_hit(l, th, yh, confirmed); };
        if constexpr (packed)
          find_crossings<Method>(hooks.lanes(l), hooks.section, at(t_prev, l), at(y_prev, l), at(hh, l), at(s.t, l), at(s.y, l), hit_tol,
                                 hit);
        else find_crossings<Method>(model, hooks.section, t_prev, y_prev, hh, s.t, s.y, hit_tol, hit);
      });
    }
  };
  // Lanes landing on their next sample: recorded, and the sample index moved on. So are the
  // samples after it at the same time (times equal in rounding, at a t₀ far from 0), up to the
  // leg's: none waits for a step of size 0, nor for the next chunk, which has no slot for it.
  auto due = [&] { return sample_time(t0, t1, s.sample, n) <= s.t && s.sample < n && s.sample < leg.sample_end; };
  auto record_where = [&](M where) {
    while (lb::any(where)) {
      lb::for_lanes(where, [&](int l) { hooks.record(l, int(at(s.sample, l)), at(s.t, l), at(s.y, l)); });
      lb::add_where(where, s.sample, 1);
      where = where && due();
    }
  };
  // Statuses change only where a lane ends: written behind a test, so that on a pack the next
  // iteration's mask of live lanes does not wait for this step's results (the common case is a
  // branch the core predicts, as on a scalar).
  auto status_where = [&](const M& where, Status v) {
    if (lb::any(where)) lb::set_where(where, s.status, v);
  };
  // An implicit step's Newton iterations, counted for the live member (implicit methods never run
  // on packs, and explicit ones skip this at compile time).
  auto count = [&](const M& live, int iterations) {
    if constexpr (method_implicit<Method>() && !packed) {
      if (live) {
        s.iterations += iterations;
        s.iterations_max = iterations > s.iterations_max ? iterations : s.iterations_max;
      }
    }
  };
  // One attempt of size hh from (s.t, s.y); with a warm start once the member has a step behind it.
  auto step = [&](const T& hh) {
    if constexpr (std::is_same_v<decltype(Hk::warm), NoWarm>) return Method::step(model, s.t, s.y, hh);
    else return Method::step(model, s.t, s.y, hh, hooks.warm, s.steps > 0);
  };
  [[maybe_unused]] bool after_failure = false;  // grid_steps' state between iterations
  // A member at t₁ is done once its every sample is recorded: those that round to t₁ may lie in a
  // later chunk than the step that reached it, and wait for that chunk running.
  auto finished = [&](const M& where) { status_where(where && s.t == t1 && !(M(n > 0) && s.sample < n), Status::ok); };
  // Sample 0 at t₀, or the leg's first ones at s.t (those of a member that reached t₁ before).
  if (n > 0) {
    record_where(s.status == Status::running && due());
    finished(s.status == Status::running);
  }
  long attempts = 0;
  [[maybe_unused]] long next_check = 1024;
  for (;; ++attempts) {
    // A stopped run ends within a thousand attempts, not at the end of a long leg (an adaptive one
    // is a fraction of the span, however long that takes). (grid_run's steps count as attempts.)
    if constexpr (!std::is_same_v<decltype(Hk::interrupt), NoInterrupt>) {
      if (attempts >= next_check) {
        next_check = attempts + 1024;
        if (hooks.interrupt()) break;
      }
    }
    M live = s.status == Status::running && s.t < t_pause;
    if (lb::none(live) || (leg.until_any && !lb::all(live))) break;
    const M capped = live && s.steps + s.rejected >= c.max_attempts;
    status_where(capped, Status::step_cap);
    live = live && !capped;
    if (lb::none(live) || (leg.until_any && !lb::all(live))) break;
    // The next stop: the end of the span, or the next output sample.
    const M at_sample = M(n > 0) && s.sample < n;
    const T stop = n > 0 ? lb::select(at_sample, sample_time(t0, t1, s.sample, n), t1) : t1;
    M landed;  // lanes whose step ended on their stop if they reached it
    if constexpr (!adaptive) {
      // A stop within rounding of the grid point (k·h against t₀ + k(t₁ − t₀)/(n − 1), or t₁ against
      // t₀ + Nh), or within a sliver of a step, is that grid point: no step of a few ulps before or
      // after it.
      auto at_grid_of = [&](const T& grid) {
        const T scale = lb::max(lb::abs(grid), lb::abs(stop));
        return lb::abs(grid - stop) <= lb::max(T(8) * epsilon<T>() * scale, T(sliver<lane_t<T>>) * c.h);
      };
      if constexpr (grid_runs) {
        // On ℝⁿ, a pack's run of whole grid steps that no lane's stop, pause or cap interrupts.
        const long k = searching ? 0 : grid_steps<Method>(model, s, t0, c, live, stop, t_pause, at_grid_of, after_failure);
        if (k > 0) {
          attempts += k - 1;
          continue;
        }
      }
      const T grid = grid_at(s.j + 1);
      const M at_grid = at_grid_of(grid);
      const M to_grid = grid < stop && !at_grid;
      const M on_grid = s.t == grid_at(s.j);
      const T target = lb::select(to_grid, grid, stop);
      const T hh = lb::select(live, lb::select(to_grid && on_grid, c.h, target - s.t), T(0));  // idle lanes: h = 0
      const auto r = step(hh);
      count(live, r.iterations);
      const M singular = live && r.singular;
      const M failed = live && !singular && r.failed;
      const M nonfinite = live && !singular && !failed && !all_finite(r.y);
      status_where(singular, Status::dexpinv_singular);
      status_where(failed, method_failure<Method>());
      status_where(nonfinite, Status::nonfinite);
      landed = live && !singular && !failed && !nonfinite;
      if (lb::none(landed)) continue;
      const P y_prev = s.y;
      const T t_prev = s.t;
      // Every lane stepped (a scalar that got here; a pack in lockstep): no masking, so t, j and
      // the counts do not depend on the step's results.
      const bool every = lb::all(landed);
      const M moved = at_grid || !(grid > target);  // reached (or passed) the next grid point
      if (every) {
        s.y = r.y;
        s.t = target;
        s.steps = s.steps + 1;
        lb::add_where(moved, s.j, 1);
        landed = live;
      } else {
        s.y = lb::select(landed, r.y, s.y);
        s.t = lb::select(landed, target, s.t);
        lb::add_where(landed, s.steps, 1);
        lb::add_where(landed && moved, s.j, 1);
      }
      crossings(landed, t_prev, y_prev, hh);
    } else {
      static_assert(Method::order_hat > 0, "adaptive steps need a method with an embedded pair");
      // Shortened to land on the stop, or stretched onto it by at most a sliver of the step.
      const M shortened = !(s.t + s.h * T(1 + sliver<lane_t<T>>) < stop);
      const T hh = lb::select(live, lb::select(shortened, stop - s.t, s.h), T(0));
      const auto r = step(hh);
      count(live, r.iterations);
      const M finite = all_finite(r.y) && all_finite(r.err);
      const M good = finite && !r.singular && !r.failed;  // a failed solve is rejected: the step shrinks
      const Verdict<T> v = Controller::template judge<Method::order_hat>(c, r.err, s.y, r.y, good, hh, s.h, shortened);
      const M accepted = live && v.accepted;
      const M rejected = live && !accepted;
      s.h = lb::select(live, v.h, s.h);
      const P y_prev = s.y;
      const T t_prev = s.t;
      const T t_next = lb::select(shortened, stop, s.t + hh);
      if (lb::all(accepted)) {  // as for fixed steps: no masking where every lane was accepted
        s.y = r.y;
        s.t = t_next;
        s.steps = s.steps + 1;
      } else {
        s.y = lb::select(accepted, r.y, s.y);
        s.t = lb::select(accepted, t_next, s.t);
        lb::add_where(accepted, s.steps, 1);
      }
      crossings(accepted, t_prev, y_prev, hh);
      if (lb::any(rejected)) {
        lb::add_where(rejected, s.rejected, 1);
        const M underflow = rejected && s.h < c.h_min;
        status_where(underflow, Status::step_underflow);
        status_where(underflow && r.singular, Status::dexpinv_singular);
        status_where(underflow && r.failed, method_failure<Method>());
        status_where(underflow && !finite, Status::nonfinite);
      }
      landed = accepted && shortened;
    }
    // Landed on the stop when it was reached.
    const M at_stop = landed && s.t == stop;
    record_where(at_stop && at_sample);
    finished(at_stop);
  }
  return attempts;
}

}  // namespace lb

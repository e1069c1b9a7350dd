// A RunSpec as the engine takes it: the Ensemble, the RunOptions and the section, shared by the
// command line's CPU and GPU paths so both run exactly the same problem. No config code here, so
// CUDA sources include it.
#pragma once
#include <cmath>
#include <type_traits>

#include <liebatch/trajectory/section.hpp>

#include "cli/config/spec.hpp"

namespace lb::cli {

/// Keeps hits where y[component] < value (or >).
template <class T> struct ComponentCondition {
  int component;
  bool less;
  T value;
  template <class P> LB_HD bool operator()(T, const P& y) const { return less ? y[component] < value : y[component] > value; }
};

/// The members of s for `model` (shared by all), in the model's scalar.
template <class Model> Ensemble<Model> ensemble_of(const Model& model, const RunSpec& s) {
  using T = typename Ensemble<Model>::T;
  Ensemble<Model> e;
  e.size = s.size;
  e.y0.assign(s.y0.begin(), s.y0.end());
  e.t0.v = {T(s.t0)};
  e.t1.v = {T(s.t1)};
  e.model.v = {model};
  e.samples = s.samples;
  e.max_hits = s.section.max_hits;
  e.control.v.clear();
  for (double h : s.h) {
    StepControl<T> c;
    c.h = T(h);
    c.atol = T(s.atol);
    c.rtol = T(s.rtol);
    c.h_min = T(s.h_min);
    c.max_attempts = s.max_steps;
    e.control.v.push_back(c);
  }
  return e;
}

inline RunOptions options_of(const RunSpec& s) {
  RunOptions o;
  o.adaptive = s.adaptive;
  o.threads = s.threads;
  o.simd = s.simd;
  o.chunks = s.chunks;
  o.samples_per_chunk = s.samples_per_chunk;
  o.pauses = s.pauses;
  o.progress = s.progress;
  o.stop = s.stop;
  o.checkpoint_due = s.checkpoint_due;
  o.checkpoint = s.checkpoint;
  o.resume = s.resume;
  return o;
}

/// The section of the command line's double runs: none, a hyperplane with its optional condition,
/// or a stroboscopic section, chosen at run time (one instantiation of the engine for the three).
template <class T> using CliSection = AnySection<T, Conditioned<Hyperplane<T>, ComponentCondition<T>>>;

/// run(section) with s's section. Sections are located in double only (float and long double runs
/// take none, as `liebatch run` and the reference runs need none).
template <class T, class Run> auto with_section(const RunSpec& s, Run&& run) {
  if constexpr (std::is_same_v<T, double>) {
    const SectionSpec& sec = s.section;
    CliSection<T> any{};
    if (sec.kind == SectionSpec::hyperplane) {
      any.kind = CliSection<T>::Kind::level;
      any.level = {{sec.component, T(sec.value), sec.direction},
                   {sec.conditioned ? sec.cond_component : sec.component, sec.cond_less,
                    sec.conditioned ? T(sec.cond_value) : (sec.cond_less ? T(INFINITY) : T(-INFINITY))}};
    } else if (sec.kind == SectionSpec::stroboscopic) {
      any.kind = CliSection<T>::Kind::strobe;
      any.strobe = {T(sec.t0), T(sec.period)};
    }
    return run(any);
  } else {
    return run(NoSection{});
  }
}

}  // namespace lb::cli

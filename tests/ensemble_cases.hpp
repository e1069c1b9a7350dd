// The comparison behind every CPU-vs-GPU case, through a backend B of run_batched: CUDA
// (ensemble_gpu_*.cu) or the CPU backend in one thread with a small memory
// (test_ensemble_emulated.cpp), which must agree with run_cpu bitwise.
// The GPU runs the same advance() as the CPU, so
// results differ only by floating-point contraction (nvcc fuses a·b + c into FMAs, g++ on x86-64
// without -mfma does not) and by the last ulp of sin/cos/sqrt. Each step perturbs the state by at
// most ~10 ε|y| per stage from these sources; over N steps of a non-chaotic run of unit length the
// perturbations add at most linearly, so fixed-step results must agree to
//   |y_gpu − y_cpu| ≤ 100 · stages · N · ε · max(1, |y|).
// Adaptive runs may accept or reject a borderline step differently; their results must agree to
// the requested tolerance: |y_gpu − y_cpu| ≤ 10 · tol · max(1, |y|), with identical statuses.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include <liebatch/ensemble/engine.hpp>
#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/methods/half_explicit.hpp>
#include "ensemble_gpu.hpp"
#include "ensembles.hpp"
#include "problems.hpp"

namespace lbtest {

/// 256 members around P's initial condition, t ∈ [0, t_end], 5 samples; fixed h = t_end/100 or
/// adaptive with tol = 1e-8 (1e-5 in float).
template <class P, class T = double> auto case_ensemble(bool adaptive) {
  using Model = decltype(P::template model<T>());
  lb::Ensemble<Model> e;
  e.size = 256;
  e.model.v = {P::template model<T>()};
  e.t1.v = {T(P::t_end)};
  e.samples = 5;
  lb::StepControl<T> c;
  c.h = adaptive ? T(1e-3) : T(P::t_end / 100);
  c.atol = c.rtol = std::is_same_v<T, float> ? T(1e-5) : T(1e-8);
  e.control.v = {c};
  if constexpr (requires { P::template y0<T>(std::size_t(0)); }) {  // the problem's own members
    constexpr int dim = Model::space::dim;
    e.y0.resize(dim * e.size);
    for (std::size_t i = 0; i < e.size; ++i) {
      const auto y = P::template y0<T>(i);
      for (int d = 0; d < dim; ++d) e.y0[d * e.size + i] = y[d];
    }
  } else {
    const auto y0 = P::template y0<T>();
    constexpr int dim = decltype(y0)::size;
    e.y0.resize(dim * e.size);
    for (std::size_t i = 0; i < e.size; ++i) {
      // Rotate the initial state by a member-dependent angle about e₃ (stays on the manifold).
      const T a = T(0.01) * T(i);
      const auto u = lb::vec3(T(0), T(0), a);
      for (int b = 0; b < dim; b += 3) {
        const auto v = lb::S2<T>::exp_act(u, y0.template seg<3>(b));
        for (int d = 0; d < 3; ++d) e.y0[(b + d) * e.size + i] = v[d];
      }
    }
  }
  return e;
}

/// Which components a comparison holds to its bound: all, or a constrained system's (q, v) and its
/// multipliers λ (the last P::multipliers) apart. λ is algebraic: each step's comes from stage solves
/// that divide by h·a_{i+1,i}, turning a rounding difference of the velocities into one ~1/h larger
/// in λ, per step and not accumulated (the multiplier recursion amplifies by 0), so it has its own
/// bound, P::lambda_bound(h).
enum class Part { all, state, multipliers };

template <class B, class Method, class P, Part part = Part::all> Comparison compare(bool adaptive) {
  const auto e = case_ensemble<P>(adaptive);
  lb::RunOptions o;
  o.adaptive = adaptive;
  o.samples_per_chunk = 2;  // several launches per run
  o.simd = false;           // one member per thread, as on the GPU (the packed engine: test_ensemble_packed)
  const auto cpu = lb::run_cpu<Method>(e, o);
  const auto gpu = lb::run_batched<B, Method>(e, o);
  Comparison r;
  r.device = gpu.device;
  const double eps = std::numeric_limits<double>::epsilon();
  long max_steps = 0;
  for (long s : cpu.steps) max_steps = std::max(max_steps, s);
  r.bound = adaptive ? 10 * e.control[0].rtol : 100.0 * Method::stages * double(max_steps) * eps;
  if constexpr (part == Part::multipliers)
    if (!adaptive) r.bound = P::lambda_bound(double(e.control[0].h));
  // Component d of the state counts towards this part.
  auto counts = [&](std::size_t d) {
    if constexpr (part == Part::all) return true;
    else return (d + P::multipliers >= std::size_t(e.dim)) == (part == Part::multipliers);
  };
  auto upd = [&](double a, double b) {  // NaN on one side only counts as an infinite difference
    if (a == b || (std::isnan(a) && std::isnan(b))) return;
    const double d = std::abs(a - b) / std::max(1.0, std::abs(a));
    r.max_diff = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(r.max_diff, d);
  };
  for (std::size_t k = 0; k < cpu.y.size(); ++k)
    if (counts(k / e.size)) upd(cpu.y[k], gpu.y[k]);
  for (std::size_t k = 0; k < cpu.sample_y.size(); ++k)
    if (counts(k / e.size % std::size_t(e.dim))) upd(cpu.sample_y[k], gpu.sample_y[k]);
  for (std::size_t i = 0; i < cpu.status.size(); ++i) {
    r.mismatched_status += cpu.status[i] != gpu.status[i];
    r.mismatched_steps += cpu.steps[i] != gpu.steps[i] || cpu.rejected[i] != gpu.rejected[i];
  }
  // An implicit method's Newton iterations, per member.
  if (cpu.iterations.size() != gpu.iterations.size()) r.newton_differences += long(cpu.size);
  for (std::size_t i = 0; i < cpu.iterations.size() && i < gpu.iterations.size(); ++i) {
    r.newton_differences += cpu.iterations[i] != gpu.iterations[i] || cpu.iterations_max[i] != gpu.iterations_max[i];
    r.newton_max_difference = std::max(r.newton_max_difference, std::abs(cpu.iterations[i] - gpu.iterations[i]));
  }
  for (std::size_t k = 0; k < cpu.sample_t.size(); ++k) upd(cpu.sample_t[k], gpu.sample_t[k]);
  r.first_difference = difference(cpu, gpu);
  return r;
}

/// The position of a method in LB_METHODS (−1 for another name).
constexpr int method_index(std::string_view name) {
  int i = 0;
#define LB_METHOD_INDEX(m, w, ...) \
  if (name == #m) return i;        \
  ++i;
  LB_METHODS(LB_METHOD_INDEX)
#undef LB_METHOD_INDEX
  return -1;
}

/// Every method of LB_METHODS on problem P through backend B: fixed steps, and adaptive steps for
/// the methods with an embedded pair; of them, those whose index is part mod parts (a long unit
/// split in parts that compile in parallel).
#define LB_METHOD_CASES(m, w, ...)                                                                                    \
  if constexpr (method_index(#m) % parts == part) {                                                                   \
    v.push_back({std::string(P::name) + " / " #m, [] { return compare<B, lb::methods::m, P>(false); }});              \
    if constexpr (lb::methods::m::order_hat > 0)                                                                      \
      v.push_back({std::string(P::name) + " / " #m " adaptive", [] { return compare<B, lb::methods::m, P>(true); }}); \
  }
template <class B, class P, int part = 0, int parts = 1> void add_all_cases(std::vector<GpuCase>& v) { LB_METHODS(LB_METHOD_CASES) }
#undef LB_METHOD_CASES

/// HEDOP5 on the constrained heavy top, fixed and adaptive steps (issue 18).
template <class B> void add_constrained_cases(std::vector<GpuCase>& v) {
  using P = ConstrainedTopProblem;
  using M = lb::methods::hedop5;
  v.push_back({std::string(P::name) + " / hedop5 (q, v)", [] { return compare<B, M, P, Part::state>(false); }});
  v.push_back({std::string(P::name) + " / hedop5 (lambda)", [] { return compare<B, M, P, Part::multipliers>(false); }});
  v.push_back({std::string(P::name) + " / hedop5 adaptive", [] { return compare<B, M, P>(true); }});
}

/// Cases per problem in add_all_cases.
inline const std::size_t cases_per_problem = [] {
  std::size_t n = 0;
#define LB_METHOD_COUNT(m, w, ...) n += 1 + (lb::methods::m::order_hat > 0);
  LB_METHODS(LB_METHOD_COUNT)
#undef LB_METHOD_COUNT
  return n;
}();

}  // namespace lbtest

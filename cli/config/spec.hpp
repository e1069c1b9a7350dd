// What a command asks a model to run, independent of the model: time span, stepping, outputs,
// section, and the initial states; and what comes back.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <liebatch/ensemble/ensemble.hpp>

namespace lb::cli {

/// A Poincaré section as configured: a hyperplane on a state component with an optional extra
/// condition on another component, or a stroboscopic section.
struct SectionSpec {
  enum Kind { none, hyperplane, stroboscopic } kind = none;
  int component = 0;  ///< hyperplane: state component
  double value = 0;   ///< hyperplane: y[component] = value
  Crossing direction = Crossing::both;
  bool conditioned = false;  ///< keep hits only where y[cond_component] (<|>) cond_value
  int cond_component = 0;
  bool cond_less = true;
  double cond_value = 0;
  double t0 = 0, period = 1;  ///< stroboscopic: t0 + k·period
  int max_hits = 64;          ///< kept per member and chunk
};

/// One ensemble run: n members with states y0 (SoA, y0[d·n + i]) and per-member step sizes h.
struct RunSpec {
  std::string method;
  bool adaptive = false;
  std::vector<double> h;  ///< per member (size 1: shared)
  double atol = 1e-8, rtol = 1e-8;
  double h_min = 1e-12;  ///< adaptive: a rejected step below it ends the member (Status::step_underflow)
  long max_steps = 10'000'000;
  double t0 = 0, t1 = 1;
  int samples = 0;
  SectionSpec section;
  std::size_t size = 0;
  std::size_t member0 = 0;           ///< the first member's index in the whole run (its parameters)
  std::vector<std::size_t> members;  ///< each run member's index where not member0 + k (converge)
  std::vector<double> y0;
  bool single = false;  ///< float instead of double (runs without a section)
  bool gpu = false;     ///< on the GPU (run_on_gpu) instead of the CPU
  int threads = 0;
  bool simd = true;  ///< CPU: packs of members in SIMD lanes
  int chunks = 20;   ///< RunOptions::chunks (runs without samples)
  int samples_per_chunk = 64;  ///< RunOptions::samples_per_chunk
  int pauses = 1;              ///< RunOptions::pauses
  std::function<void(double)> progress;
  const std::atomic<bool>* stop = nullptr;  ///< RunOptions::stop
  std::function<bool()> checkpoint_due;     ///< RunOptions::checkpoint_due
  std::function<void(const EngineState&)> checkpoint;  ///< RunOptions::checkpoint
  const EngineState* resume = nullptr;                 ///< RunOptions::resume
};

/// The engine's chunks for s (its samples, chunks and samples per chunk).
inline ChunkPlan chunk_plan(const RunSpec& s) {
  RunOptions o;
  o.chunks = s.chunks, o.samples_per_chunk = s.samples_per_chunk;
  return ChunkPlan::make(s.samples, o);
}

/// Legs per chunk so that members pause about every 2000 fixed steps, or 1/200 of an adaptive run's
/// span: how soon a run can be stopped (Python's Ctrl-C) or checkpointed. Legs change no result,
/// bitwise (ChunkPlan).
inline int short_pauses(const RunSpec& s) {
  const double steps = s.adaptive ? 4e5 : (s.t1 - s.t0) / *std::min_element(s.h.begin(), s.h.end());
  const int chunks = chunk_plan(s).chunks;
  return int(std::clamp(std::ceil(steps / 2000 / chunks), 1.0, std::max(1.0, std::floor(1e5 / chunks))));
}

/// A run's results in double, with the names of the state components and observables, and the
/// values of the parameters that vary per member, made with the members' models (as
/// ModelRunner::member_parameters: parameter-major, empty when none varies).
struct RunResult {
  EnsembleOutput<double> out;
  std::vector<std::string> state_names, obs_names;
  std::vector<std::vector<double>> parameters;
};

}  // namespace lb::cli

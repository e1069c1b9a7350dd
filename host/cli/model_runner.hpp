// A model as the command line sees it: parameters from the config, the state's manifold (defect,
// projection, perturbation by the group action, energy levels), and runs in double or in long
// double for reference solutions. Runner<Entry> implements it for any model entry (models_*.cpp).
#pragma once
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "../run_cpu.hpp"
#include "methods.hpp"
#include "spec.hpp"

namespace lb::cli {

class ModelRunner {
 public:
  virtual ~ModelRunner() = default;
  virtual std::string name() const = 0;
  /// Numbers per state, and the dimension of the acting group's algebra.
  virtual int dim() const = 0;
  virtual int algebra_dim() const = 0;
  /// The preset's initial state, or empty.
  virtual std::vector<double> preset_initial() const = 0;
  /// Distance of y from the model's manifold (e.g. | |q| − 1 |), and the nearest point on it.
  virtual double defect(const double* y) const = 0;
  virtual void project(double* y) const = 0;
  /// out = exp(ξ)·y: a point of the same manifold (and orbit).
  virtual void perturb(const double* y, const double* xi, double* out) const = 0;
  /// Whether energy levels can be targeted, and y's velocities rescaled to energy E (false: unreachable).
  virtual bool has_energy_level() const = 0;
  virtual bool energy_level(double* y, double E) const = 0;
  virtual std::vector<std::string> state_names() const = 0;
  virtual std::vector<std::string> obs_names() const = 0;
  /// Runs in double (float when s.single) / in long double (reference solutions, validation).
  virtual RunResult run(const RunSpec& s) const = 0;
  virtual RunResult run_extended(const RunSpec& s) const = 0;
};

/// The model named in the config's "model" object (with "name", "preset" and "parameters").
std::unique_ptr<ModelRunner> make_model(Node& model);
/// `liebatch list models`: every model with its parameters and presets.
std::string describe_models();

/// Keeps hits where y[component] < value (or >).
template <class T> struct ComponentCondition {
  int component;
  bool less;
  T value;
  template <class P> LB_HD bool operator()(T, const P& y) const { return less ? y[component] < value : y[component] > value; }
};

template <class Entry> class Runner final : public ModelRunner {
  template <class T> using M = typename Entry::template model<T>;
  using space = typename M<double>::space;
  using point = typename space::point;

 public:
  explicit Runner(typename Entry::Params p) : p_(std::move(p)) {}
  std::string name() const override { return Entry::name; }
  int dim() const override { return space::dim; }
  int algebra_dim() const override { return space::algebra::dim; }
  std::vector<double> preset_initial() const override { return Entry::initial(p_); }
  double defect(const double* y) const override { return Entry::defect(p_, load(y)); }
  void project(double* y) const override { store(Entry::project(p_, load(y)), y); }
  void perturb(const double* y, const double* xi, double* out) const override {
    typename space::algebra::vec u;
    for (int d = 0; d < space::algebra::dim; ++d) u[d] = xi[d];
    store(space::exp_act(u, load(y)), out);
  }
  bool has_energy_level() const override { return Entry::energy_levels; }
  bool energy_level(double* y, double E) const override {
    if constexpr (Entry::energy_levels) {
      point x = load(y);
      if (!on_energy_level(Entry::template build<double>(p_), x, E)) return false;
      store(x, y);
      return true;
    } else {
      return false;
    }
  }
  std::vector<std::string> state_names() const override { return Entry::state_names(p_); }
  std::vector<std::string> obs_names() const override { return Entry::obs_names(p_); }
  RunResult run(const RunSpec& s) const override { return s.single ? run_as<float>(s, false) : run_as<double>(s, true); }
  RunResult run_extended(const RunSpec& s) const override { return run_as<long double>(s, false); }

 private:
  typename Entry::Params p_;

  static point load(const double* y) {
    point x;
    for (int d = 0; d < space::dim; ++d) x[d] = y[d];
    return x;
  }
  static void store(const point& x, double* y) {
    for (int d = 0; d < space::dim; ++d) y[d] = x[d];
  }

  template <class T> RunResult run_as(const RunSpec& s, bool sections) const {
    Ensemble<M<T>> e;
    e.size = s.size;
    e.y0.assign(s.y0.begin(), s.y0.end());
    e.t0.v = {T(s.t0)};
    e.t1.v = {T(s.t1)};
    e.model.v = {Entry::template build<T>(p_)};
    e.samples = s.samples;
    e.max_hits = s.section.max_hits;
    e.control.v.clear();
    for (double h : s.h) {
      StepControl<T> c;
      c.h = T(h);
      c.atol = T(s.atol);
      c.rtol = T(s.rtol);
      c.max_attempts = s.max_steps;
      e.control.v.push_back(c);
    }
    RunOptions o;
    o.adaptive = s.adaptive;
    o.threads = s.threads;
    o.chunks = s.chunks;
    o.progress = s.progress;
    RunResult r;
    r.state_names = Entry::state_names(p_);
    r.obs_names = Entry::obs_names(p_);
    with_method(s.method, "/method", [&](auto tag) {
      using Method = typename decltype(tag)::type;
      EnsembleOutput<T> out;
      const auto& sec = s.section;
      if constexpr (std::is_same_v<T, double>) {
        if (sections && sec.kind == SectionSpec::hyperplane) {
          const Hyperplane<T> plane{sec.component, T(sec.value), sec.direction};
          const Conditioned<Hyperplane<T>, ComponentCondition<T>> cond{
              plane, {sec.conditioned ? sec.cond_component : sec.component, sec.cond_less,
                      sec.conditioned ? T(sec.cond_value) : (sec.cond_less ? T(INFINITY) : T(-INFINITY))}};
          out = run_cpu<Method>(e, o, cond);
        } else if (sections && sec.kind == SectionSpec::stroboscopic) {
          out = run_cpu<Method>(e, o, Stroboscopic<T>{T(sec.t0), T(sec.period)});
        } else {
          out = run_cpu<Method>(e, o);
        }
      } else {
        out = run_cpu<Method>(e, o);
      }
      convert(out, r.out);
    });
    return r;
  }

  template <class T> static void convert(const EnsembleOutput<T>& a, EnsembleOutput<double>& b) {
    auto cv = [](const std::vector<T>& x) { return std::vector<double>(x.begin(), x.end()); };
    b.size = a.size; b.dim = a.dim; b.nobs = a.nobs; b.samples = a.samples;
    b.y = cv(a.y); b.t = cv(a.t); b.steps = a.steps; b.rejected = a.rejected; b.status = a.status;
    b.sample_t = cv(a.sample_t); b.sample_y = cv(a.sample_y); b.sample_obs = cv(a.sample_obs);
    b.device = a.device;
    b.hit_member = a.hit_member; b.hit_index = a.hit_index; b.hit_t = cv(a.hit_t); b.hit_y = cv(a.hit_y);
    b.hit_obs = cv(a.hit_obs); b.hits = a.hits; b.lost_hits = a.lost_hits; b.suspects = a.suspects;
  }
};

}  // namespace lb::cli

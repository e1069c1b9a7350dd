// Runner<Entry>: the ModelRunner of a model entry (models_*.cpp), instantiating the engine for
// every method the entry takes, in float, double and long double.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/model.hpp>
#include <liebatch/sampling/energy_level.hpp>
#include "cli/models/for_members.hpp"
#include "cli/models/gpu_run.hpp"
#include "cli/models/methods.hpp"
#include "cli/models/model_runner.hpp"
#include "cli/models/parameters.hpp"
#include "cli/config/spec.hpp"
#include "cli/config/spec_ensemble.hpp"

namespace lb::cli {

/// What a model entry's parameter table sets: `Entry::parameters` where it has one (the heavy top's
/// forms share HeavyTop's), else the model in double.
template <class Entry> struct entry_parameters { using type = typename Entry::template model<double>; };
template <class Entry>
requires requires { typename Entry::parameters; }
struct entry_parameters<Entry> {
  using type = typename Entry::parameters;
};

/// The runner of a model entry (models_*.cpp): its `name`, `model<T>`, `table()` and
/// `base(preset)`, optionally `make(parameters)` and `initial(parameters, preset)` (cli/models/
/// entry_util.hpp). Everything else comes from the model (defect, projection, names, energy
/// levels, cast to float and long double) and its space; a member's model from the rule.
template <class Entry> class Runner final : public ModelRunner {
  template <class T> using M = typename Entry::template model<T>;
  static_assert(CastsTo<M<double>, float> && CastsTo<M<double>, long double>,
                "a command-line model converts to float and long double: give it cast<U>() (lb::CastsTo, model.hpp)");
  /// Entries without GPU kernels in some builds say so (`gpu`, `gpu_note()`); every other model
  /// is instantiated in a models_*_gpu.cu file, for the build's methods, or for its own
  /// (`gpu_method_missing(method)`: a user's model, cli/models/plugin_unit_gpu.cu).
  static constexpr bool has_gpu = [] {
    if constexpr (requires { Entry::gpu; }) return Entry::gpu;
    else return true;
  }();
  /// Entries may narrow the built-in methods they take (`template <class M> takes`, with
  /// `takes_note()`): a form of a model that exists for one method compiles no other.
  template <class Method> static constexpr bool takes = [] {
    if constexpr (requires { Entry::template takes<Method>; }) return Entry::template takes<Method>;
    else return true;
  }();
  using space = typename M<double>::space;
  using point = typename space::point;
  static constexpr bool constrained = model_constrained<M<double>>();
  /// Numbers of the state that the parameters fix (the quadratic heavy top's p = −M g X):
  /// `parameter_defect(y)` says how far y's are, `with_parameters(y)` sets them.
  static constexpr bool with_parameters = requires(const M<double>& m, const point& y) {
    m.parameter_defect(y);
    m.with_parameters(y);
  };

 public:
  using P = typename entry_parameters<Entry>::type;
  Runner(const P& base_parameters, std::vector<double> initial, MemberRule rule)
      : base_(base_parameters), model_(make(base_parameters)), initial_(std::move(initial)), rule_(std::move(rule)) {}
  std::string name() const override { return Entry::name; }
  int dim() const override { return space::dim; }
  int algebra_dim() const override { return space::algebra::dim - multipliers(); }
  std::vector<double> preset_initial() const override { return initial_; }
  double defect(const double* y, std::size_t i) const override {
    // Not a state at all where a number is not finite, whatever the space (a coadjoint orbit's
    // defect is 0 for any numbers): NaN, which every check refuses.
    for (int k = 0; k < dim(); ++k)
      if (!std::isfinite(y[k])) return std::numeric_limits<double>::quiet_NaN();
    if constexpr (constrained) return model_of(i).consistency_defect(load(y));
    else if constexpr (with_parameters) return lb::max_nan(model_of(i).parameter_defect(load(y)), lb::defect<M<double>>(load(y)));
    else return lb::defect<M<double>>(load(y));
  }
  void project(double* y, std::size_t i) const override {
    if constexpr (constrained) store(model_of(i).consistent(load(y)), y);
    else if constexpr (with_parameters) store(model_of(i).with_parameters(lb::project<M<double>>(load(y))), y);
    else store(lb::project<M<double>>(load(y)), y);
  }
  void perturb(const double* y, const double* xi, double* out, std::size_t i) const override {
    auto u = space::algebra::vec::zero();
    for (int d = 0; d < algebra_dim(); ++d) u[d] = xi[d];
    store(space::exp_act(u, load(y)), out);
    if constexpr (constrained) project(out, i);
    else if constexpr (with_parameters) store(model_of(i).with_parameters(load(out)), out);  // (no perturbation's to change)
  }
  int multipliers() const override {
    if constexpr (constrained) return M<double>::r;
    else return 0;
  }
  std::vector<int> parts() const override {
    if constexpr (constrained) return {M<double>::G::embed_dim, M<double>::n, M<double>::r};
    else return {};
  }
  void complete(double* y, std::size_t i) const override {
    if constexpr (constrained) {
      const auto s = M<double>::unpack(load(y));
      store(model_of(i).initial(s.q, s.v), y);
    }
  }
  bool has_energy_level() const override { return EnergyLevels<M<double>>; }
  bool energy_level(double* y, double E, std::size_t i) const override {
    if constexpr (EnergyLevels<M<double>>) {
      point x = load(y);
      if (!on_energy_level(model_of(i), x, E)) return false;
      store(x, y);
      return true;
    } else {
      return false;
    }
  }
  const MemberRule& rule() const override { return rule_; }
  void set_rule(const UnitSampler& draws, std::size_t states, bool single) override {
    rule_.sampler = draws;
    rule_.sampler.dim = std::max(1, int(rule_.draws.size()));
    rule_.sampler.stream = 2;  // apart from the initial states' numbers (0) and Sobol' shifts (1) under one seed
    rule_.states = states;
    rule_.single = single;
  }
  std::vector<std::vector<double>> member_parameters(std::size_t i0, std::size_t n, int threads) const override {
    const std::vector<int> keys = varied();
    std::vector<std::vector<double>> v = parameter_columns(n);
    for_members(n, threads, [&](std::size_t b, std::size_t end) {
      for (std::size_t i = b; i < end; ++i) put_parameters(with_member<P>(base_, Entry::table(), rule_, i0 + i), i, keys, v);
    });
    return v;
  }
  std::vector<std::pair<std::string, int>> varied_parameters() const override {
    std::vector<std::pair<std::string, int>> v;
    for (int k : varied()) v.emplace_back(Entry::table()[std::size_t(k)].key, Entry::table()[std::size_t(k)].size);
    return v;
  }
  std::vector<std::string> state_names() const override { return lb::state_names<M<double>>(); }
  std::vector<std::string> obs_names() const override { return lb::observable_names<M<double>>(); }
  std::pair<std::string, std::string> beyond_float() const override {
    for (const auto& p : Entry::table()) {
      if (!p.get) continue;
      std::vector<double> v(std::size_t(p.size));
      p.get(base_, v.data());
      for (int c = 0; c < p.size; ++c) {
        if (float_cannot_hold(v[std::size_t(c)]))
          return {"/model/parameters/" + std::string(p.key) + (p.size > 1 ? "/" + std::to_string(c) : ""), "its value"};
      }
    }
    // A sweep's points: a linspace or logspace is monotone, so its ends bound the range (a point
    // nearer 0 than float's smallest normal, between ends of either sign, is left to the members).
    for (const Variation& x : rule_.sweeps) {
      const std::size_t n = x.size();
      for (std::size_t j = 0; j < n; j = x.points.empty() && j + 1 < n ? n - 1 : j + 1)
        if (float_cannot_hold(x.point(j))) return {x.path, "its point " + std::to_string(j) + " (" + full_digits(x.point(j)) + ")"};
    }
    return {};
  }
  std::string refusal(const std::string& method) const override {
    std::string why;
    with_method(method, [&](auto tag) {
      using Method = typename decltype(tag)::type;
      if constexpr (!takes<Method>) why = Entry::takes_note();
      else if constexpr (!MethodFor<Method, M<double>>) why = serves_note(method);
    });
    return why;
  }
  std::string gpu_missing(const std::string& method) const override {
    if constexpr (!has_gpu) return "model '" + std::string(Entry::name) + "': " + Entry::gpu_note();
    else if (method.empty()) return "";
    else if constexpr (requires { Entry::gpu_method_missing(method); }) return Entry::gpu_method_missing(method);
    else return lb::cli::gpu_method_missing(method);
  }
  RunResult run(const RunSpec& s) const override { return s.single ? run_as<float>(s, s.gpu) : run_as<double>(s, s.gpu); }
  RunResult run_extended(const RunSpec& s) const override { return run_as<long double>(s, false); }

 private:
  P base_;                       ///< the config's fixed parameters
  M<double> model_;              ///< the model they make
  std::vector<double> initial_;  ///< the preset's state, or empty
  MemberRule rule_;

  static M<double> make(const P& p) {
    if constexpr (requires { Entry::make(p); }) return Entry::make(p);
    else return p;
  }
  /// Member i's model (the base model when nothing varies).
  M<double> model_of(std::size_t i) const {
    return i == base_model || !rule_.varies() ? model_ : make(with_member<P>(base_, Entry::table(), rule_, i));
  }
  /// Room for n members' values of the varied parameters, in member_parameters' layout.
  std::vector<std::vector<double>> parameter_columns(std::size_t n) const {
    std::vector<std::vector<double>> v;
    for (int k : varied()) v.emplace_back(std::size_t(Entry::table()[std::size_t(k)].size) * n);
    return v;
  }
  /// Member i's values of the varied parameters (`keys`: varied()) from its parameters, into v.
  static void put_parameters(const P& member, std::size_t i, const std::vector<int>& keys, std::vector<std::vector<double>>& v) {
    thread_local std::vector<double> x;  // (as with_member's scratch: nothing allocated per member)
    for (std::size_t q = 0; q < keys.size(); ++q) {
      const auto& p = Entry::table()[std::size_t(keys[q])];
      x.resize(std::size_t(p.size));
      p.get(member, x.data());
      const std::size_t n = v[q].size() / std::size_t(p.size);
      for (int c = 0; c < p.size; ++c) v[q][std::size_t(c) * n + i] = x[std::size_t(c)];
    }
  }
  /// The table's indices of the varied parameters, in its order.
  std::vector<int> varied() const {
    std::vector<int> v;
    for (const auto* list : {&rule_.sweeps, &rule_.draws})
      for (const auto& x : *list) v.push_back(x.param);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  }

  static point load(const double* y) {
    point x;
    for (int d = 0; d < space::dim; ++d) x[d] = y[d];
    return x;
  }
  static void store(const point& x, double* y) {
    for (int d = 0; d < space::dim; ++d) y[d] = x[d];
  }

  template <class T> RunResult run_as(const RunSpec& s, bool gpu) const {
    Ensemble<M<T>> e = ensemble_of(model_.template cast<T>(), s);
    RunResult r;
    if (rule_.varies()) {  // each member's parameters made once, for its model and the output
      e.model.v.assign(s.size, e.model.v[0]);
      const std::vector<int> keys = varied();
      r.parameters = parameter_columns(s.size);
      for_members(s.size, cpu_threads(s.threads), [&](std::size_t b, std::size_t end) {
        for (std::size_t k = b; k < end; ++k) {
          const P member = with_member<P>(base_, Entry::table(), rule_, s.members.empty() ? s.member0 + k : s.members[k]);
          e.model.v[k] = make(member).template cast<T>();
          put_parameters(member, k, keys, r.parameters);
        }
      });
    }
    const RunOptions o = options_of(s);
    r.state_names = state_names();
    r.obs_names = obs_names();
    if (gpu) {
      if constexpr (has_gpu && !std::is_same_v<T, long double>) {
        r.out = run_on_gpu(e, o, s).template cast<double>();
        return r;
      }
      throw std::runtime_error("device 'gpu': " + gpu_missing(s.method));
    }
    const bool built_in = with_method(s.method, [&](auto tag) {
      using Method = typename decltype(tag)::type;
      if constexpr (MethodFor<Method, M<T>> && takes<Method>) {
        r.out = with_section<T>(s, [&](const auto& sec) { return run_cpu<Method>(e, o, sec); }).template cast<double>();
      } else {
        fail_refused("/method", s.method, Entry::name, refusal(s.method));
      }
    });
    if (!built_in) {
      const auto& user = user_runs<M<T>>();
      const auto it = user.find(s.method);
      if (it == user.end()) {
        Node::fail("/method", "method '" + echo(s.method) + "' was not added for model '" + std::string(Entry::name) + "'");
      }
      r.out = it->second(e, o, s).template cast<double>();
    }
    return r;
  }
};

}  // namespace lb::cli

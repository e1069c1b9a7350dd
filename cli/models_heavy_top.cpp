// Command-line entries: the heavy top on se*(3) (Lie–Poisson) and on T*SO(3) (spatial momentum).
#include <liebatch/models/heavy_top_spatial.hpp>
#include <liebatch/sampling/energy_level.hpp>

#include "entry_util.hpp"
#include "manifold.hpp"

namespace lb::cli {
namespace {

struct HeavyTopParams {
  HeavyTop<double> top;
  bool preset;
};

HeavyTopParams parse_top(Node* p, const std::string& preset) {
  const bool bc = preset == "bruls_cardona";
  const HeavyTop<double> d = bc ? HeavyTop<double>::bruls_cardona()
                                : HeavyTop<double>{vec3(2.0, 1.5, 0.8), vec3(0.1, 0.05, 0.5), 1.0, 9.81};
  HeavyTopParams r{d, bc};
  r.top.inertia = vec3_of(positives(p, "inertia", 3, {d.inertia[0], d.inertia[1], d.inertia[2]}));
  r.top.com = vector3(p, "com", d.com);
  r.top.mass = positive(p, "mass", d.mass);
  r.top.gravity = positive(p, "gravity", d.gravity);
  return r;
}

template <class T> HeavyTop<T> cast_top(const HeavyTop<double>& t) {
  return {cast<T>(t.inertia), cast<T>(t.com), T(t.mass), T(t.gravity)};
}

struct HeavyTopEntry {
  static constexpr const char* name = "heavy_top";
  static constexpr bool energy_levels = true;
  template <class T> using model = HeavyTop<T>;
  using point = Vec6<double>;
  using Params = HeavyTopParams;
  static Params parse(Node* p, const std::string& preset) { return parse_top(p, preset); }
  template <class T> static model<T> build(const Params& p) { return cast_top<T>(p.top); }
  static std::vector<double> initial(const Params& p) {
    if (!p.preset) return {};
    const auto y = p.top.bruls_cardona_initial();
    return {y.v, y.v + 6};
  }
  static double defect(const Params&, const point& y) { return unit_defect(y.seg<3, 3>()); }  // |Γ| = 1
  static point project(const Params&, point y) {
    y.set_seg(3, (1 / norm(y.seg<3, 3>())) * y.seg<3, 3>());
    return y;
  }
  static std::vector<std::string> state_names(const Params&) { return {"Pi_x", "Pi_y", "Pi_z", "Gamma_x", "Gamma_y", "Gamma_z"}; }
  static std::vector<std::string> obs_names(const Params&) { return {"energy", "|Gamma|", "Pi.Gamma"}; }
};

struct HeavyTopSpatialEntry {
  static constexpr const char* name = "heavy_top_spatial";
  static constexpr bool energy_levels = false;
  template <class T> using model = HeavyTopSpatial<T>;
  using point = Vec<double, 12>;
  using Params = HeavyTopParams;
  static Params parse(Node* p, const std::string& preset) { return parse_top(p, preset); }
  template <class T> static model<T> build(const Params& p) { return {cast_top<T>(p.top)}; }
  static std::vector<double> initial(const Params& p) {
    if (!p.preset) return {};
    const auto y = HeavyTopSpatial<double>::from_body(Mat3<double>::identity(), p.top.bruls_cardona_initial().seg<0, 3>());
    return {y.v, y.v + 12};
  }
  static double defect(const Params&, const point& y) { return leading_rotation_defect(y); }
  static point project(const Params&, const point& y) { return project_leading_rotation(y); }
  static std::vector<std::string> state_names(const Params&) {
    return {"Q_xx", "Q_xy", "Q_xz", "Q_yx", "Q_yy", "Q_yz", "Q_zx", "Q_zy", "Q_zz", "pi_x", "pi_y", "pi_z"};
  }
  static std::vector<std::string> obs_names(const Params&) { return {"energy", "pi_z", "|QtQ - I|"}; }
};

}  // namespace

void add_heavy_top_models(std::vector<ModelInfo>& v) {
  const std::vector<std::string> params = {
      "inertia: [I1, I2, I3] principal moments about the fixed point (default [2, 1.5, 0.8])",
      "com: [X1, X2, X3] centre of mass in the body frame (default [0.1, 0.05, 0.5])",
      "mass: M > 0 (default 1)", "gravity: g > 0 (default 9.81)"};
  const std::vector<std::string> presets = {
      "bruls_cardona: the Brüls-Cardona top of [CCLMO22 §3.4.4] (M = 15, X = (0, 1, 0), thin-disk inertia moved to "
      "the fixed point) and its initial state"};
  v.push_back(info<HeavyTopEntry>("heavy top, Lie-Poisson equations on se*(3) ([CCLMO22] eqs 23-24)",
                                  "Pi (3): body angular momentum, Gamma (3): gravity direction in the body (|Gamma| = 1)",
                                  params, presets));
  v.push_back(info<HeavyTopSpatialEntry>("heavy top on T*SO(3) in the spatial momentum ([CCLMO22] eqs 21-22)",
                                         "Q (9, row-major attitude), pi (3): spatial angular momentum", params, presets));
}

}  // namespace lb::cli

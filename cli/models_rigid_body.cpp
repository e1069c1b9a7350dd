// Command-line entries: the free rigid body on so*(3) and with its attitude on SO(3) × so*(3).
#include <liebatch/models/rigid_body_attitude.hpp>
#include <liebatch/sampling/energy_level.hpp>

#include "entry_util.hpp"
#include "manifold.hpp"

namespace lb::cli {
namespace {

struct FreeRigidBodyEntry {
  static constexpr const char* name = "free_rigid_body";
  static constexpr bool energy_levels = true;
  template <class T> using model = FreeRigidBody<T>;
  using point = Vec3<double>;
  struct Params {
    Vec3<double> inertia;
  };
  static Params parse(Node* p, const std::string&) { return {vec3_of(positives(p, "inertia", 3, {2, 1, 2.0 / 3}))}; }
  template <class T> static model<T> build(const Params& p) { return {cast<T>(p.inertia)}; }
  static std::vector<double> initial(const Params&) { return {}; }
  static double defect(const Params&, const point&) { return 0; }  // every μ lies on its coadjoint orbit
  static point project(const Params&, const point& y) { return y; }
  static std::vector<std::string> state_names(const Params&) { return {"mu_x", "mu_y", "mu_z"}; }
  static std::vector<std::string> obs_names(const Params&) { return {"energy", "casimir |mu|"}; }
};

struct RigidBodyAttitudeEntry {
  static constexpr const char* name = "rigid_body_attitude";
  static constexpr bool energy_levels = false;
  template <class T> using model = RigidBodyAttitude<T>;
  using point = Vec<double, 12>;
  using Params = FreeRigidBodyEntry::Params;
  static Params parse(Node* p, const std::string& s) { return FreeRigidBodyEntry::parse(p, s); }
  template <class T> static model<T> build(const Params& p) { return {{cast<T>(p.inertia)}}; }
  static std::vector<double> initial(const Params&) { return {}; }
  static double defect(const Params&, const point& y) { return leading_rotation_defect(y); }
  static point project(const Params&, const point& y) { return project_leading_rotation(y); }
  static std::vector<std::string> state_names(const Params&) {
    return {"Q_xx", "Q_xy", "Q_xz", "Q_yx", "Q_yy", "Q_yz", "Q_zx", "Q_zy", "Q_zz", "Pi_x", "Pi_y", "Pi_z"};
  }
  static std::vector<std::string> obs_names(const Params&) { return {"energy", "|Pi|"}; }
};

}  // namespace

void add_rigid_body_models(std::vector<ModelInfo>& v) {
  const std::string inertia = "inertia: [I1, I2, I3] principal moments of inertia > 0 (default [2, 1, 0.6667])";
  v.push_back(info<FreeRigidBodyEntry>("free rigid body, mu' = mu x I^-1 mu, on so*(3) under the coadjoint action",
                                       "mu (3): body angular momentum", {inertia}, {}));
  v.push_back(info<RigidBodyAttitudeEntry>("free rigid body with attitude on SO(3) x so*(3)",
                                           "Q (9, row-major rotation), Pi (3): body angular momentum", {inertia}, {}));
}

}  // namespace lb::cli

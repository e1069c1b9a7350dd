// Command-line entries: the free rigid body on so*(3) and with its attitude on SO(3) × so*(3).
#include <liebatch/models/rigid_body_attitude.hpp>

#include "cli/models/entry_util.hpp"

namespace lb::cli {
namespace {

Vec3<double> parse_inertia(Node* p) { return vec3_of(positives(p, "inertia", 3, {2, 1, 2.0 / 3})); }

struct FreeRigidBodyEntry {
  static constexpr const char* name = "free_rigid_body";
  template <class T> using model = FreeRigidBody<T>;
  static Parsed<FreeRigidBody<double>> parse(Node* p, const std::string&) { return {{parse_inertia(p)}, {}}; }
};

struct RigidBodyAttitudeEntry {
  static constexpr const char* name = "rigid_body_attitude";
  template <class T> using model = RigidBodyAttitude<T>;
  static Parsed<RigidBodyAttitude<double>> parse(Node* p, const std::string&) { return {{{parse_inertia(p)}}, {}}; }
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

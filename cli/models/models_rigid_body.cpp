// Command-line entries: the free rigid body on so*(3) and with its attitude on SO(3) × so*(3).
#include <liebatch/models/rigid_body_attitude.hpp>

#include "cli/models/entry_util.hpp"

namespace lb::cli {
namespace {

const FreeRigidBody<double> default_body{vec3(2.0, 1.0, 2.0 / 3)};
const Param<FreeRigidBody<double>> body_params[] = {
    member<&FreeRigidBody<double>::inertia>("inertia", Domain::positive, "[I1, I2, I3] principal moments of inertia")};

FreeRigidBody<double> parse_body(Node* p) {
  FreeRigidBody<double> m = default_body;
  read_params<FreeRigidBody<double>>(p, body_params, m);
  return m;
}

struct FreeRigidBodyEntry {
  static constexpr const char* name = "free_rigid_body";
  template <class T> using model = FreeRigidBody<T>;
  static Parsed<FreeRigidBody<double>> parse(Node* p, const std::string&) { return {parse_body(p), {}}; }
};

struct RigidBodyAttitudeEntry {
  static constexpr const char* name = "rigid_body_attitude";
  template <class T> using model = RigidBodyAttitude<T>;
  static Parsed<RigidBodyAttitude<double>> parse(Node* p, const std::string&) { return {{parse_body(p)}, {}}; }
};

}  // namespace

void add_rigid_body_models(std::vector<ModelInfo>& v) {
  const auto inertia = help_lines<FreeRigidBody<double>>(body_params, default_body);
  v.push_back(info<FreeRigidBodyEntry>("free rigid body, mu' = mu x I^-1 mu, on so*(3) under the coadjoint action",
                                       "mu (3): body angular momentum", inertia, {}));
  v.push_back(info<RigidBodyAttitudeEntry>("free rigid body with attitude on SO(3) x so*(3)",
                                           "Q (9, row-major rotation), Pi (3): body angular momentum", inertia, {}));
}

}  // namespace lb::cli

// Command-line entries: the free rigid body on so*(3) and with its attitude on SO(3) × so*(3).
#include <liebatch/models/rigid_body_attitude.hpp>

#include "cli/models/entry_util.hpp"

namespace lb::cli {
namespace {

const Param<FreeRigidBody<double>> body_params[] = {
    member<&FreeRigidBody<double>::inertia>("inertia", Domain::positive, "[I1, I2, I3] principal moments of inertia")};

/// The table and the default body of both entries.
struct BodyEntry {
  using parameters = FreeRigidBody<double>;
  static std::span<const Param<FreeRigidBody<double>>> table() { return body_params; }
  static FreeRigidBody<double> base(const std::string&) { return {vec3(2.0, 1.0, 2.0 / 3)}; }
};

struct FreeRigidBodyEntry : BodyEntry {
  static constexpr const char* name = "free_rigid_body";
  template <class T> using model = FreeRigidBody<T>;
};

struct RigidBodyAttitudeEntry : BodyEntry {
  static constexpr const char* name = "rigid_body_attitude";
  template <class T> using model = RigidBodyAttitude<T>;
  static RigidBodyAttitude<double> make(const FreeRigidBody<double>& b) { return {b}; }
};

}  // namespace

void add_rigid_body_models(std::vector<ModelInfo>& v) {
  v.push_back(info<FreeRigidBodyEntry>("free rigid body, mu' = mu x I^-1 mu, on so*(3) under the coadjoint action",
                                       "mu (3): body angular momentum", {}));
  v.push_back(info<RigidBodyAttitudeEntry>("free rigid body with attitude on SO(3) x so*(3)",
                                           "Q (9, row-major rotation), Pi (3): body angular momentum", {}));
}

}  // namespace lb::cli

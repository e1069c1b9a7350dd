// The free rigid body on so*(3) written as a user's model (tests/python/test_user_models.py):
// its numbers must be the built-in free_rigid_body's, bitwise.
#include <string>
#include <vector>

#include <liebatch/coadjoint.hpp>
#include <liebatch/model_parameters.hpp>

template <class T> struct Body {
  using space = lb::CoadjointSO3<T>;
  static constexpr bool packs = true;
  lb::Vec3<T> inertia;
  static constexpr auto parameters() {
    return lb::parameters(lb::parameter<&Body::inertia>("inertia", {2, 1, 2.0 / 3}, "principal moments of inertia", lb::positive));
  }
  LB_HD lb::Vec3<T> f(T, const lb::Vec3<T>& mu) const { return lb::vec3(-mu[0] / inertia[0], -mu[1] / inertia[1], -mu[2] / inertia[2]); }
  LB_HD lb::Vec<T, 2> observables(const lb::Vec3<T>& mu) const {
    const T e = T(0.5) * (mu[0] * mu[0] / inertia[0] + mu[1] * mu[1] / inertia[1] + mu[2] * mu[2] / inertia[2]);
    return {{e, lb::norm(mu)}};
  }
  static std::vector<std::string> observable_names() { return {"energy", "casimir |mu|"}; }
  static std::vector<std::string> state_names() { return {"mu_x", "mu_y", "mu_z"}; }
  template <class U> Body<U> cast() const { return {lb::cast<U>(inertia)}; }
};

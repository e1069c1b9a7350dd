// A gyrostat: a rigid body carrying a rotor of fixed angular momentum l, μ̇ = μ × 𝕀⁻¹(μ − l) on
// so*(3). A model the command line compiles at run time (docs/user-models.md).
#include <string>
#include <vector>

#include <liebatch/coadjoint.hpp>
#include <liebatch/model_parameters.hpp>

template <class T> struct Gyrostat {
  using space = lb::CoadjointSO3<T>;
  static constexpr bool packs = true;  // members in SIMD lanes (no branches)
  lb::Vec3<T> inertia, rotor;          // principal moments 𝕀; rotor momentum l (body frame)
  static constexpr auto parameters() {
    return lb::parameters(lb::parameter<&Gyrostat::inertia>("inertia", {2, 1, 0.5}, "principal moments of inertia", lb::positive),
                          lb::parameter<&Gyrostat::rotor>("rotor", {0, 0, 0.3}, "rotor angular momentum l"));
  }
  LB_HD lb::Vec3<T> omega(const lb::Vec3<T>& mu) const {  // 𝕀⁻¹(μ − l)
    return lb::vec3((mu[0] - rotor[0]) / inertia[0], (mu[1] - rotor[1]) / inertia[1], (mu[2] - rotor[2]) / inertia[2]);
  }
  LB_HD lb::Vec3<T> f(T, const lb::Vec3<T>& mu) const { return -omega(mu); }  // ψ_*(ξ)μ = ξ × μ
  LB_HD lb::Vec<T, 2> observables(const lb::Vec3<T>& mu) const {              // energy ½(μ − l)·𝕀⁻¹(μ − l), Casimir |μ|
    return {{T(0.5) * lb::dot(mu - rotor, omega(mu)), lb::norm(mu)}};
  }
  static std::vector<std::string> observable_names() { return {"energy", "casimir |mu|"}; }
  template <class U> Gyrostat<U> cast() const { return {lb::cast<U>(inertia), lb::cast<U>(rotor)}; }
};

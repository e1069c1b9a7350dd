// Adding your own model: a gyrostat (a rigid body carrying a spinning rotor of fixed angular
// momentum l), μ̇ = μ × 𝕀⁻¹(μ − l), on so*(3) under the coadjoint action. A model is a small struct:
//   - `space`: the homogeneous space its state lives on (here so*(3), acted on by SO(3));
//   - `f(t, y)`: the algebra element whose infinitesimal action is the vector field,
//      ψ_*(f(y))|_y = ẏ. For so*(3), ψ_*(ξ)|_μ = ξ × μ, so f(μ) = −𝕀⁻¹(μ − l);
//   - optionally `observables(y)`: quantities recorded at output samples.
// Every function is LB_HD, so the same struct runs on the CPU and in a GPU kernel.
#include <cstdio>

#include <liebatch/liebatch.hpp>

#include <liebatch/ensemble/cpu.hpp>

struct Gyrostat {
  using space = lb::CoadjointSO3<double>;
  lb::Vec3<double> inertia;  // principal moments of inertia
  lb::Vec3<double> rotor;    // rotor angular momentum l (body frame)

  LB_HD lb::Vec3<double> omega(const lb::Vec3<double>& mu) const {
    return lb::vec3((mu[0] - rotor[0]) / inertia[0], (mu[1] - rotor[1]) / inertia[1], (mu[2] - rotor[2]) / inertia[2]);
  }
  LB_HD lb::Vec3<double> f(double, const lb::Vec3<double>& mu) const { return -omega(mu); }
  // Energy ½(μ − l)·𝕀⁻¹(μ − l) and the Casimir |μ|: both conserved.
  LB_HD lb::Vec<double, 2> observables(const lb::Vec3<double>& mu) const {
    return {{0.5 * lb::dot(mu - rotor, omega(mu)), lb::norm(mu)}};
  }
};

int main() {
  lb::Ensemble<Gyrostat> e;
  e.size = 1000;
  e.model.v = {{lb::vec3(2.0, 1.0, 0.5), lb::vec3(0.0, 0.0, 0.3)}};
  e.t1.v = {50.0};
  e.samples = 2;  // record t0 and t1
  e.y0.resize(3 * e.size);
  for (std::size_t i = 0; i < e.size; ++i) {  // initial momenta on the unit sphere
    const double a = 0.0063 * double(i), b = 0.9 * std::sin(0.37 * double(i));
    e.y0[0 * e.size + i] = std::cos(b) * std::cos(a);
    e.y0[1 * e.size + i] = std::cos(b) * std::sin(a);
    e.y0[2 * e.size + i] = std::sin(b);
  }
  e.control.v[0].atol = e.control.v[0].rtol = 1e-10;
  lb::RunOptions opt;
  opt.adaptive = true;
  const auto out = lb::run_cpu<lb::methods::rkmk54>(e, opt);

  double dE = 0, dC = 0;
  long steps = 0, ok = 0;
  for (std::size_t i = 0; i < e.size; ++i) {
    auto obs = [&](int k, int q) { return out.sample_obs[(std::size_t(k) * 2 + q) * e.size + i]; };
    dE = std::max(dE, std::abs(obs(1, 0) - obs(0, 0)));
    dC = std::max(dC, std::abs(obs(1, 1) - obs(0, 1)));
    steps += out.steps[i];
    ok += out.status[i] == std::uint8_t(lb::Status::ok);
  }
  std::printf("gyrostat ensemble of %zu on %s, RKMK(5,4) at tol 1e-10 to t = 50\n", e.size, out.device.c_str());
  std::printf("  %ld of %zu ok, %.0f steps per member on average\n", ok, e.size, double(steps) / double(e.size));
  std::printf("  max |energy drift| = %.2e, max | |mu| drift | = %.2e (a Casimir: round-off)\n", dE, dC);
  return ok == long(e.size) && dC < 1e-12 ? 0 : 1;
}

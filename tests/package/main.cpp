// A downstream program on the installed package: the core (exp then log on SE(3) round-trips), and
// the ensemble engine — 256 heavy tops on the CPU with samples of their observables and a Poincaré
// section, then statistics — checked against the invariants the run must keep.
#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/ensemble/device.hpp>
#include <liebatch/ensemble/statistics.hpp>
#include <liebatch/liebatch.hpp>
#include <liebatch/models/heavy_top.hpp>

#include <cmath>
#include <cstdio>

double every_method_family();  // methods.cpp

int main() {
  const lb::Vec6<double> u{{0.3, -0.2, 0.5, 1.0, 2.0, -1.0}};
  const double err = lb::norm(lb::SE3<double>::exp(u).log() - u);
  std::printf("installed liebatch: |log(exp(u)) - u| = %.1e\n", err);

  lb::Ensemble<lb::HeavyTop<double>> e;
  e.size = 256;
  e.model.v = {{lb::vec3(2.0, 1.5, 0.8), lb::vec3(0.1, 0.05, 0.5), 1.0, 9.81}};
  e.t1.v = {5.0};
  e.samples = 11;
  e.y0.resize(6 * e.size);
  for (std::size_t i = 0; i < e.size; ++i) {  // Π varies, Γ = e₃
    e.y0[0 * e.size + i] = 0.5 + 0.01 * double(i);
    e.y0[1 * e.size + i] = 1.0;
    e.y0[2 * e.size + i] = 2.0;
    e.y0[5 * e.size + i] = 1.0;
  }
  const auto where = lb::choose_device(lb::Device::cpu);
  const auto out = lb::run_cpu<lb::methods::rkmk4>(e, lb::RunOptions{}, lb::Hyperplane<double>{3, 0.0, lb::Crossing::up});
  double casimir = 0;  // | |Γ| − 1 | at the end
  long ok = 0;
  for (std::size_t i = 0; i < e.size; ++i) {
    const double g = std::hypot(out.y[3 * e.size + i], out.y[4 * e.size + i], out.y[5 * e.size + i]);
    casimir = std::fmax(casimir, std::fabs(g - 1));
    ok += out.status[i] == std::uint8_t(lb::Status::ok);
  }
  const auto stats = lb::statistics(out);
  const auto& energy0 = stats.sample(0, 0), &energy1 = stats.sample(10, 0);  // observable 0: energy
  std::printf("%s, %s: %ld of %zu ok, %zu section hits, max | |Gamma| - 1 | = %.1e, mean energy %.9f -> %.9f\n",
              where.reason.c_str(), out.device.c_str(), ok, e.size, out.hit_t.size(), casimir, energy0.mean, energy1.mean);
  const bool pass = err < 1e-14 && ok == long(e.size) && !out.hit_t.empty() && casimir < 1e-12 && energy1.count == ok &&
                    std::fabs(energy1.mean - energy0.mean) < 1e-6 * std::fabs(energy0.mean);
  return pass && every_method_family() <= 1e-9 ? 0 : 1;
}

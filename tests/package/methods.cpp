// Every method family from the installed headers: HEDOP5 on the planar pendulum (issue 33: GCC 12
// once warned that a failed solve's multiplier was read uninitialised), SLGI, Hamilton–Pontryagin
// and an explicit RKMK method on the heavy top in T*SO(3). Returns the worst invariant error.
#include <liebatch/liebatch.hpp>
#include <liebatch/methods/half_explicit.hpp>
#include <liebatch/methods/symplectic.hpp>
#include <liebatch/models/heavy_top_spatial.hpp>
#include <liebatch/models/planar_pendulum.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

double every_method_family() {
  const lb::PlanarPendulum<double> pend{9.81, 1.0};
  lb::Vec<double, 1> lambda;
  lb::consistent_multiplier(pend, pend.position(0.7), pend.velocity(0.7, 0.3), 0.0, lambda);
  const auto p =
      lb::integrate_half_explicit<lb::tableaux::hedop5>(pend, 0.0, 1.0, {pend.position(0.7), pend.velocity(0.7, 0.3), lambda}, 100);
  double worst = p.status == lb::Status::ok ? std::abs(lb::norm(p.y.q.t) - 1.0) : INFINITY;

  using Top = lb::HeavyTopSpatial<double>;
  const Top top{lb::HeavyTop<double>::bruls_cardona()};
  const Top::point y0 = Top::from_body(lb::Mat3<double>::identity(), lb::vec3(0.0, 0.46875 * 150, -15.234375 * 4.61538));
  auto vertical = [&](const auto& out) { return out.status == lb::Status::ok ? std::abs(Top::pi(out.y)[2] - Top::pi(y0)[2]) : INFINITY; };
  worst = std::max(worst, vertical(lb::integrate_fixed<lb::methods::slgi_half>(top, 0.0, 0.1, y0, 0.01, 100)));
  worst = std::max(worst, vertical(lb::integrate_fixed<lb::methods::hp_sv_exp>(top, 0.0, 0.1, y0, 0.01, 100)));
  worst = std::max(worst, vertical(lb::integrate_fixed<lb::methods::rkmk4>(top, 0.0, 0.1, y0, 0.01, 100)) > 1e-9 ? INFINITY : 0.0);
  std::printf("installed method families: HEDOP5, SLGI, HP, RKMK4; worst invariant error %.1e\n", worst);
  return worst;
}

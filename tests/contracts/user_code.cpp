// User code that breaks one contract per LB_CASE_* macro (and LB_CASE_GOOD, which keeps them all):
// compiled by contracts.cmake, which requires the error to name what is missing.
#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/methods/methods.hpp>
#include <liebatch/sphere.hpp>

#include <vector>

using Space = lb::S2<double>;
using lb::Vec3;

/// Rotation about e₃ at unit rate, the way a user writes a model, with one thing wrong per case.
struct Spin {
#ifndef LB_CASE_NO_SPACE
  using space = Space;
#endif
#ifdef LB_CASE_NOT_COPYABLE
  std::vector<double> rates;  // held by pointer: cannot be copied into GPU memory by value
#endif
#if defined(LB_CASE_WRONG_F)
  double f(double, const Vec3<double>&) const { return 1.0; }  // the rate alone, not an element of so(3)
#elif !defined(LB_CASE_NO_F)
  Vec3<double> f(double, const Vec3<double>&) const { return lb::vec3(0.0, 0.0, 1.0); }
#endif
};
/// x = 0.5, crossed upwards; with LB_CASE_SECTION_NO_DIRECTION it does not say which crossings count.
struct Plane {
  double operator()(double, const Vec3<double>& y) const { return y[0] - 0.5; }
  double rate(double, const Vec3<double>&, const Vec3<double>& F) const { return F[0]; }
#ifndef LB_CASE_SECTION_NO_DIRECTION
  lb::Crossing direction = lb::Crossing::up;
#endif
};

int main() {
  lb::Ensemble<Spin> e;
  e.size = 1;
  e.y0 = {1.0, 0.0, 0.0};
  e.model.v = {Spin{}};
  const auto out = lb::run_cpu<lb::methods::rkmk4>(e, lb::RunOptions{}, Plane{});
  return out.status[0] == std::uint8_t(lb::Status::ok) ? 0 : 1;
}

// Uses the installed headers: exp then log on SE(3) must round-trip.
#include <liebatch/liebatch.hpp>

#include <cstdio>

int main() {
  const lb::Vec6<double> u{{0.3, -0.2, 0.5, 1.0, 2.0, -1.0}};
  const double err = lb::norm(lb::SE3<double>::exp(u).log() - u);
  std::printf("installed liebatch: |log(exp(u)) - u| = %.1e\n", err);
  return err < 1e-14 ? 0 : 1;
}

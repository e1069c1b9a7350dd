// FLOPs of one RKMK4 step of a heavy top, counted on the real step code (bench/flop_counter.hpp),
// for bench_throughput's FLOP/s.
#include "flop_counter.hpp"

#include <liebatch/liebatch.hpp>
#include <liebatch/models/heavy_top.hpp>

long heavy_top_rkmk4_flops(const lb::HeavyTop<double>& t, const double* y0, double h) {
  using C = lb::bench::Counted;
  const lb::HeavyTop<C> top{lb::vec3(C(t.inertia[0]), C(t.inertia[1]), C(t.inertia[2])),
                            lb::vec3(C(t.com[0]), C(t.com[1]), C(t.com[2])), C(t.mass), C(t.gravity)};
  lb::Vec6<C> y;
  for (int d = 0; d < 6; ++d) y[d] = C(y0[d]);
  C::reset();
  (void)lb::methods::rkmk4::step(top, C(0), y, C(h));
  return C::flops();
}

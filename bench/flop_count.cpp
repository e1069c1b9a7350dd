// FLOPs per step of every model × method, counted by running the real step code on a counting
// scalar (bench/flop_counter.hpp). They turn measured trajectory-steps/s into FLOP/s and a fraction
// of a device's peak (bench/RESULTS.md). Counts depend on the state only through branches (the
// series tier of exp/dexp⁻¹ below angle 0.25, or 1.5 for dexp⁻¹): each column states its step.
#include <cstdio>
#include <string>
#include <vector>

#include "flop_counter.hpp"

#include <liebatch/liebatch.hpp>
#include <liebatch/models/free_rigid_body.hpp>
#include <liebatch/models/heavy_top.hpp>
#include <liebatch/models/load_transport.hpp>
#include <liebatch/models/lorenz.hpp>
#include <liebatch/models/pendulum_chain.hpp>

using lb::bench::Counted;
using T = Counted;

template <class Method, class Model> long count(const Model& m, const typename Model::space::point& y, T h, long* special) {
  Counted::reset();
  const auto r = Method::step(m, T(0), y, h);
  (void)r;
  *special = Counted::special;
  return Counted::flops();
}

struct Column {
  std::string name;
  std::vector<long> flops, special;
};

template <class Model> Column column(const std::string& name, const Model& m, const typename Model::space::point& y, T h) {
  Column c{name, {}, {}};
  auto add = [&](auto tag) {
    using M = typename decltype(tag)::type;
    long s = 0;
    c.flops.push_back(count<M>(m, y, h, &s));
    c.special.push_back(s);
  };
#define LB_METHOD_ADD(m, w, ...) add(std::type_identity<lb::methods::m>{});
  LB_METHODS(LB_METHOD_ADD)
#undef LB_METHOD_ADD
  return c;
}

int main() {
  // The counter itself: (a·b + c)/d − √a is one of each operation and one special function.
  {
    Counted::reset();
    const T a(2), b(3), c(4), d(5);
    (void)((a * b + c) / d - sqrt(a));
  }
  if (Counted::mul != 1 || Counted::add != 2 || Counted::div != 1 || Counted::special != 1) {
    std::fprintf(stderr, "flop_count: the counter is wrong\n");
    return 1;
  }
#define LB_METHOD_NAME(m, w, ...) #m,
  const char* methods[] = {LB_METHODS(LB_METHOD_NAME)};
#undef LB_METHOD_NAME
  std::vector<Column> cols;
  // The heavy top of bench_throughput (h = 1e-3) and a free rigid body: the step angle is small.
  const lb::HeavyTop<T> top{lb::vec3(T(2), T(1.5), T(0.8)), lb::vec3(T(0.1), T(0.05), T(0.5)), T(1), T(9.81)};
  cols.push_back(column("heavy top h=1e-3", top, lb::Vec6<T>{{T(0.5), T(1), T(2), T(0.2), T(0.1), T(0.974679)}}, T(1e-3)));
  cols.push_back(column("rigid body h=1e-2", lb::FreeRigidBody<T>{lb::vec3(T(2), T(1), T(2) / T(3))}, lb::vec3(T(0.3), T(0.8), T(0.5)), T(1e-2)));
  const T s = T(0.7071067811865476);
  lb::PendulumChain<T, 2> p2{{T(1), T(1)}, {T(1), T(1)}, T(9.81)};
  cols.push_back(column("pendulum N=2 h=1e-2", p2, lb::Vec<T, 12>{{s, T(0), s, T(0), T(1), T(0), s, T(0), s, T(0), T(1), T(0)}}, T(1e-2)));
  lb::PendulumChain<T, 20> p20;
  lb::Vec<T, 120> y20;
  for (int i = 0; i < 20; ++i) {
    p20.mass[i] = T(1);
    p20.length[i] = T(0.25);
    const T v[6] = {s, T(0), s, T(0), T(1), T(0)};
    for (int d = 0; d < 6; ++d) y20[6 * i + d] = v[d];
  }
  p20.gravity = T(9.81);
  cols.push_back(column("pendulum N=20 h=1e-3", p20, y20, T(1e-3)));
  using Path = lb::ParabolicPath<T>;
  const lb::QuadrotorLoad<T, lb::LoadTransport<T, Path>> quad{lb::QuadrotorLoadParams<T>::paper(),
                                                              lb::LoadTransport<T, Path>::paper(Path::paper())};
  cols.push_back(column("quadrotors h=2.5e-3", quad, lb::QuadrotorLoadState<T>::paper_initial(), T(2.5e-3)));
  cols.push_back(column("lorenz h=1e-3", lb::Lorenz<T>{}, lb::vec3(T(1), T(2), T(20)), T(1e-3)));

  std::printf("FLOPs per step (+ - x /; special functions in parentheses), one step of each method:\n\n| method |");
  for (const auto& c : cols) std::printf(" %s |", c.name.c_str());
  std::printf("\n|---|");
  for (std::size_t k = 0; k < cols.size(); ++k) std::printf("---|");
  std::printf("\n");
  for (std::size_t m = 0; m < std::size(methods); ++m) {
    std::printf("| %s |", methods[m]);
    for (const auto& c : cols) std::printf(" %ld (%ld) |", c.flops[m], c.special[m]);
    std::printf("\n");
  }
  return 0;
}

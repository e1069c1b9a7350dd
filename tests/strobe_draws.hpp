// Draws of stroboscopic maps for the property "every strobe is recorded once" (issue 33, item 2):
// tests/test_sections.cpp runs them through the CPU engines and the emulated GPU path,
// tests/ensemble_gpu_strobes.cu through the device.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <liebatch/ensemble/engine.hpp>
#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/models/pendulum_chain.hpp>
#include "ensembles.hpp"

namespace lbtest {

using P1 = lb::PendulumChain<double, 1>;

struct StrobeDraw {
  lb::Stroboscopic<double> sec;
  lb::Ensemble<P1> e;
};

/// One section and `n` members with their own t₀, t₁ and h: decimals (hundredths) or binary
/// fractions, so that strobes fall on grid points in exact arithmetic and near them in floating point.
inline StrobeDraw strobe_draw(std::mt19937_64& rng, std::size_t n, bool binary) {
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const double unit = binary ? std::ldexp(1.0, -uniform(5, 8)) : 0.01;  // the grid of every number drawn
  // h ≤ 0.12 (decimal) or 0.375 (binary) keeps RKMK4 on the pendulum (ω ≈ 3) far from failing.
  const int hk = uniform(2, 6), tk = std::array<int, 5>{hk, 2 * hk, 3 * hk, std::max(1, hk / 2), uniform(1, 30)}[uniform(0, 4)];
  StrobeDraw d{{uniform(-300, 300) * unit, tk * unit}, released_pendulums(n, 1.0)};
  d.e.t0.v.resize(n);
  d.e.t1.v.resize(n);
  d.e.control.v.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    d.e.t0.v[i] = uniform(-200, 200) * unit;
    d.e.t1.v[i] = d.e.t0.v[i] + uniform(1, 100) * unit;
    d.e.control.v[i].h = hk * unit * std::array<double, 4>{1, 1, 0.5, 2}[uniform(0, 3)];
    d.e.control.v[i].atol = d.e.control.v[i].rtol = 1e-8;
  }
  d.e.max_hits = 128;  // every strobe of a member kept: a span of at most 100 units, a period of at least 1
  return d;
}

/// "" when member i recorded exactly the strobes in (t₀, t₁], each once and in order.
inline std::string strobe_mismatch(const StrobeDraw& d, const lb::EnsembleOutput<double>& out) {
  std::size_t r = 0;
  for (std::size_t i = 0; i < d.e.size; ++i) {
    std::vector<double> want;  // tₖ as the engine computes it: k a double, every whole number
    for (double k = std::floor((d.e.t0[i] - d.sec.t0) / d.sec.period) - 1;; k += 1) {
      const double tk = d.sec.t0 + k * d.sec.period;
      if (tk > d.e.t1[i]) break;
      if (tk > d.e.t0[i]) want.push_back(tk);
    }
    std::vector<double> got;
    for (; r < out.hit_t.size() && out.hit_member[r] == i; ++r) got.push_back(out.hit_t[r]);
    if (out.status[i] != std::uint8_t(lb::Status::ok)) return "member " + std::to_string(i) + " failed: the draw's step is too long";
    if (got != want || out.hits[i] != long(want.size()) || out.lost_hits[i] != 0) {
      char msg[320];
      std::snprintf(msg, sizeof msg, "member %zu (t0 %.17g, t1 %.17g, h %.17g; strobes t0 %.17g, period %.17g): %zu recorded, %zu expected",
                    i, d.e.t0[i], d.e.t1[i], d.e.control[i].h, d.sec.t0, d.sec.period, got.size(), want.size());
      return msg;
    }
  }
  return r == out.hit_t.size() ? "" : "records of no member";
}

/// B's run of 100 draws against run_cpu's: the CPU records each strobe once (strobe_mismatch) and B
/// records the same strobes, member by member, at bitwise the same times (section.hpp computes tₖ
/// with mul_rn, which nvcc does not contract into an FMA), with the same statuses. "" when all
/// holds; `strobes` counts them.
template <class B, class Method, bool adaptive> std::string strobes_against_cpu(long& strobes) {
  std::mt19937_64 rng(33);
  lb::RunOptions o;
  o.adaptive = adaptive;
  strobes = 0;
  for (int g = 0; g < 100; ++g) {
    const StrobeDraw d = strobe_draw(rng, 100, g % 2);  // as test_sections.cpp draws them
    const auto cpu = lb::run_cpu<Method>(d.e, o, d.sec);
    const auto dev = lb::run_batched<B, Method>(d.e, o, d.sec);
    const std::string where = "draw " + std::to_string(g) + ": ";
    if (const std::string m = strobe_mismatch(d, cpu); !m.empty()) return where + "CPU: " + m;
    for (std::size_t i = 0; i < d.e.size; ++i)
      if (dev.status[i] != cpu.status[i] || dev.hits[i] != cpu.hits[i] || dev.lost_hits[i] != cpu.lost_hits[i]) {
        char msg[200];
        std::snprintf(msg, sizeof msg, "member %zu: status %d, %ld strobes, %ld lost on the device; %d, %ld, %ld on the CPU", i,
                      int(dev.status[i]), long(dev.hits[i]), long(dev.lost_hits[i]), int(cpu.status[i]), long(cpu.hits[i]),
                      long(cpu.lost_hits[i]));
        return where + msg;
      }
    if (dev.hit_member != cpu.hit_member) return where + "the records are in another order";
    for (std::size_t r = 0; r < cpu.hit_t.size(); ++r) {
      if (dev.hit_t[r] != cpu.hit_t[r]) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "record %zu at t = %.17g, the CPU's at %.17g", r, dev.hit_t[r], cpu.hit_t[r]);
        return where + msg;
      }
    }
    strobes += long(cpu.hit_t.size());
  }
  return "";
}

}  // namespace lbtest

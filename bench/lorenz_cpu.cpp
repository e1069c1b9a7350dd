// The Lorenz ensemble of the DiffEqGPU [Utk24] / MPGOS [NPH21] benchmark on the CPU, three ways in
// one run and one binary (-O3 -march=native -ffp-contract=off -fopenmp for all): liebatch's run_cpu
// (RKMK4 on ℝ³ is classical RK4) on packs of members and one member at a time (RunOptions::simd),
// Boost.odeint's runge_kutta4 with OpenMP over members, and a plain
// structure-of-arrays RK4 loop whose members sit in the vector lanes (the machine's limit for this
// work); beside them the core's measured FMA peak (bench/RESULTS.md). Given the command's program,
// it also runs `liebatch run` of the same sweep from a config (ρ a per-member linspace) and sets its
// wall time, HDF5 file written, against the in-process run_cpu call (issue 38's end-to-end target).
// Usage: bench_lorenz_cpu [members (131072)] [steps (1000)] [path of liebatch]
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <boost/numeric/odeint.hpp>
#include <omp.h>

#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/methods/methods.hpp>
#include <liebatch/models/lorenz.hpp>

#include "fma_peak.hpp"
#include "timing.hpp"

namespace {

constexpr double sigma = 10, beta = 8.0 / 3, dt = 0.001;

/// ρ of member i: swept over [0, 21] as in the benchmark; every member starts at (1, 0, 0).
template <class T> T rho(std::size_t i, std::size_t n) { return T(21.0 * double(i) / double(n > 1 ? n - 1 : 1)); }

/// Final states, member-major (x, y, z of member i at 3i).
template <class T> using States = std::vector<T>;

/// Where a run_cpu call's time goes: the call, and its integration alone (EnsembleOutput::
/// integrate_seconds); the rest is the host side (buffers, initial states in, outputs out).
struct Phases {
  double call = 0, integrate = 0;
};

template <class T> States<T> with_liebatch(std::size_t n, int steps, bool simd, Phases* phases = nullptr) {
  lb::Ensemble<lb::Lorenz<T>> e;
  e.size = n;
  e.model.v.resize(n);
  for (std::size_t i = 0; i < n; ++i) e.model.v[i] = {T(sigma), rho<T>(i, n), T(beta)};
  e.t1.v = {T(dt * steps)};
  lb::StepControl<T> c;
  c.h = T(dt);
  c.max_attempts = steps + 1;
  e.control.v = {c};
  e.y0.assign(3 * n, T(0));
  std::fill(e.y0.begin(), e.y0.begin() + long(n), T(1));
  lb::RunOptions o;
  o.simd = simd;
  o.threads = omp_get_max_threads();  // as many as the peers (OMP_NUM_THREADS)
  lb::EnsembleOutput<T> out;
  const double call = lb::bench::seconds([&] { out = lb::run_cpu<lb::methods::rkmk4>(e, o); });
  if (phases) *phases = {call, out.integrate_seconds};
  States<T> y(3 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) y[3 * i + std::size_t(d)] = out.y[std::size_t(d) * n + i];
  return y;
}

template <class T> States<T> with_odeint(std::size_t n, int steps) {
  using State = std::array<T, 3>;
  States<T> y(3 * n);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < long(n); ++i) {
    const T r = rho<T>(std::size_t(i), n);
    const auto f = [r](const State& u, State& du, T) {
      du = {T(sigma) * (u[1] - u[0]), u[0] * (r - u[2]) - u[1], u[0] * u[1] - T(beta) * u[2]};
    };
    boost::numeric::odeint::runge_kutta4<State, T, State, T> rk4;
    State u{T(1), T(0), T(0)};
    for (int k = 0; k < steps; ++k) rk4.do_step(f, u, T(dt) * T(k), T(dt));
    for (int d = 0; d < 3; ++d) y[3 * std::size_t(i) + std::size_t(d)] = u[std::size_t(d)];
  }
  return y;
}

/// Members in blocks that stay in cache for all steps; the loop over a block's members vectorises.
template <class T> States<T> with_soa_loop(std::size_t n, int steps) {
  constexpr std::size_t block = 512;
  States<T> y(3 * n);
#pragma omp parallel for schedule(static)
  for (long b0 = 0; b0 < long(n); b0 += long(block)) {
    const std::size_t nb = std::min(block, n - std::size_t(b0));
    alignas(64) T x[block], v[block], z[block], r[block];
    for (std::size_t i = 0; i < nb; ++i) { x[i] = T(1); v[i] = T(0); z[i] = T(0); r[i] = rho<T>(std::size_t(b0) + i, n); }
    const T h = T(dt), s = T(sigma), be = T(beta);
    for (int k = 0; k < steps; ++k) {
#pragma omp simd
      for (std::size_t i = 0; i < nb; ++i) {
        const T x0 = x[i], y0 = v[i], z0 = z[i], ri = r[i];
        const T k1x = s * (y0 - x0), k1y = x0 * (ri - z0) - y0, k1z = x0 * y0 - be * z0;
        const T x1 = x0 + h / 2 * k1x, y1 = y0 + h / 2 * k1y, z1 = z0 + h / 2 * k1z;
        const T k2x = s * (y1 - x1), k2y = x1 * (ri - z1) - y1, k2z = x1 * y1 - be * z1;
        const T x2 = x0 + h / 2 * k2x, y2 = y0 + h / 2 * k2y, z2 = z0 + h / 2 * k2z;
        const T k3x = s * (y2 - x2), k3y = x2 * (ri - z2) - y2, k3z = x2 * y2 - be * z2;
        const T x3 = x0 + h * k3x, y3 = y0 + h * k3y, z3 = z0 + h * k3z;
        const T k4x = s * (y3 - x3), k4y = x3 * (ri - z3) - y3, k4z = x3 * y3 - be * z3;
        x[i] = x0 + h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
        v[i] = y0 + h / 6 * (k1y + 2 * k2y + 2 * k3y + k4y);
        z[i] = z0 + h / 6 * (k1z + 2 * k2z + 2 * k3z + k4z);
      }
    }
    for (std::size_t i = 0; i < nb; ++i) {
      const std::size_t m = std::size_t(b0) + i;
      y[3 * m] = x[i]; y[3 * m + 1] = v[i]; y[3 * m + 2] = z[i];
    }
  }
  return y;
}

/// max over members and components of |a − b| / max(1, |b|).
template <class T> double max_rel(const States<T>& a, const States<T>& b) {
  double d = 0;
  for (std::size_t k = 0; k < a.size(); ++k)
    d = std::max(d, std::abs(double(a[k]) - double(b[k])) / std::max(1.0, std::abs(double(b[k]))));
  return d;
}

/// The packs' run_cpu call of the last rows<T>.
template <class T> Phases phases;

template <class T> void rows(const char* precision, std::size_t n, int steps) {
  States<T> a, s, b, c;
  const double work = double(n) * steps;
  const double ta = lb::bench::seconds([&] { a = with_liebatch<T>(n, steps, true, &phases<T>); });
  const double ts = lb::bench::seconds([&] { s = with_liebatch<T>(n, steps, false); });
  const double tb = lb::bench::seconds([&] { b = with_odeint<T>(n, steps); });
  const double tc = lb::bench::seconds([&] { c = with_soa_loop<T>(n, steps); });
  const double peak = lb::bench::fma_peak<T>(omp_get_max_threads());
  // RK4 on Lorenz: 4 evaluations of 10 FLOPs (8 with FMA) plus 24 for the stages and update ≈ 64.
  constexpr double flops_per_step = 64;
  std::printf("| %s | %.3e | %.3e | %.3e | %.3e | %.2f | %.2f | %.2f | %.1f | %.1f %% | %s | %.1e | %.1e |\n", precision, work / ta,
              work / ts, work / tb, work / tc, ts / ta, tb / ta, ta / tc, peak / 1e9, 100 * flops_per_step * work / ta / peak,
              a == s ? "bitwise" : "differ", max_rel(a, b), max_rel(c, b));
}

/// Wall seconds of `liebatch run` on the sweep of rows<T>, writing its HDF5 file in `dir` (median
/// of 3; the file's bytes into `bytes`), or NaN where the program failed.
double with_command(const std::string& exe, const std::filesystem::path& dir, const char* precision, std::size_t n, int steps,
                    std::uintmax_t& bytes) {
  const auto config = dir / "lorenz.json", output = dir / "lorenz.h5";
  std::ofstream(config) << "{\"model\": {\"name\": \"lorenz\", \"parameters\": {\"rho\": {\"linspace\": [0, 21, " << n
                        << "]}}},\n \"method\": \"rkmk4\", \"time\": {\"t0\": 0, \"t1\": " << dt * steps << "}, \"step\": {\"h\": " << dt
                        << "}, \"initial\": {\"state\": [1, 0, 0]}}\n";
  const std::string threads = std::to_string(omp_get_max_threads());
  std::vector<std::string> args = {exe, "run", config, "-o", output, "--threads", threads, "--precision", precision};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t quiet;  // the run's summary is not the benchmark's
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<double> walls;
  for (int r = 0; r < 3; ++r) {
    std::filesystem::remove(output);
    int status = -1;
    const double wall = lb::bench::seconds([&] {
      pid_t pid;
      if (posix_spawn(&pid, exe.c_str(), &quiet, nullptr, argv.data(), environ) == 0) waitpid(pid, &status, 0);
    });
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) break;
    walls.push_back(wall);
  }
  posix_spawn_file_actions_destroy(&quiet);
  if (walls.size() < 3) return std::nan("");
  bytes = std::filesystem::file_size(output);
  std::sort(walls.begin(), walls.end());
  return walls[1];
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 131072;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 1000;
  std::printf("Lorenz ensemble, %zu members (rho swept over [0, 21]), %d RK4 steps of %g, %d threads, all end points\n\n", n, steps,
              dt, omp_get_max_threads());
  std::printf("| precision | liebatch run_cpu, packs (traj-steps/s) | run_cpu, one member at a time | Boost.odeint rk4 + OpenMP | "
              "SoA loop in vector lanes | packs / one at a time | packs / odeint | SoA / packs | FMA peak (GFLOP/s) | packs of peak | "
              "packs vs one at a time | odeint vs packs | SoA vs odeint |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
  rows<double>("double", n, steps);
  rows<float>("float", n, steps);
  std::printf(
      "\n(the last two columns: largest relative difference of the end points, which the three compute the same way up "
      "to rounding and FMA contraction)\n\n");
  std::printf(
      "| run_cpu call on packs | call (ms) | integration (ms) | host side: buffers, initial states, outputs (ms) | "
      "call / integration |\n|---|---:|---:|---:|---:|\n");
  for (const auto& [precision, p] : {std::pair{"double", phases<double>}, std::pair{"float", phases<float>}})
    std::printf("| %s | %.1f | %.1f | %.1f | %.3f |\n", precision, 1e3 * p.call, 1e3 * p.integrate, 1e3 * (p.call - p.integrate),
                p.call / p.integrate);
  if (argc > 3) {
    char tmpl[] = "/tmp/bench_lorenz_cpu.XXXXXX";
    if (!mkdtemp(tmpl)) return 1;
    const std::filesystem::path dir = tmpl;
    std::printf(
        "\n| `liebatch run` of the sweep (ρ a linspace in the config), HDF5 written | wall (ms, median of 3) | run_cpu call in "
        "process (ms) | command / call | file (MB) |\n|---|---:|---:|---:|---:|\n");
    for (const auto& [precision, p] : {std::pair{"double", phases<double>}, std::pair{"float", phases<float>}}) {
      std::uintmax_t bytes = 0;
      const double wall = with_command(argv[3], dir, precision, n, steps, bytes);
      std::printf("| %s | %.1f | %.1f | %.2f | %.1f |\n", precision, 1e3 * wall, 1e3 * p.call, wall / p.call, double(bytes) / 1e6);
    }
    std::filesystem::remove_all(dir);
  }
}

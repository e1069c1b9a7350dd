// Cost of the N-fold pendulum's vector field against N: the O(N) structured solve of
// models/pendulum_chain.hpp next to the dense baseline that [CCLMO22 §5.2] suggests (build the
// 3N×3N matrix R(q) and factor it with partial-pivoting LU, Eigen), in the same run; both fields
// are compared first. Also the cost of one RKMK4 step. Prints a table and fitted exponents.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include <liebatch/liebatch.hpp>
#include <liebatch/models/pendulum_chain.hpp>
// pack.hpp before Eigen: it reads <immintrin.h> first, inside the pragma that silences GCC 12's false
// uninitialised reports of the AVX-512 intrinsics (bug 105593), which Eigen's kernels trigger too.
#include <liebatch/pack.hpp>
#include <Eigen/Dense>

namespace {

volatile double sink;

/// The paper's form: R(q) h = F with R_ii = M_ii I, R_ij = M_ij q̂ᵢᵀq̂ⱼ; f = (ωᵢ, qᵢ × hᵢ).
template <int N> lb::Vec<double, 6 * N> dense_field(const lb::PendulumChain<double, N>& m, const lb::Vec<double, 6 * N>& y) {
  Eigen::Matrix<double, 3 * N, 3 * N> R;
  Eigen::Matrix<double, 3 * N, 1> F;
  double mu[N];
  mu[N - 1] = m.mass[N - 1];
  for (int k = N - 2; k >= 0; --k) mu[k] = mu[k + 1] + m.mass[k];
  auto hat = [](const lb::Vec3<double>& v) {
    Eigen::Matrix3d h;
    h << 0, -v[2], v[1], v[2], 0, -v[0], -v[1], v[0], 0;
    return h;
  };
  for (int i = 0; i < N; ++i) {
    const auto qi = m.q(y, i);
    const Eigen::Matrix3d Hi = hat(qi);
    Eigen::Vector3d Fi = -m.gravity * m.length[i] * mu[i] * (Hi * Eigen::Vector3d::UnitZ());
    for (int j = 0; j < N; ++j) {
      const double Mij = mu[i > j ? i : j] * m.length[i] * m.length[j];
      if (i == j) {
        R.template block<3, 3>(3 * i, 3 * j) = Mij * Eigen::Matrix3d::Identity();
      } else {
        const auto qj = m.q(y, j);
        R.template block<3, 3>(3 * i, 3 * j) = Mij * Hi.transpose() * hat(qj);
        Fi += Mij * lb::norm2(m.w(y, j)) * (Hi * Eigen::Vector3d(qj[0], qj[1], qj[2]));
      }
    }
    F.template segment<3>(3 * i) = Fi;
  }
  const Eigen::Matrix<double, 3 * N, 1> h = R.partialPivLu().solve(F);
  lb::Vec<double, 6 * N> out;
  for (int i = 0; i < N; ++i) {
    out.set_seg(6 * i, m.w(y, i));
    out.set_seg(6 * i + 3, lb::cross(m.q(y, i), lb::vec3(h(3 * i), h(3 * i + 1), h(3 * i + 2))));
  }
  return out;
}

template <class F> double ns_per_call(F&& f) {
  long reps = 1;
  for (;;) {
    const auto a = std::chrono::steady_clock::now();
    for (long r = 0; r < reps; ++r) f();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
    if (s > 0.2) return 1e9 * s / double(reps);
    reps *= 2;
  }
}

struct Row { int n; double structured, dense, step; };

template <int N> Row measure() {
  std::mt19937_64 rng(N);
  std::normal_distribution<double> g;
  lb::PendulumChain<double, N> m;
  for (int i = 0; i < N; ++i) { m.mass[i] = 1; m.length[i] = 5.0 / N; }
  m.gravity = 9.81;
  lb::Vec<double, 6 * N> y;
  for (int i = 0; i < N; ++i) {
    auto q = lb::vec3(g(rng), g(rng), g(rng));
    q *= 1 / lb::norm(q);
    auto w = lb::vec3(g(rng), g(rng), g(rng));
    w -= lb::dot(w, q) * q;
    y.set_seg(6 * i, q);
    y.set_seg(6 * i + 3, w);
  }
  const double diff = lb::norm_inf(m.f(0, y) - dense_field<N>(m, y)) / lb::norm_inf(m.f(0, y));
  if (!(diff < 1e-10)) std::printf("N = %d: structured and dense fields differ by %.1e\n", N, diff);
  Row r{N, 0, 0, 0};
  r.structured = ns_per_call([&] { sink = m.f(0, y)[3]; });
  r.dense = ns_per_call([&] { sink = dense_field<N>(m, y)[3]; });
  r.step = ns_per_call([&] { sink = lb::methods::rkmk4::step(m, 0.0, y, 1e-3).y[0]; });
  return r;
}

double slope(const Row* r, int a, int b, double Row::*field) {
  return std::log(r[b].*field / r[a].*field) / std::log(double(r[b].n) / r[a].n);
}

}  // namespace

int main() {
  const Row rows[] = {measure<1>(), measure<2>(), measure<3>(), measure<5>(), measure<10>(), measure<20>(), measure<32>()};
  std::printf("%4s %16s %16s %8s %18s\n", "N", "f structured ns", "f dense LU ns", "ratio", "RKMK4 step ns");
  for (const Row& r : rows) std::printf("%4d %16.0f %16.0f %8.1f %18.0f\n", r.n, r.structured, r.dense, r.dense / r.structured, r.step);
  std::printf("fitted exponent, N = 5 ... 32: structured f %.2f, dense f %.2f, RKMK4 step %.2f\n",
              slope(rows, 3, 6, &Row::structured), slope(rows, 3, 6, &Row::dense), slope(rows, 3, 6, &Row::step));
  return 0;
}

// Two quadrotors carrying a load along a parabola ([CCLMO22 §6.2], Figs. 14–18): RKMK4 with 2000
// steps on [0, 5] under the Lee–Sreenath–Kumar load-transport controller [LSK13]. Writes
// quadrotor_load.csv and, when gnuplot is installed, quadrotor_load.png (path in the x–z plane
// with snapshots of the links, tracking error and |qᵢ| − 1 against time).
// Usage: quadrotor_load [output directory]. Exit status 0 when the load tracks the path (error on
// [4, 5] below 1e-3 of the initial one) and the invariants hold to 1e-13.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <liebatch/liebatch.hpp>
#include <liebatch/models/load_transport.hpp>

#include "gnuplot_png.hpp"

int main(int argc, char** argv) {
  using Path = lb::ParabolicPath<double>;
  using S = lb::QuadrotorLoadState<double>;
  const lb::QuadrotorLoad<double, lb::LoadTransport<double, Path>> m{
      lb::QuadrotorLoadParams<double>::paper(), lb::LoadTransport<double, Path>::paper(Path::paper())};
  const std::string dir = argc > 1 ? argv[1] : ".";
  const std::string csv = dir + "/quadrotor_load.csv";
  std::FILE* out = std::fopen(csv.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "quadrotor_load: cannot write %s\n", csv.c_str());
    return 2;
  }
  // Altitude is −z (e₃ points down).
  std::fprintf(out, "# t, (x, y, altitude) of: load, desired load, quad 1, quad 2; tracking error, |q1|-1, |q2|-1\n");
  const int n = 2000;
  const double h = 5.0 / n;
  auto P = S::paper_initial();
  double e0 = 0, late = 0, inv = 0;
  for (int k = 0; k <= n; ++k) {
    const double t = k * h;
    if (k > 0) P = lb::methods::rkmk4::step(m, t - h, P, h).y;
    lb::Vec3<double> yd[5];
    m.control.path(t, yd);
    const auto y = S::y(P), x1 = S::position(P, m.params, 0), x2 = S::position(P, m.params, 1);
    const double e = lb::norm(y - yd[0]);
    const auto obs = m.observables(P);
    if (k == 0) e0 = e;
    if (t >= 4) late = std::max(late, e);
    for (int j = 0; j < 5; ++j) inv = std::max(inv, std::abs(obs[j]) / (j == 2 || j == 3 ? 1 + lb::norm(S::w(P, j - 2)) : 1.0));
    std::fprintf(out, "%.6f", t);
    for (const auto& p : {y, yd[0], x1, x2}) std::fprintf(out, " %.9e %.9e %.9e", p[0], p[1], -p[2]);
    std::fprintf(out, " %.9e %.3e %.3e\n", e, obs[0], obs[1]);
  }
  std::fclose(out);
  std::printf("two quadrotors + load, RKMK4, h = %g on [0, 5]\n", h);
  std::printf("  tracking error %.2f at t = 0, at most %.1e on [4, 5]\n", e0, late);
  std::printf("  worst |qi| - 1, qi.wi/(1+|wi|), |RiᵀRi - I|: %.1e\n", inv);
  std::printf("  wrote %s\n", csv.c_str());

  // Columns: 1 t, 2–4 load, 5–7 desired, 8–10 quadrotor 1, 11–13 quadrotor 2, 14 error, 15–16 |qᵢ| − 1.
  examples::gnuplot_png("quadrotor_load", dir, "quadrotor_load.png",
      "set terminal pngcairo size 1300,520 font ',10'; set output 'quadrotor_load.png';"
      "set multiplot layout 1,2 title 'Two quadrotors carrying a load ([CCLMO22 §6.2]), RKMK4, h = 2.5e-3';"
      "set xlabel 'x'; set ylabel 'y'; set zlabel 'altitude' rotate; set view 70,20; set view equal xyz; set yrange [-1:1]; set ytics 1; set xyplane 0; set key top right;"
      "splot 'quadrotor_load.csv' u 5:6:7 w l lw 2 lc rgb 'red' t 'desired parabola', '' u 2:3:4 w l lw 1.5 lc rgb 'blue' t 'load',"
      " '' every 200 u 8:9:10:($2-$8):($3-$9):($4-$10) w vectors nohead lc rgb 'gray40' t 'links (every 0.5 s)',"
      " '' every 200 u 11:12:13:($2-$11):($3-$12):($4-$13) w vectors nohead lc rgb 'gray40' notitle,"
      " '' every 200 u 8:9:10 w p pt 7 ps 0.8 lc rgb 'black' t 'quadrotors', '' every 200 u 11:12:13 w p pt 7 ps 0.8 lc rgb 'black' notitle;"
      "set yrange [*:*]; set ytics autofreq; set logscale y; set format y '10^{%L}'; set xlabel 't'; set ylabel ''; set key top right;"
      "plot 'quadrotor_load.csv' u 1:14 w l lw 2 t '|y - y_d|', '' u 1:(abs($15)+1e-17) w l t '||q_1| - 1|',"
      " '' u 1:(abs($16)+1e-17) w l t '||q_2| - 1|';"
      "unset multiplot");
  return late <= 1e-3 * e0 && inv <= 1e-13 ? 0 : 1;
}

#include "plot.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace lb::cli {

bool gnuplot_available() { return std::system("command -v gnuplot > /dev/null 2>&1") == 0; }

namespace {
std::string quote(const std::string& s) {
  std::string r;
  for (char c : s) r += (c == '\'' ? std::string("''") : std::string(1, c));
  return "'" + r + "'";
}
/// Text for a title or label: underscores kept literal in gnuplot's enhanced mode.
std::string label(const std::string& s) {
  std::string r;
  for (char c : s) r += c == '_' ? std::string("\\_") : std::string(1, c);
  return quote(r);
}
}  // namespace

std::string plot(const std::string& png, const PlotSpec& spec, const std::vector<Series>& series) {
  namespace fs = std::filesystem;
  if (!gnuplot_available()) return "gnuplot not found (install gnuplot-nox)";
  std::error_code ec;
  const fs::path dir = fs::temp_directory_path(ec) / ("liebatch-plot-" + std::to_string(::getpid()));
  fs::create_directories(dir, ec);
  if (ec) return "cannot create a temporary directory: " + ec.message();
  const std::string tmp_png = png + ".tmp-" + std::to_string(::getpid()) + ".png";
  std::ofstream gp(dir / "plot.gp");
  gp << "set terminal pngcairo size 1000,700 font ',11'\nset output " << quote(tmp_png) << "\n"
     << "set title " << label(spec.title) << "\nset xlabel " << label(spec.xlabel) << "\nset ylabel " << label(spec.ylabel) << "\n"
     << "set grid\nset key outside right\n";
  if (spec.logx) gp << "set logscale x\nset format x '10^{%L}'\n";
  if (spec.logy) gp << "set logscale y\nset format y '10^{%L}'\n";
  gp << "plot ";
  for (std::size_t k = 0; k < series.size(); ++k) {
    const fs::path data = dir / ("s" + std::to_string(k) + ".dat");
    std::ofstream d(data);
    d.precision(17);
    for (std::size_t i = 0; i < series[k].x.size(); ++i) d << series[k].x[i] << ' ' << series[k].y[i] << '\n';
    gp << (k ? ", " : "") << quote(data.string()) << " u 1:2 "
       << (spec.points ? "w dots" : "w linespoints pt 7 ps 0.8") << " title " << label(series[k].title);
  }
  gp << "\n";
  gp.close();
  const std::string cmd = "gnuplot " + quote((dir / "plot.gp").string()) + " 2> " + quote((dir / "err.txt").string());
  const int rc = std::system(cmd.c_str());
  std::string why;
  if (rc != 0) {
    std::ifstream err(dir / "err.txt");
    std::getline(err, why);
    why = "gnuplot failed: " + why;
    fs::remove(tmp_png, ec);
  } else if (std::rename(tmp_png.c_str(), png.c_str()) != 0) {
    why = "cannot write '" + png + "'";
    fs::remove(tmp_png, ec);
  }
  fs::remove_all(dir, ec);
  return why;
}

}  // namespace lb::cli

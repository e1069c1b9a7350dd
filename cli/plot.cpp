#include "plot.hpp"

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "output_files.hpp"

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

/// Range and tick format of a linear axis whose values are all (nearly) equal, or agree in many
/// leading digits: gnuplot would draw an empty range or label every tick the same.
std::string axis(const char* name, const std::vector<Series>& series, bool x) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& s : series)
    for (double v : x ? s.x : s.y)
      if (std::isfinite(v)) { lo = std::min(lo, v); hi = std::max(hi, v); }
  if (!(lo <= hi)) return "";
  const double mag = std::max(std::abs(lo), std::abs(hi)), span = hi - lo;
  char s[160];
  if (span <= 1e-12 * std::max(mag, 1e-300)) {  // one value (to print precision): a window around it
    const double c = (lo + hi) / 2, w = mag > 0 ? 1e-3 * mag : 1e-3;
    std::snprintf(s, sizeof s, "set %srange [%.10g:%.10g]\n", name, c - w, c + w);
    return s;
  }
  const int digits = int(std::ceil(std::log10(mag / span))) + 3;  // enough to tell ticks apart
  if (digits <= 6) return "";
  std::snprintf(s, sizeof s, "set format %s '%%.%dg'\n", name, std::min(digits, 16));
  return s;
}
}  // namespace

std::string plot_script(const std::string& png, const PlotSpec& spec, const std::vector<Series>& series,
                        const std::vector<std::string>& data) {
  std::string gp = "set terminal pngcairo size 1000,700 font ',11'\nset output " + quote(png) + "\n" + "set title " + label(spec.title) +
                   "\nset xlabel " + label(spec.xlabel) + "\nset ylabel " + label(spec.ylabel) + "\nset grid\nset key outside right\n";
  gp += spec.logx ? "set logscale x\nset format x '10^{%L}'\n" : axis("x", series, true);
  gp += spec.logy ? "set logscale y\nset format y '10^{%L}'\n" : axis("y", series, false);
  // Points: visible markers for few, small ones for many, dots only for a dense cloud.
  std::size_t points = 0;
  for (const auto& s : series) points += s.x.size();
  const std::string scatter = points <= 2000 ? "w points pt 7 ps 0.8" : points <= 100000 ? "w points pt 7 ps 0.25" : "w dots";
  gp += "plot ";
  for (std::size_t k = 0; k < series.size(); ++k) {
    const std::string with = !series[k].style.empty() ? series[k].style : spec.points ? scatter : "w linespoints pt 7 ps 0.8";
    gp += (k ? ", " : "") + quote(data[k]) + " u 1:2 " + with + " title " + label(series[k].title);
  }
  return gp + "\n";
}

std::string plot(const std::string& png, const PlotSpec& spec, const std::vector<Series>& series) {
  namespace fs = std::filesystem;
  if (!gnuplot_available()) return "gnuplot not found (install gnuplot-nox)";
  // The data and script in a fresh private directory (mkdtemp: no one else's files or links).
  std::error_code ec;
  std::string dir = (fs::temp_directory_path(ec) / "liebatch-plot-XXXXXX").string();
  if (!::mkdtemp(dir.data())) return std::string("cannot create a temporary directory: ") + std::strerror(errno);
  std::string why;
  try {
    Temporary tmp(png);  // the picture, renamed into place once drawn and marked
    std::vector<std::string> data;
    for (std::size_t k = 0; k < series.size(); ++k) {
      data.push_back(dir + "/s" + std::to_string(k) + ".dat");
      std::ofstream d(data.back());
      d.precision(17);
      for (std::size_t i = 0; i < series[k].x.size(); ++i) d << series[k].x[i] << ' ' << series[k].y[i] << '\n';
    }
    std::ofstream(dir + "/plot.gp") << plot_script(tmp.name(), spec, series, data);
    if (std::system(("gnuplot " + quote(dir + "/plot.gp") + " 2> " + quote(dir + "/err.txt")).c_str()) != 0) {
      std::ifstream err(dir + "/err.txt");
      std::getline(err, why);
      why = "gnuplot failed: " + why;
    } else if (!mark_png(tmp.name())) {
      why = "cannot write '" + png + "'";
    } else {
      tmp.commit(png);
    }
  } catch (const IoError& e) {
    why = e.what();
  }
  fs::remove_all(dir, ec);
  return why;
}

}  // namespace lb::cli

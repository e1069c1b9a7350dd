#include "cli/plots/plot.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "cli/config/config_node.hpp"
#include "cli/outputs/output_files.hpp"
#include "cli/plots/process.hpp"

namespace lb::cli {

bool gnuplot_available() { return in_path("gnuplot"); }

namespace {
/// The names gnuplot sees: fixed, in the private directory it runs in. No name of the user's
/// (output, directory, TMPDIR) ever appears in its script.
constexpr const char* script_name = "plot.gp";
constexpr const char* picture_name = "plot.png";
constexpr const char* error_name = "err.txt";
std::string data_name(std::size_t k) { return "s" + std::to_string(k) + ".dat"; }

/// A gnuplot string in single quotes: '' is its only escape and nothing is substituted inside
/// (no `command`, no @macro); a control character (a newline would end the command) shows as '?'.
std::string quote(const std::string& s) {
  std::string r = "'";
  for (char c : s) r += c == '\'' ? std::string("''") : (unsigned char)c < 0x20 || c == 0x7f ? std::string("?") : std::string(1, c);
  return r + "'";
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
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
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

std::string plot_script(const PlotSpec& spec, const std::vector<Series>& series) {
  // The legend below the frame, in columns: the data keep the picture's width.
  std::string gp = "set terminal pngcairo size 1000,700 font ',11'\nset output " + quote(picture_name) + "\n" + "set title " +
                   label(spec.title) + "\nset xlabel " + label(spec.xlabel) + "\nset ylabel " + label(spec.ylabel) +
                   "\nset grid\nset key below horizontal\n";
  // A log axis spans its data (gnuplot would widen it to whole decades), with a margin.
  gp += spec.logx ? "set logscale x\nset format x '10^{%L}'\nset autoscale xfix\nset offsets graph 0.04, graph 0.04, 0, 0\n"
                  : axis("x", series, true);
  gp += spec.logy ? "set logscale y\nset format y '10^{%L}'\n" : axis("y", series, false);
  // Points: their size from their number (0.8 for up to 2000, shrinking as 1/√n to 0.15), dots
  // for a dense cloud; coloured by member through 8 colours, or by a value on a colour scale.
  std::size_t points = 0;
  for (const auto& s : series) points += s.x.size();
  char size[64];
  std::snprintf(size, sizeof size, "w points pt 7 ps %.2f",
                std::clamp(0.8 * std::sqrt(2000.0 / double(std::max<std::size_t>(points, 1))), 0.15, 0.8));
  const std::string scatter = points <= 100000 ? size : "w dots";
  if (spec.colour == Colour::palette) gp += "set palette rgbformulae 33,13,10\nset cblabel " + label(spec.colour_label) + "\n";
  if (spec.colour == Colour::cycle) gp += "unset colorbox\n";
  gp += "plot ";
  for (std::size_t k = 0; k < series.size(); ++k) {
    const bool coloured = !series[k].c.empty() && spec.colour != Colour::series;
    const std::string with = !series[k].style.empty() ? series[k].style : spec.points ? scatter : "w linespoints pt 7 ps 0.8";
    const std::string using_ = !coloured ? " u 1:2 " : spec.colour == Colour::cycle ? " u 1:2:(int($3) % 8 + 1) " : " u 1:2:3 ";
    const std::string colour = !coloured ? "" : spec.colour == Colour::cycle ? " lc variable" : " lc palette";
    gp += (k ? ", " : "") + quote(data_name(k)) + using_ + with + colour +
          (coloured && spec.colour == Colour::cycle ? " notitle" : " title " + label(series[k].title));
  }
  return gp + "\n";
}

std::string plot(const std::string& png, const PlotSpec& spec, const std::vector<Series>& series) {
  namespace fs = std::filesystem;
  if (!gnuplot_available()) return "gnuplot not found (install gnuplot-nox)";
  // gnuplot runs in a fresh private directory (mkdtemp: no one else's files or links) on the
  // fixed names above, without a shell; the picture is copied out under liebatch's own
  // temporary name beside `png` and renamed into place, as every other output.
  std::error_code ec;
  std::string dir = (fs::temp_directory_path(ec) / "liebatch-plot-XXXXXX").string();
  if (ec || !::mkdtemp(dir.data()))
    return "cannot create a temporary directory '" + echo(dir) + "': " + std::strerror(ec ? ec.value() : errno);
  const fs::path d(dir);
  struct Removed {  // on every way out, an exception of any kind included
    fs::path p;
    ~Removed() {
      std::error_code e;
      fs::remove_all(p, e);
    }
  } removed{d};
  const RemovedOnSignal removed_on_signal(dir);  // (Ctrl-C while gnuplot draws)
  std::string why;
  try {
    for (std::size_t k = 0; k < series.size(); ++k) {
      std::ofstream out(d / data_name(k));
      out.precision(17);
      for (std::size_t i = 0; i < series[k].x.size(); ++i) {
        out << series[k].x[i] << ' ' << series[k].y[i];
        if (!series[k].c.empty()) out << ' ' << series[k].c[i];
        out << '\n';
      }
      if (!out.flush()) throw IoError("cannot write the plot's data in '" + echo(dir) + "'");
    }
    if (!(std::ofstream(d / script_name) << plot_script(spec, series)).flush())
      throw IoError("cannot write the plot's script in '" + echo(dir) + "'");
    ProgramIo io;
    io.dir = dir;
    io.error_file = error_name;
    const ProgramResult r = run_program({"gnuplot", script_name}, io);
    if (!r.ok()) {
      std::ifstream err(d / error_name);
      std::getline(err, why);
      why = "gnuplot failed: " + (!r.error.empty() ? r.error : why.empty() ? "exit status " + std::to_string(r.status) : why);
    } else if (!mark_png((d / picture_name).string())) {
      why = "gnuplot wrote no PNG";
    } else {
      Temporary tmp(png);
      std::ifstream in(d / picture_name, std::ios::binary);
      std::ofstream out(tmp.name(), std::ios::binary | std::ios::trunc);
      out << in.rdbuf();
      out.close();  // a full disk may show only here
      if (!out) throw IoError("cannot write '" + echo(png) + "'");
      tmp.commit(png);
    }
  } catch (const IoError& e) {
    why = e.what();
  }
  return why;
}

}  // namespace lb::cli

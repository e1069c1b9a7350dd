// The examples' plots: a gnuplot script rendered to a PNG when gnuplot is installed (the install
// script brings gnuplot-nox), and a line saying what happened either way.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

namespace examples {

/// Renders `script` to `png` (1100×800) with gnuplot; `program` names the caller in an error.
inline void gnuplot_png(const char* program, const std::string& png, const std::string& script) {
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0) {
    std::printf("  gnuplot not found: no %s (install gnuplot-nox)\n", png.c_str());
    return;
  }
  const std::string cmd = "gnuplot -e \"set terminal pngcairo size 1100,800 font ',11'; set output '" + png + "';" + script + "\"";
  if (std::system(cmd.c_str()) == 0) std::printf("  wrote %s\n", png.c_str());
  else std::fprintf(stderr, "%s: gnuplot failed, no %s\n", program, png.c_str());
}

}  // namespace examples

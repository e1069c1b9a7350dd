// The examples' plots: a gnuplot script rendered to a PNG when gnuplot is installed (the install
// script brings gnuplot-nox), and a line saying what happened either way. gnuplot runs without a
// shell, in the output directory, so the script names the example's own files alone and the
// directory a user gave never enters it.
#pragma once
#include <cstdio>
#include <string>

#include "cli/plots/process.hpp"

namespace examples {

/// Renders `script` to `dir`/`png` (1100×800 unless the script sets its own size) with gnuplot
/// run in `dir`; `png` and the files the script reads are plain names there. `program` names the
/// caller in an error.
inline void gnuplot_png(const char* program, const std::string& dir, const std::string& png, const std::string& script) {
  const std::string path = dir + "/" + png;
  if (!lb::cli::in_path("gnuplot")) {
    std::printf("  gnuplot not found: no %s (install gnuplot-nox)\n", path.c_str());
    return;
  }
  lb::cli::ProgramIo io;
  io.dir = dir;
  const auto r = lb::cli::run_program({"gnuplot", "-e", "set terminal pngcairo size 1100,800 font ',11'; set output '" + png + "';" + script}, io);
  if (r.ok()) std::printf("  wrote %s\n", path.c_str());
  else std::fprintf(stderr, "%s: gnuplot failed (%s), no %s\n", program, r.error.empty() ? "its exit status" : r.error.c_str(), path.c_str());
}

}  // namespace examples

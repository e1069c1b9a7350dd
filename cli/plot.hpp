// PNG plots through gnuplot (Debian package gnuplot-nox): data and script in a temporary
// directory, the picture written under a temporary name and renamed, so no partial PNG remains.
#pragma once
#include <string>
#include <vector>

namespace lb::cli {

/// A curve or point set: columns of equal length and a legend title.
struct Series {
  std::string title;
  std::vector<double> x, y;
  std::string style = "";  ///< gnuplot's "with …" clause; empty: the plot's default
};

struct PlotSpec {
  std::string title, xlabel, ylabel;
  bool logx = false, logy = false;
  bool points = false;  ///< dots (sections) instead of lines with markers
};

/// Whether gnuplot can be run.
bool gnuplot_available();
/// The gnuplot script that draws `series` (read from the files `data`, one per series) into `png`.
std::string plot_script(const std::string& png, const PlotSpec& spec, const std::vector<Series>& series,
                        const std::vector<std::string>& data);
/// Draws the series into `png`, marked as liebatch's (see output_files.hpp); returns an empty
/// string on success, else why it failed.
std::string plot(const std::string& png, const PlotSpec& spec, const std::vector<Series>& series);

}  // namespace lb::cli

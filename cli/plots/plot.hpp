// PNG plots through gnuplot (Debian package gnuplot-nox), run without a shell in a private
// temporary directory on names liebatch chose; the picture is renamed into place, so no partial
// PNG remains and no name of the user's reaches gnuplot.
#pragma once
#include <string>
#include <vector>

namespace lb::cli {

/// A curve or point set: columns of equal length and a legend title.
struct Series {
  std::string title;
  std::vector<double> x, y;
  std::string style = "";      ///< gnuplot's "with …" clause; empty: the plot's default
  std::vector<double> c = {};  ///< per point: what colours it (PlotSpec::colour); empty: the series' colour
};

/// How a point set's points are coloured by their Series::c.
enum class Colour { series, cycle, palette };

struct PlotSpec {
  std::string title, xlabel, ylabel;
  bool logx = false, logy = false;
  bool points = false;             ///< points (sections) instead of lines with markers
  Colour colour = Colour::series;  ///< cycle: c an integer (a member) through 8 colours; palette: c a value on a colour scale
  std::string colour_label = "";   ///< the colour scale's label (palette)
};

/// Whether gnuplot can be run.
bool gnuplot_available();
/// The gnuplot script that draws `series` (read from s0.dat, s1.dat, … in its directory) into
/// plot.png there.
std::string plot_script(const PlotSpec& spec, const std::vector<Series>& series);
/// Draws the series into `png`, marked as liebatch's (see output_files.hpp); returns an empty
/// string on success, else why it failed.
std::string plot(const std::string& png, const PlotSpec& spec, const std::vector<Series>& series);

}  // namespace lb::cli

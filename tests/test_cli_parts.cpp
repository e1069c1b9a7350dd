// Parts of the command line checked on their own: the order fit of `converge` (which points it
// fits and why it drops the others), the plot script for few or degenerate points, the mark
// by which liebatch recognises its own files, the model entries' parameter tables, and what a job
// of ranks (cli/ranks/) rests on: the bytes its ranks send, and each rank's GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli/commands/order_fit.hpp"
#include "cli/config/config_node.hpp"
#include "cli/models/for_members.hpp"
#include "cli/models/parameters.hpp"
#include "cli/outputs/output_bytes.hpp"
#include "cli/outputs/output_files.hpp"
#include "cli/plots/plot.hpp"
#include "cli/ranks/gpu_of_rank.hpp"

namespace {

using lb::cli::fit_order;
using lb::cli::PointUse;

std::vector<double> halving(double h0, int n) {
  std::vector<double> h;
  for (int k = 0; k < n; ++k) h.push_back(h0 * std::pow(0.5, k));
  return h;
}

// Messages quote users' bytes (file names, keys) as echo() shows them: UTF-8 that is well formed
// and visible unchanged; every other byte as \xNN, so that no terminal reads a lone 0x9B as CSI and
// Python can decode every message; C1 controls, the byte-order mark and bidirectional overrides
// (which could show a name reversed) as \uXXXX.
TEST(Echo, ShowsWellFormedVisibleUtf8AndEscapesEverythingElse) {
  using lb::cli::echo;
  EXPECT_EQ(echo("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(echo("a\x9b[31m"), "a\\x9b[31m");                   // a lone continuation byte
  EXPECT_EQ(echo("\xC2\x9B[31m"), "\\u009B[31m");               // U+009B, CSI in UTF-8
  EXPECT_EQ(echo("\xC0\xAF"), "\\xc0\\xaf");                    // overlong "/"
  EXPECT_EQ(echo("\xE0\x80\xAF"), "\\xe0\\x80\\xaf");           // overlong, three bytes
  EXPECT_EQ(echo("\xED\xA0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(echo("\xF4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(echo("x\xE2\x82"), "x\\xe2\\x82");                  // cut short at the end
  EXPECT_EQ(echo("\xE2\x80\xAEgpj.h5"), "\\u202Egpj.h5");       // right-to-left override
  EXPECT_EQ(echo("\xEF\xBB\xBF"
                 "0.3\n\x1b"),
            "\\uFEFF0.3\\n\\x1b");
  EXPECT_EQ(echo(std::string("a\0b", 3)), "a\\x00b");
  // Cut on a character's boundary, never inside an escape's UTF-8.
  const std::string long_name = std::string(78, 'x') + "\xC3\xA9\xC3\xA9";
  EXPECT_EQ(echo(long_name), std::string(77, 'x') + "... (82 characters)");
}

TEST(OrderFit, ACleanStudyFitsEveryPoint) {
  // The free rigid body's RKMK4 study that used to report NaN (the old round-off floor dropped
  // points 100x above the real round-off): errors 1.2e-10, 7.3e-12, 4.8e-13.
  const auto f = fit_order({0.01, 0.005, 0.0025}, {1.2e-10, 7.3e-12, 4.8e-13}, {3e-16, 4e-16, 6e-16});
  EXPECT_NEAR(f.order, 4.0, 0.05);
  EXPECT_EQ(f.use, (std::vector<PointUse>{PointUse::fitted, PointUse::fitted, PointUse::fitted}));
  EXPECT_NEAR(f.slope[0], std::log2(1.2e-10 / 7.3e-12), 1e-12);
  EXPECT_NE(f.note.find("3 points"), std::string::npos) << f.note;
}

TEST(OrderFit, PreAsymptoticStepsAndRoundOffAreDroppedAndNamed) {
  // Local slopes 4.8, 4.6, 4.15, 4.05, 4.0 as h halves (the 150 rad/s top), then a point at its
  // round-off: the fit keeps the settled pairs only and says which points it dropped and why.
  const auto h = halving(0.01, 7);
  const double slopes[] = {4.8, 4.6, 4.15, 4.05, 4.0};
  std::vector<double> e = {1e-4};
  for (double p : slopes) e.push_back(e.back() / std::pow(2.0, p));
  e.push_back(e.back() / 2);                                       // round-off reached
  std::vector<double> r(7, 1e-16);
  r[6] = e[6] / 3;
  const auto f = fit_order(h, e, r);
  EXPECT_EQ(f.use, (std::vector<PointUse>{PointUse::preasymptotic, PointUse::preasymptotic, PointUse::fitted, PointUse::fitted,
                                          PointUse::fitted, PointUse::fitted, PointUse::roundoff}));
  EXPECT_NEAR(f.order, 4.065, 0.01);  // the last three pairs; a fit over all six points gives 4.30
  EXPECT_TRUE(std::isnan(f.slope[5])) << "no slope to a round-off point";
  EXPECT_NE(f.note.find("2 pre-asymptotic (h in [0.005, 0.01])"), std::string::npos) << f.note;
  EXPECT_NE(f.note.find("1 round-off (h = 0.000156)"), std::string::npos) << f.note;
}

TEST(OrderFit, FailedRunsAndTooFewPointsGiveNoOrder) {
  const auto f = fit_order({0.1, 0.05, 0.025}, {NAN, 1e-8, 1e-15}, {1e-16, 1e-16, 1e-15});
  EXPECT_TRUE(std::isnan(f.order));
  EXPECT_EQ(f.use, (std::vector<PointUse>{PointUse::failed, PointUse::alone, PointUse::roundoff}));
  EXPECT_NE(f.note.find("no fit"), std::string::npos) << f.note;
  // A point whose round-off could not be measured is kept, and the note says so.
  const auto g = fit_order({0.1, 0.05}, {1e-4, 6.25e-6}, {NAN, 1e-16});
  EXPECT_NEAR(g.order, 4, 1e-12);
  EXPECT_NE(g.note.find("round-off not measured at 1"), std::string::npos) << g.note;
  // A step as long as the span whose run failed is a failure (not a whole-span point), and its
  // round-off, NaN as its error, is not called unmeasured: the note blamed the long double run.
  const auto w = fit_order({7, 5, 4.9, 0.1, 0.05}, {NAN, NAN, NAN, 1e-4, 6.25e-6}, {NAN, NAN, NAN, 1e-16, 1e-16}, 5.0);
  EXPECT_EQ(w.use, (std::vector<PointUse>{PointUse::failed, PointUse::failed, PointUse::failed, PointUse::fitted, PointUse::fitted}));
  EXPECT_EQ(w.note.find("not measured"), std::string::npos) << w.note;
  EXPECT_NE(w.note.find("3 failed (h in [4.9, 7])"), std::string::npos) << w.note;
  EXPECT_EQ(fit_order({7, 0.1, 0.05}, {0.3, 1e-4, 6.25e-6}, {1e-16, 1e-16, 1e-16}, 5.0).use[0], PointUse::whole_span);
  // An error of exactly 0 (a member at a fixed point) is a run that worked: below round-off, not failed.
  const auto z = fit_order({0.1, 0.05}, {0, 0}, {0, 0});
  EXPECT_EQ(z.use, (std::vector<PointUse>{PointUse::roundoff, PointUse::roundoff}));
}

TEST(OrderFit, TheSettledToleranceScalesWithTheStepRatio) {
  // Steps shrinking by 1.25: slopes 4.35 and 4.0 differ by 0.35, within 0.2·log 2 / log 1.25 = 0.62
  // (error noise moves a slope 3.1 times more than at halving), so all three points are fitted.
  const std::vector<double> h = {0.01, 0.008, 0.0064};
  const std::vector<double> e = {1e-6, 1e-6 / std::pow(1.25, 4.35), 1e-6 / std::pow(1.25, 8.35)};
  const auto f = fit_order(h, e, {1e-16, 1e-16, 1e-16});
  EXPECT_EQ(f.use, (std::vector<PointUse>{PointUse::fitted, PointUse::fitted, PointUse::fitted}));
  // At halving, the same difference is too much: the coarsest point is pre-asymptotic.
  const auto g = fit_order({0.01, 0.005, 0.0025}, {1e-6, 1e-6 / std::pow(2, 4.35), 1e-6 / std::pow(2, 8.35)}, {1e-16, 1e-16, 1e-16});
  EXPECT_EQ(g.use[0], PointUse::preasymptotic);
}

TEST(PlotScript, FewPointsAreVisibleAndADegenerateAxisGetsARange) {
  // Three hits at x = 0.5 exactly: gnuplot drew single-pixel dots on an empty x range.
  const std::vector<lb::cli::Series> hits = {{"hits", {0.5, 0.5, 0.5}, {1.0, 1.25, 1.5}}};
  const std::string gp = lb::cli::plot_script({"t", "x", "y", false, false, true}, hits);
  EXPECT_NE(gp.find("w points pt 7 ps 0.8"), std::string::npos) << gp;
  EXPECT_EQ(gp.find("w dots"), std::string::npos) << gp;
  EXPECT_NE(gp.find("set xrange [0.4995:0.5005]"), std::string::npos) << gp;
  EXPECT_EQ(gp.find("set yrange"), std::string::npos) << "a spread axis keeps gnuplot's range";
  // Values equal in 9 leading digits get tick labels precise enough to differ (12 or 13 digits).
  const std::vector<lb::cli::Series> close = {{"hits", {1.0, 2.0}, {1000.000001, 1000.000002}}};
  EXPECT_NE(lb::cli::plot_script({"t", "x", "y", false, false, true}, close).find("set format y '%.1"),
            std::string::npos);
  // A dense cloud is drawn with dots.
  lb::cli::Series cloud{"hits", std::vector<double>(200000, 0.0), std::vector<double>(200000, 0.0)};
  for (std::size_t i = 0; i < cloud.x.size(); ++i) { cloud.x[i] = double(i); cloud.y[i] = double(i % 7); }
  EXPECT_NE(lb::cli::plot_script({"t", "x", "y", false, false, true}, {cloud}).find("w dots"), std::string::npos);
}

// Issue 33: the script names only liebatch's own files (plot.png, s0.dat, ...), a title cannot
// end its command (a newline shows as '?', a quote is doubled, nothing is substituted inside
// single quotes), the legend sits below the frame, and a section's hits are coloured by member
// (8 colours, cycling) or by an observable on a colour scale, their size from their number.
TEST(PlotScript, NamesAreLiebatchsTitlesCannotEndACommandAndHitsAreColoured) {
  using lb::cli::Colour;
  const std::vector<lb::cli::Series> s = {{"a'b\nsystem \"touch PWNED\"", {0, 1}, {0, 1}}};
  const std::string gp = lb::cli::plot_script({"x\ny", "`id`", "$(id)", false, false, false}, s);
  std::istringstream lines(gp);
  for (std::string line; std::getline(lines, line);)
    EXPECT_TRUE(line.rfind("set ", 0) == 0 || line.rfind("unset ", 0) == 0 || line.rfind("plot ", 0) == 0) << "a command of its own: " << line;
  EXPECT_NE(gp.find("set output 'plot.png'"), std::string::npos) << gp;
  EXPECT_NE(gp.find("'s0.dat' u 1:2 "), std::string::npos) << gp;
  EXPECT_NE(gp.find("title 'a''b?system \"touch PWNED\"'"), std::string::npos) << gp;
  EXPECT_NE(gp.find("set key below"), std::string::npos) << gp;
  lb::cli::Series hits{"hits", {0, 1, 2}, {0, 1, 2}, "", {0, 1, 2}};
  const std::string by_member = lb::cli::plot_script({"t", "x", "y", false, false, true, Colour::cycle}, {hits});
  EXPECT_NE(by_member.find("u 1:2:(int($3) % 8 + 1) w points pt 7 ps 0.80 lc variable notitle"), std::string::npos) << by_member;
  const std::string by_energy = lb::cli::plot_script({"t", "x", "y", false, false, true, Colour::palette, "energy"}, {hits});
  EXPECT_NE(by_energy.find("u 1:2:3 w points pt 7 ps 0.80 lc palette"), std::string::npos) << by_energy;
  EXPECT_NE(by_energy.find("set cblabel 'energy'"), std::string::npos) << by_energy;
  lb::cli::Series many{"hits", std::vector<double>(50000, 0.0), std::vector<double>(50000, 0.0)};
  EXPECT_NE(lb::cli::plot_script({"t", "x", "y", false, false, true}, {many}).find("ps 0.16"), std::string::npos)
      << "0.8 sqrt(2000 / 50000)";
}

TEST(OutputMark, LiebatchRecognisesOnlyTheFilesItMarked) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("liebatch-mark-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string csv = (dir / "a.csv").string(), png = (dir / "a.png").string(), other = (dir / "b.png").string();
  std::ofstream(csv) << lb::cli::csv_mark("converge") << "\nmethod,h\n";
  // A minimal PNG: the signature and an IHDR chunk (what the mark goes after), then IEND.
  const std::string ihdr("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0\x90\x77\x53\xde\0\0\0\0IEND\xae\x42\x60\x82", 45);
  std::ofstream(png, std::ios::binary) << ihdr;
  std::ofstream(other, std::ios::binary) << ihdr;
  EXPECT_TRUE(lb::cli::written_by_liebatch(csv));
  EXPECT_FALSE(lb::cli::written_by_liebatch(other));
  ASSERT_TRUE(lb::cli::mark_png(png));
  EXPECT_TRUE(lb::cli::written_by_liebatch(png));
  EXPECT_FALSE(lb::cli::mark_png(csv)) << "not a PNG";
  std::ofstream(dir / "c.h5") << "not HDF5";
  EXPECT_FALSE(lb::cli::written_by_liebatch((dir / "c.h5").string()));
  fs::remove_all(dir);
}

// A model entry writes each parameter once (cli/models/parameters.hpp): the help line prints the
// default of the model a run starts from, exactly, and reading sets what the config gives, keeps
// the rest, and refuses a number outside the domain, naming its path and value.
struct Toy {
  double mass, inertia[3], shift;
};
const lb::cli::Param<Toy> toy_params[] = {
    {"mass", 1, lb::cli::Domain::positive, "M", [](const Toy& m, double* v) { *v = m.mass; }, [](Toy& m, const double* v) { m.mass = *v; }},
    {"inertia", 3, lb::cli::Domain::positive, "[I1, I2, I3]", [](const Toy& m, double* v) { std::copy_n(m.inertia, 3, v); },
     [](Toy& m, const double* v) { std::copy_n(v, 3, m.inertia); }},
    {"shift", 1, lb::cli::Domain::finite, "s", [](const Toy& m, double* v) { *v = m.shift; },
     [](Toy& m, const double* v) { m.shift = *v; }},
    {"span", 1, lb::cli::Domain::positive, "sets every inertia", nullptr, [](Toy& m, const double* v) { std::fill_n(m.inertia, 3, *v); }},
};

TEST(ParameterTable, HelpPrintsTheDefaultsARunUsesAndReadingChecksEachNumber) {
  const Toy def{2.0 / 3, {1, 1, 1}, -0.5};
  const auto lines = lb::cli::help_lines<Toy>(toy_params, def);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "mass: M, > 0 (default 0.6666666666666666)");
  EXPECT_EQ(std::stod("0.6666666666666666"), 2.0 / 3) << "the printed default reads back exactly";
  EXPECT_EQ(lines[1], "inertia: [I1, I2, I3], each > 0 (default all 1)");
  EXPECT_EQ(lines[2], "shift: s (default -0.5)");
  EXPECT_EQ(lines[3], "span: sets every inertia, > 0") << "no value of its own, no default";

  const auto read = [&](const char* text) {
    const auto j = nlohmann::json::parse(text);
    lb::cli::Node n(j, "/model/parameters");
    Toy t = def;
    lb::cli::MemberRule rule;
    lb::cli::read_params<Toy>(&n, toy_params, t, rule);
    n.finish();
    return t;
  };
  const Toy t = read(R"({"mass": 3, "inertia": [1, 2, 3]})");
  EXPECT_EQ(t.mass, 3);
  EXPECT_EQ(t.inertia[2], 3);
  EXPECT_EQ(t.shift, -0.5) << "a parameter not given keeps its default";
  EXPECT_EQ(read(R"({"span": 4})").inertia[1], 4);
  const auto refusal = [&](const char* text) {
    try {
      read(text);
    } catch (const lb::cli::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal(R"({"inertia": [1, 0, 3]})"), "config /model/parameters/inertia/1: expected a number > 0, got 0");
  EXPECT_EQ(refusal(R"({"mass": -1})"), "config /model/parameters/mass: expected a number > 0, got -1");
  EXPECT_EQ(refusal(R"({"inertia": [1, 2]})"),
            "config /model/parameters/inertia: expected an array of 3 entries, each a number or a variation, got [1,2]");
  EXPECT_EQ(refusal(R"({"shift": "a"})"),
            "config /model/parameters/shift: expected a number or an object with one of values, linspace, logspace, uniform, "
            "normal, lognormal, got \"a\"");
  EXPECT_EQ(refusal(R"({"mas": 1})"), "config /model/parameters/mas: unknown key");
}

// Per-member parameters (cli/models/member_parameters.hpp): sweeps form a grid in the table's order,
// the first slowest, and member i = g·N₀ + k takes grid point g; draws are the inverse CDF of the
// sampler's point, a pure function of the member; every refusal names the path and the value.
TEST(MemberParameters, SweepsFormTheGridAndDrawsFollowTheirDistributions) {
  const auto rule_of = [](const char* text, std::size_t states) {
    const auto j = nlohmann::json::parse(text);
    lb::cli::Node n(j, "/model/parameters");
    Toy t{1, {1, 1, 1}, 0};
    lb::cli::MemberRule rule;
    lb::cli::read_params<Toy>(&n, toy_params, t, rule);
    n.finish();
    rule.states = states;
    rule.sampler.dim = std::max<int>(1, int(rule.draws.size()));
    return std::pair{rule, t};
  };
  // mass over 3 values (slowest), inertia[1] over linspace(1, 2, 5), 2 initial states: 30 members.
  const auto [r, t] = rule_of(R"({"mass": {"values": [1, 2, 3]}, "inertia": [4, {"linspace": [1, 2, 5]}, 6]})", 2);
  EXPECT_EQ(t.inertia[0], 4) << "fixed numbers of a varied parameter are set";
  ASSERT_EQ(r.sweeps.size(), 2u);
  EXPECT_EQ(r.sweeps[1].name, "inertia[1]");
  EXPECT_EQ(r.grid(), 15u);
  EXPECT_EQ(r.member(0), (std::vector<double>{1, 1.0}));
  EXPECT_EQ(r.member(1), (std::vector<double>{1, 1.0})) << "member 1: the same grid point, the second initial state";
  EXPECT_EQ(r.member(2), (std::vector<double>{1, 1.25}));
  EXPECT_EQ(r.member(29), (std::vector<double>{3, 2.0}));
  const Toy m7 = lb::cli::with_member<Toy>(t, toy_params, r, 7);  // grid point 3: mass 1, inertia[1] = 1.75
  EXPECT_EQ(m7.mass, 1);
  EXPECT_EQ(m7.inertia[1], 1.75);
  EXPECT_EQ(m7.inertia[2], 6);
  EXPECT_EQ(r.describe(), "mass: values(3); inertia[1]: linspace(1, 2, 5)");

  // logspace as numpy's: 10^a ... 10^b.
  const auto log = rule_of(R"({"shift": {"logspace": [-1, 1, 3]}})", 1).first.sweeps[0];
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ((std::vector<double>{log.point(0), log.point(1), log.point(2)}), (std::vector<double>{0.1, 1, 10}));
  // A sweep of 2^40 points is its ends and its count: nothing of its size is stored (the grid's
  // product with the states is checked against the member limit by the config reader).
  const auto huge = rule_of(R"({"mass": {"linspace": [1, 2, 1099511627776]}})", 1).first;
  EXPECT_EQ(huge.grid(), std::size_t(1) << 40);
  EXPECT_TRUE(huge.sweeps[0].points.empty());
  EXPECT_EQ(huge.member((std::size_t(1) << 40) - 1)[0], 2.0);

  // Draws: a pure function of the member, within their distribution's range; normal's mean and
  // spread measured over 20000 members (Philox), and lognormal's median.
  const auto d = rule_of(R"({"shift": {"normal": [2, 0.5]}, "mass": {"uniform": [3, 4]}})", 1).first;
  ASSERT_EQ(d.draws.size(), 2u);
  EXPECT_EQ(d.draws[0].name, "mass") << "the table's order";
  double sum = 0, sum2 = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const auto v = d.member(std::size_t(i));
    ASSERT_GE(v[0], 3);
    ASSERT_LT(v[0], 4);
    sum += v[1];
    sum2 += v[1] * v[1];
  }
  EXPECT_EQ(d.member(17), d.member(17));
  EXPECT_NEAR(sum / n, 2, 0.02);
  EXPECT_NEAR(std::sqrt(sum2 / n - (sum / n) * (sum / n)), 0.5, 0.02);
  lb::cli::Variation ln;
  ln.kind = lb::cli::Variation::lognormal;
  ln.a = std::log(3.0);
  ln.b = 0.2;
  EXPECT_NEAR(ln.quantile(0.5, 0x1p-53), 3, 1e-12) << "the median of lognormal(mu, sigma) is e^mu";
  lb::cli::Variation nm;
  nm.kind = lb::cli::Variation::normal;
  nm.b = 1;
  EXPECT_NEAR(nm.quantile(0.975, 0x1p-53), 1.959963984540054, 1e-9);
  // The middle of u's cell, exact from either end: finite at both ends of [0, 1) (the last box
  // point, 1 - 2^-53, once rounded onto 1 and gave +inf), and odd about 1/2 bit for bit. Φ⁻¹ at
  // 2^-54 and 2^-33 (mpmath): the far tails of box and Sobol' points.
  for (const double cell : {0x1p-53, 0x1p-32}) {
    for (const double u : {0.0, cell, 0.25, 0.5 - cell, std::floor(0.3 / cell) * cell, 0.125 + 7 * cell}) {  // lattice points
      const double mirror = 1 - cell - u;  // the cell as far from 1 as u's from 0
      ASSERT_TRUE(std::isfinite(nm.quantile(u, cell)) && std::isfinite(nm.quantile(mirror, cell))) << u;
      EXPECT_EQ(nm.quantile(u, cell), -nm.quantile(mirror, cell)) << u << " " << cell;
    }
  }
  EXPECT_NEAR(nm.quantile(0, 0x1p-53), -8.292361075813596, 1e-13);
  EXPECT_NEAR(nm.quantile(1 - 0x1p-53, 0x1p-53), 8.292361075813596, 1e-13);
  EXPECT_NEAR(nm.quantile(0, 0x1p-32), -6.337957754553789, 1e-13);

  // A draw outside the domain: box draws again; a Sobol' point names the member and the value.
  auto neg = rule_of(R"({"mass": {"normal": [0.1, 1]}})", 1).first;
  for (int i = 0; i < 100; ++i) ASSERT_GT(neg.member(std::size_t(i))[0], 0) << i;
  neg.sampler.kind = lb::SamplerKind::sobol;
  std::string why;
  for (std::size_t i = 0; i < 64 && why.empty(); ++i) try {
      neg.member(i);
    } catch (const lb::cli::ConfigError& e) {
      why = e.what();
    }
  EXPECT_NE(why.find("draws mass = -"), std::string::npos) << why;
  EXPECT_NE(why.find("normal(0.10000000000000001, 1)"), std::string::npos) << why;

  const auto refusal = [&](const char* text) {
    try {
      rule_of(text, 1);
    } catch (const lb::cli::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal(R"({"mass": {"linspace": [0, 1, 3]}})"),
            "config /model/parameters/mass/linspace: point 0 is 0; the parameter takes a number > 0");
  EXPECT_EQ(refusal(R"({"mass": {"linspace": [1, -1, 3]}})"),
            "config /model/parameters/mass/linspace: point 2 is -1; the parameter takes a number > 0");
  EXPECT_EQ(refusal(R"({"mass": {"linspace": [1, 2, 0]}})"),
            "config /model/parameters/mass/linspace/2: expected a point count, an integer in [1, 2^40], got 0");
  // Two sweeps of 2^32 points: a grid of 2^64, which a product of sizes would wrap to 0.
  EXPECT_EQ(refusal(R"({"mass": {"linspace": [1, 2, 4294967296]}, "shift": {"linspace": [1, 2, 4294967296]}})"),
            "config /model/parameters/shift: the sweeps' grid of 4294967296 points times 4294967296 is more than 2^40 members");
  // Ends whose difference overflows: every point between them would be NaN or inf.
  for (const char* wide : {R"({"mass": {"linspace": [1e308, -1e308, 3]}})", R"({"shift": {"uniform": [-1e308, 1e308]}})"})
    EXPECT_NE(refusal(wide).find("expected ends a, b whose difference is finite in double"), std::string::npos) << refusal(wide);
  EXPECT_EQ(refusal(R"({"mass": {"gamma": [1, 2]}})"),
            "config /model/parameters/mass/gamma: unknown variation; expected a number or an object with one of values, linspace, "
            "logspace, uniform, normal, lognormal");
  EXPECT_EQ(refusal(R"({"mass": {"normal": [1, 0]}})"), "config /model/parameters/mass/normal/1: expected a standard deviation > 0, got 0");
  EXPECT_EQ(refusal(R"({"span": {"values": [1, 2]}})"),
            "config /model/parameters/span: cannot vary per member (it is another form of a parameter that can)");
}

}  // namespace

TEST(OutputBytes, EveryFieldComesBackBitwiseAndShortBytesAreRefused) {
  // Every field set to something other than its default, NaN and a negative zero among the values.
  lb::EnsembleOutput<double> o;
  o.size = 2, o.dim = 3, o.nobs = 1, o.samples = 1;
  o.y = {1, -0.0, NAN, 4, 5, 6}, o.t = {0.5, 0.25}, o.steps = {7, 8}, o.rejected = {1, 0}, o.status = {0, 3};
  o.iterations = {11, 12}, o.iterations_max = {3, 4}, o.sample_t = {0.1, 0.2}, o.sample_y = {1, 2, 3, 4, 5, 6}, o.sample_obs = {9, 10};
  o.device = "cpu, 2 threads", o.integrate_seconds = 0.125, o.lane_occupancy = 0.75;
  o.hit_member = {1}, o.hit_index = {0}, o.hit_t = {0.3}, o.hit_y = {1, 2, 3}, o.hit_obs = {4}, o.hits = {0, 1}, o.lost_hits = {0, 2};
  o.suspects = {1, 0};
  const std::string b = lb::cli::to_bytes(o);
  const auto r = lb::cli::output_of(b);
  EXPECT_EQ(lb::cli::to_bytes(r), b);  // and field by field:
  EXPECT_EQ(r.size, o.size);
  EXPECT_EQ(r.samples, o.samples);
  EXPECT_EQ(std::memcmp(r.y.data(), o.y.data(), o.y.size() * sizeof(double)), 0);
  EXPECT_EQ(r.status, o.status);
  EXPECT_EQ(r.iterations_max, o.iterations_max);
  EXPECT_EQ(r.device, o.device);
  EXPECT_EQ(r.lane_occupancy, o.lane_occupancy);
  EXPECT_EQ(r.hit_obs, o.hit_obs);
  EXPECT_EQ(r.suspects, o.suspects);
  for (std::size_t cut : {std::size_t(0), std::size_t(5), b.size() / 2, b.size() - 1})
    EXPECT_THROW(lb::cli::output_of(b.substr(0, cut)), std::runtime_error) << cut;
  EXPECT_THROW(lb::cli::output_of(b + "x"), std::runtime_error);
}

TEST(GpuOfRank, TheNodesRanksTakeItsGpusInTurn) {
  using lb::cli::gpu_of_rank;
  // No list set: the driver's devices, rank mod count.
  EXPECT_EQ(gpu_of_rank(0, nullptr, 4), "0");
  EXPECT_EQ(gpu_of_rank(5, nullptr, 4), "1");
  EXPECT_EQ(gpu_of_rank(3, nullptr, 0), "");  // no GPU: CUDA's default stays
  // A launcher's list (Slurm's binding, UUIDs): its entries, whatever the driver counts.
  EXPECT_EQ(gpu_of_rank(0, "2,3", 8), "2");
  EXPECT_EQ(gpu_of_rank(3, "2,3", 8), "3");
  EXPECT_EQ(gpu_of_rank(2, "GPU-a1,GPU-b2,GPU-c3", 0), "GPU-c3");
  EXPECT_EQ(gpu_of_rank(1, "5", 8), "5");      // one bound device: every rank of the task keeps it
  EXPECT_EQ(gpu_of_rank(1, "", 8), "");        // an empty list hides every GPU: left so
  // CUDA reads the list up to its first entry that names no device, and so does the choice.
  EXPECT_EQ(gpu_of_rank(1, "4,,6,", 8), "4");
  EXPECT_EQ(gpu_of_rank(1, "1,9,2", 4), "1");  // device 9 absent: 2 is hidden too
  EXPECT_EQ(gpu_of_rank(1, "1,-1,2", 4), "1");
  EXPECT_EQ(gpu_of_rank(5, "1,3,2", 4), "2");  // every entry names a device: rank 5 mod 3
  EXPECT_EQ(gpu_of_rank(0, "-1", 4), "");      // every GPU hidden: left so
  EXPECT_EQ(gpu_of_rank(-1, "0,1", 2), "");    // no node-local rank known
}

TEST(GpuOfRank, TheRanksOwnLauncherBeatsSlurmsInheritedLocalId) {
  using lb::cli::launcher_local_rank;
  const auto set = [](const char* v, const char* s) { s ? ::setenv(v, s, 1) : ::unsetenv(v); };
  const char* vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"};
  std::vector<std::optional<std::string>> saved;
  for (const char* v : vars) saved.push_back(std::getenv(v) ? std::optional<std::string>(std::getenv(v)) : std::nullopt);
  for (const char* v : vars) set(v, nullptr);
  EXPECT_EQ(launcher_local_rank(), -1);
  set("SLURM_LOCALID", "0");  // srun's task, or a batch script's value that mpiexec's ranks inherit
  EXPECT_EQ(launcher_local_rank(), 0);
  set("MPI_LOCALRANKID", "2");  // MPICH's Hydra inside a Slurm allocation
  EXPECT_EQ(launcher_local_rank(), 2);
  set("OMPI_COMM_WORLD_LOCAL_RANK", "1");
  EXPECT_EQ(launcher_local_rank(), 1);
  for (std::size_t k = 0; k < 3; ++k) set(vars[k], saved[k] ? saved[k]->c_str() : nullptr);
}

TEST(ForMembers, EveryMemberOnceAndTheLowestFailure) {
  using lb::cli::for_members;
  for (const int threads : {1, 3}) {
    std::vector<int> seen(10000, 0);
    for_members(seen.size(), threads, [&](std::size_t b, std::size_t e) {
      for (std::size_t k = b; k < e; ++k) ++seen[k];
    });
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 10000) << threads << " threads";
    // Members 5000 on fail (ranges [3333, 6666) and [6666, 10000) on 3 threads both do): the
    // error is member 5000's, as on one thread.
    try {
      for_members(seen.size(), threads, [&](std::size_t b, std::size_t e) {
        for (std::size_t k = b; k < e; ++k)
          if (k >= 5000) throw std::runtime_error("member " + std::to_string(k));
      });
      ADD_FAILURE() << "no failure";
    } catch (const std::runtime_error& x) {
      EXPECT_STREQ(x.what(), "member 5000") << threads << " threads";
    }
  }
}

// The command line as a hostile user meets it (issue 14): a full disk, outputs that name inputs or
// other people's files, read-only files and links, huge ensembles, deep nesting, huge values,
// numbers out of range, runs where every member fails, and the progress display in a terminal.
// Each check failed before its fix.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/plots/process.hpp"
#include "cli_run.hpp"

namespace {

namespace fs = std::filesystem;
using lbtest::H5;
using lbtest::Launch;
using lbtest::liebatch;
using lbtest::Scratch;

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream b;
  b << in.rdbuf();
  return b.str();
}

/// The files of s's directory whose names show an output or a temporary (not its inputs).
std::vector<std::string> outputs_in(const Scratch& s, const std::vector<std::string>& inputs) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(s.dir)) {
    const std::string f = e.path().filename().string();
    if (f == "stdout.txt" || f == "stderr.txt" || std::find(inputs.begin(), inputs.end(), f) != inputs.end()) continue;
    v.push_back(f);
  }
  return v;
}

/// Started in `dir`.
Launch in_dir(const std::string& dir) {
  Launch l;
  l.dir = dir;
  return l;
}

/// Files limited to `kb` KiB and SIGXFSZ ignored, so a write past the limit fails with EFBIG as
/// on a full disk (no root, no mount); with the signal's default, it would end the process.
Launch disk_of(int kb, bool ignore_xfsz = true) {
  Launch l;
  l.file_kb = kb;
  l.ignore_xfsz = ignore_xfsz;
  return l;
}

const char* top_ensemble = R"({"model": {"name": "heavy_top", "preset": "bruls_cardona"}, "method": "rkmk4",
  "time": {"t1": 0.01}, "step": {"h": 0.001}, "outputs": {"samples": 6},
  "initial": {"ensemble": {"count": 20000, "sampler": "box", "seed": 1, "scale": 0.05}}})";

TEST(CliHostile, AFullDiskGivesExitThreeItsMessageAndNoFile) {
  Scratch s("full_disk");
  // run: the output's size is known in advance (12 MB here): refused before the run, sizes named.
  const auto run = liebatch(s, "run " + s.file("run.json", top_ensemble) + " -o " + s.path("out.h5"), disk_of(1000));
  EXPECT_EQ(run.status, 3) << run.err;
  EXPECT_NE(run.err.find("needs about 12.1 MB"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("at most 1.0 MB (ulimit -f)"), std::string::npos) << run.err;
  EXPECT_EQ(outputs_in(s, {"run.json"}), std::vector<std::string>{});
  // poincare: the hits are not known in advance (500 members x 500 strobes, 24 MB), so the write
  // itself fails: the HDF5 library must report it, not crash (it did, on closing the file).
  const auto hits = liebatch(s, "poincare " + s.file("p.json", R"({"model": {"name": "pendulum_chain", "parameters": {"N": 1}},
    "method": "rkmk4", "time": {"t1": 5}, "step": {"h": 0.01}, "section": {"type": "stroboscopic", "period": 0.01},
    "initial": {"state": [0.29552020666133955, 0, -0.955336489125606, 0, 0, 0], "tolerance": 1e-12,
                "ensemble": {"count": 500, "sampler": "box", "seed": 1, "scale": 0.1}}})") + " -o " + s.path("out.h5"), disk_of(1000));
  EXPECT_EQ(hits.status, 3) << hits.err;
  EXPECT_NE(hits.err.find("cannot write dataset hits/"), std::string::npos) << hits.err;
  // The same without SIGXFSZ ignored by the shell: liebatch ignores it itself, so the signal does
  // not kill it with its temporary files in place.
  const auto signal = liebatch(s, "poincare " + s.path("p.json") + " -o " + s.path("out.h5"),
                               disk_of(1000, false));
  EXPECT_EQ(signal.status, 3) << signal.err;
  // converge: a small file that still does not fit 4 KiB; its CSV is not left behind either.
  const auto cv = liebatch(s, "converge " + s.file("c.json", R"({"model": {"name": "free_rigid_body"}, "time": {"t1": 1},
    "initial": {"state": [1, 0.5, 2]}, "converge": {"methods": ["rkmk4"], "steps": [0.01, 0.005]}})") + " -o " + s.path("out.h5"), disk_of(4));
  EXPECT_EQ(cv.status, 3) << cv.err;
  EXPECT_NE(cv.err.find("e.g. a full disk"), std::string::npos) << cv.err;
  EXPECT_EQ(outputs_in(s, {"run.json", "p.json", "c.json"}), std::vector<std::string>{});
}

TEST(CliHostile, AnOutputThatIsAnInputIsRefusedBeforeTheRun) {
  Scratch s("inputs");
  const std::string cfg = R"({"model": {"name": "free_rigid_body"}, "method": "rkmk4", "time": {"t1": 1}, "step": {"h": 0.1},
    "initial": {"state": [1, 0, 0]}})";
  // A config named .h5, run where it lies: the default output (its name with .h5, here) is the
  // config itself.
  const std::string h5 = s.file("c.h5", cfg);
  const auto a = liebatch(s, "run c.h5 --force", in_dir(s.dir.string()));
  EXPECT_EQ(a.status, 2) << a.err;
  EXPECT_NE(a.err.find("is the input"), std::string::npos) << a.err;
  EXPECT_EQ(slurp(h5), cfg);
  // The same file by another path, and by a hard link.
  fs::create_directories(s.path("sub"));
  const auto b = liebatch(s, "run " + h5 + " -o " + s.path("sub/../c.h5"));
  EXPECT_EQ(b.status, 2) << b.err;
  fs::create_hard_link(h5, s.path("link.h5"));
  const auto c = liebatch(s, "run " + h5 + " -o " + s.path("link.h5") + " --force");
  EXPECT_EQ(c.status, 2) << c.err;
  EXPECT_EQ(slurp(h5), cfg);
  // A states file that the CSV beside the output would replace (validate and converge write one).
  const std::string states = "1 0 0\n0 1 0.5\n";
  std::ofstream(s.path("s.csv")) << states;
  const auto d = liebatch(s, "validate " + s.file("v.json", R"({"model": {"name": "free_rigid_body"}, "method": "rkmk4",
    "time": {"t1": 1}, "step": {"h": 0.1}, "initial": {"file": "s.csv"}})") + " -o " + s.path("s.h5") + " --force");
  EXPECT_EQ(d.status, 2) << d.err;
  EXPECT_NE(d.err.find("output '" + s.path("s.csv") + "' is the input"), std::string::npos) << d.err;
  EXPECT_EQ(slurp(s.path("s.csv")), states);
  EXPECT_FALSE(fs::exists(s.path("s.h5")));
}

TEST(CliHostile, FilesBesideTheOutputAreReplacedOnlyIfLiebatchWroteThem) {
  Scratch s("siblings");
  const std::string cfg = s.file("c.json", R"({"model": {"name": "free_rigid_body"}, "time": {"t1": 1},
    "initial": {"state": [1, 0.5, 2]}, "converge": {"methods": ["rkmk4"], "steps": [0.01, 0.005]}})");
  const std::string out = " -o " + s.path("c.h5");
  for (const char* ext : {".csv", ".png", ".h5"}) {
    const std::string mine = s.path(std::string("c") + ext);
    std::ofstream(mine) << "the user's own file";
    const auto r = liebatch(s, "converge " + cfg + out);
    EXPECT_EQ(r.status, 3) << ext;
    EXPECT_NE(r.err.find("was not written by liebatch; give --force"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(mine), "the user's own file") << ext;
    fs::remove(mine);
  }
  ASSERT_EQ(liebatch(s, "converge " + cfg + out).status, 0);
  // liebatch's own files (marked: HDF5 attribute, CSV first line, PNG tEXt chunk) are replaced.
  const auto again = liebatch(s, "converge " + cfg + out);
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(slurp(s.path("c.csv")).rfind("# liebatch ", 0), 0u);
  EXPECT_NE(slurp(s.path("c.png")).substr(0, 80).find(std::string("tEXtSoftware\0liebatch", 21)), std::string::npos);
  // --force replaces another's file.
  std::ofstream(s.path("c.png")) << "the user's own file";
  EXPECT_EQ(liebatch(s, "converge " + cfg + out + " --force").status, 0);
  EXPECT_NE(slurp(s.path("c.png")), "the user's own file");
}

TEST(CliHostile, ReadOnlyAndLinkedOutputsAreRefusedEvenAsRootAndWithForce) {
  Scratch s("readonly");
  const std::string cfg = s.file("c.json", R"({"model": {"name": "free_rigid_body"}, "method": "rkmk4", "time": {"t1": 1},
    "step": {"h": 0.1}, "initial": {"state": [1, 0, 0]}})");
  ASSERT_EQ(liebatch(s, "run " + cfg + " --no-plot -o " + s.path("r.h5")).status, 0);
  const std::string before = slurp(s.path("r.h5"));
  fs::permissions(s.path("r.h5"), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const auto ro = liebatch(s, "run " + cfg + " --no-plot --force -o " + s.path("r.h5"));
  EXPECT_EQ(ro.status, 3);
  EXPECT_NE(ro.err.find("is read-only"), std::string::npos) << ro.err;
  EXPECT_EQ(slurp(s.path("r.h5")), before);
  fs::permissions(s.path("r.h5"), fs::perms::owner_all);
  std::ofstream(s.path("target.h5")) << "kept";
  fs::create_symlink(s.path("target.h5"), s.path("link.h5"));
  const auto ln = liebatch(s, "run " + cfg + " --no-plot --force -o " + s.path("link.h5"));
  EXPECT_EQ(ln.status, 3);
  EXPECT_NE(ln.err.find("is a symbolic link"), std::string::npos) << ln.err;
  EXPECT_TRUE(fs::is_symlink(s.path("link.h5")));
  EXPECT_EQ(slurp(s.path("target.h5")), "kept");
}

TEST(CliHostile, ProgressRedrawsInATerminalAndTheSummaryStartsItsOwnLine) {
  // 10⁵ members with the default samples (t0 and t1: one chunk) used to show only "100 %". The
  // run steps for about 1 s on an AVX-512 core (0.4 s at t1 = 0.2 gave 5 redraws there), longer
  // on narrower ones; redraws come every 0.1 s.
  Scratch s("progress");
  const std::string cfg = s.file("c.json", R"({"model": {"name": "heavy_top", "preset": "bruls_cardona"}, "method": "rkmk4",
    "time": {"t1": 0.5}, "step": {"h": 0.001}, "initial": {"ensemble": {"count": 100000, "sampler": "box", "seed": 1, "scale": 0.05}}})");
  const std::string out = s.path("c.h5");
  int fd = -1;
  const pid_t pid = ::forkpty(&fd, nullptr, nullptr, nullptr);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execl(LIEBATCH_CLI, LIEBATCH_CLI, "run", cfg.c_str(), "--no-plot", "-o", out.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::string screen;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) screen.append(buf, std::size_t(n));
  int ws = 0;
  ::waitpid(pid, &ws, 0);
  ::close(fd);
  ASSERT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 0) << screen;
  std::size_t redraws = 0;
  for (std::size_t p = 0; (p = screen.find("\rrun: ", p)) != std::string::npos; ++p) ++redraws;
  std::printf("%zu progress redraws\n", redraws);
  EXPECT_GE(redraws, 5u) << screen;
  EXPECT_NE(screen.find("100.0%"), std::string::npos);
  EXPECT_NE(screen.find("\nrun: heavy_top, rkmk4, 100000 members"), std::string::npos) << "the summary on a line of its own:\n" << screen;
}

TEST(CliHostile, ConvergeFitsEveryPointAboveRoundOffAndSaysWhatItDropped) {
  Scratch s("converge");
  // The clean study that reported NaN: free rigid body, RKMK4, h = 0.01, 0.005, 0.0025.
  const auto clean = liebatch(s, "converge " + s.file("c.json", R"({"model": {"name": "free_rigid_body"}, "time": {"t1": 10},
    "initial": {"state": [1, 0.5, 2]}, "converge": {"methods": ["rkmk4"], "steps": [0.01, 0.005, 0.0025]}})") + " -o " + s.path("c.h5"));
  ASSERT_EQ(clean.status, 0) << clean.err;
  H5 c(s.path("c.h5"));
  EXPECT_NEAR(c.doubles("converge/observed_order")[0], 4, 0.05);
  EXPECT_EQ(c.read<unsigned char>("converge/point", H5T_NATIVE_UCHAR), (std::vector<unsigned char>{0, 0, 0})) << "all fitted";
  const auto e = c.doubles("converge/error"), r = c.doubles("converge/roundoff"), slope = c.doubles("converge/local_slope");
  ASSERT_EQ(slope.size(), 2u);
  for (std::size_t j = 0; j < 3; ++j) EXPECT_LT(100 * r[j], e[j]) << "round-off measured far below the error";
  EXPECT_NEAR(slope[1], std::log2(e[1] / e[2]), 1e-12);
  // README's study of the 150 rad/s top: RKMK4's coarse steps are pre-asymptotic (local slopes
  // 4.8 .. 4.3), RKMK5's finest step is at its round-off; each is marked and the fit says so.
  const auto top = liebatch(s, "converge " + std::string(LIEBATCH_EXAMPLES) + "/heavy_top_convergence.json --no-plot -o " + s.path("t.h5"));
  ASSERT_EQ(top.status, 0) << top.err;
  H5 t(s.path("t.h5"));
  const auto point = t.read<unsigned char>("converge/point", H5T_NATIVE_UCHAR);  // (methods, 5 steps)
  const auto order = t.doubles("converge/observed_order");
  ASSERT_EQ(point.size(), 7u * 5u);
  // methods: lie_euler_heun, rkmk3_kutta, rkmk4, rkmk5, cf3, cf4, cg4a
  EXPECT_EQ(std::vector<unsigned char>(point.begin() + 10, point.begin() + 15), (std::vector<unsigned char>{2, 2, 0, 0, 0}));
  EXPECT_EQ(point[3 * 5 + 4], 1) << "RKMK5 at h = 6.25e-5 is at its round-off";
  EXPECT_NEAR(order[3], 5, 0.1);
  EXPECT_NE(top.out.find("2 pre-asymptotic (h in [0.0005, 0.001])"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("1 round-off (h = 6.25e-05)"), std::string::npos) << top.out;
}

TEST(CliHostile, OversizedRunsAreRefusedQuicklyWithTheSizesNamed) {
  Scratch s("oversized");
  const auto t0 = std::chrono::steady_clock::now();
  const auto big = liebatch(s, "run " + s.file("big.json", R"({"model": {"name": "heavy_top", "preset": "bruls_cardona"},
    "method": "rkmk4", "time": {"t1": 1}, "step": {"h": 0.001}, "initial": {"ensemble": {"count": 1000000000000, "scale": 0.1}}})") +
                                   " -o " + s.path("big.h5"));
  EXPECT_EQ(big.status, 3) << big.err;
  EXPECT_NE(big.err.find("needs about 281.0 TB (1e+12 members x 281 bytes) but its file system has"), std::string::npos) << big.err;
  // converge holds every member at every step at once: memory, refused as bad input.
  const auto mem = liebatch(s, "converge " + s.file("m.json", R"({"model": {"name": "heavy_top", "preset": "bruls_cardona"},
    "time": {"t1": 1}, "initial": {"ensemble": {"count": 1000000000, "scale": 0.1}},
    "converge": {"methods": ["rkmk4"], "steps": [0.01, 0.005]}})") + " -o " + s.path("m.h5"));
  EXPECT_EQ(mem.status, 2) << mem.err;
  EXPECT_NE(mem.err.find("of memory (2e+09 runs (members x step sizes) held at once) but"), std::string::npos) << mem.err;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 10) << "refused before generating or checking any member (once about 31 hours)";
  EXPECT_EQ(outputs_in(s, {"big.json", "m.json"}), std::vector<std::string>{});
}

TEST(CliHostile, NestingHugeValuesAndNumbersOutOfRangeGetShortMessagesWithTheirPath) {
  Scratch s("limits");
  // Depth 10⁵ once took memory quadratic in the depth (bad_alloc at 500 KB of config).
  const auto deep = liebatch(s, "run " + s.file("deep.json", "{\"model\": " + std::string(100000, '[') + std::string(100000, ']') + "}") +
                                    " -o " + s.path("o.h5"));
  EXPECT_EQ(deep.status, 2);
  EXPECT_NE(deep.err.find("nested deeper than 64 levels"), std::string::npos) << deep.err.substr(0, 300);
  EXPECT_LT(deep.err.size(), 400u);
  // A 10 MB model name is echoed in at most 80 characters, with its length.
  const auto huge = liebatch(s, "run " + s.file("huge.json", "{\"model\": {\"name\": \"" + std::string(10'000'000, 'x') + "\"}}") +
                                    " -o " + s.path("o.h5"));
  EXPECT_EQ(huge.status, 2);
  EXPECT_NE(huge.err.find("... (10000000 characters)"), std::string::npos) << huge.err.substr(0, 300);
  EXPECT_LT(huge.err.size(), 400u);
  const auto key = liebatch(s, "run " + s.file("key.json", "{\"" + std::string(1'000'000, 'k') + "\": 1}") + " -o " + s.path("o.h5"));
  EXPECT_EQ(key.status, 2);
  EXPECT_LT(key.err.size(), 400u) << key.err.substr(0, 300);
  const auto opt = liebatch(s, "run " + s.path("huge.json") + " --device " + std::string(100000, 'g'));
  EXPECT_EQ(opt.status, 2);
  EXPECT_LT(opt.err.size(), 400u) << opt.err.substr(0, 300);
  // A syntax error names where it is, also inside nested objects and arrays.
  const auto syntax = liebatch(s, "run " + s.file("syntax.json", R"({"model": {"name": "lorenz", "x": [[1], {"y": 2}, 3, {4}]}})") +
                                      " -o " + s.path("o.h5"));
  EXPECT_EQ(syntax.status, 2);
  EXPECT_NE(syntax.err.find("config /model/x/3: malformed JSON"), std::string::npos) << syntax.err;
  // 1e999 names its path (it was a bare "number overflow").
  const auto inf = liebatch(s, "run " + s.file("inf.json", R"({"model": {"name": "free_rigid_body"}, "time": {"t1": 1e999}})") +
                                   " -o " + s.path("o.h5"));
  EXPECT_EQ(inf.status, 2);
  EXPECT_NE(inf.err.find("config /time/t1: number 1e999 is out of the range of a double"), std::string::npos) << inf.err;
  EXPECT_EQ(outputs_in(s, {"deep.json", "huge.json", "key.json", "syntax.json", "inf.json"}), std::vector<std::string>{});
}

/// The chain of 20 links hanging at rest, compiled at run time for rkmk54 into the build's plugin
/// cache, as the chain20 example is: the config's model and state, open for more keys.
const std::string chain20 = [] {
  std::string hanging = "0, 0, -1, 0, 0, 0";  // (q_i, w_i) per link
  for (int k = 1; k < 20; ++k) hanging += ", 0, 0, -1, 0, 0, 0";
  return R"({"model": {"name": "pendulum_chain", "parameters": {"N": 20}, "methods": ["rkmk54"]},
    "time": {"t1": 0.01}, "step": {"h": 0.001}, "initial": {"state": [)" +
         hanging + "]";
}();
const Launch plugin_cache = [] {
  Launch how;
  how.env = {{"LIEBATCH_CACHE_DIR", LIEBATCH_PLUGIN_CACHE}};
  return how;
}();

TEST(CliHostile, SamplerGridBeyondItsDimensions) {
  Scratch s("grid");
  // A grid over the 60 dimensions of a 10-link chain wrote past its 32 axes (stack corruption).
  // Only chains of more than 5 links perturb in more than 32 dimensions (20 links: 120).
  std::string ones = "1";
  for (int k = 1; k < 120; ++k) ones += ", 1";
  const auto grid = liebatch(s,
                             "run " +
                                 s.file("g.json", chain20 + R"(, "ensemble": {"count": 1, "sampler": "grid", "points": [)" + ones +
                                                      R"(], "scale": 0.1}}, "method": "rkmk54"})") +
                                 " -o " + s.path("g.h5"),
                             plugin_cache);
  EXPECT_EQ(grid.status, 2);
  EXPECT_NE(grid.err.find("grid supports at most 32 dimensions"), std::string::npos) << grid.err;
  EXPECT_EQ(outputs_in(s, {"g.json"}), std::vector<std::string>{});
}

// A chain length the build lacks is compiled at run time for the model's "methods": another method
// is refused with the way to add it, and a length beyond 64 is refused as such.
TEST(CliHostile, ChainsCompiledAtRunTimeRefuseOtherMethodsAndLengths) {
  Scratch s("chains");
  const auto other = liebatch(s, "run " + s.file("m.json", chain20 + R"(}, "method": "cf4"})") + " -o " + s.path("m.h5"), plugin_cache);
  EXPECT_EQ(other.status, 2);
  EXPECT_NE(other.err.find("compiled at run time for rkmk54 (add the method to the model's \"methods\""), std::string::npos) << other.err;
  const auto long_chain = liebatch(s, "run " + s.file("l.json", R"({"model": {"name": "pendulum_chain", "parameters": {"N": 65}},
    "method": "rkmk4", "time": {"t1": 0.01}, "step": {"h": 0.001}})") +
                                          " -o " + s.path("l.h5"));
  EXPECT_EQ(long_chain.status, 2);
  EXPECT_NE(long_chain.err.find("/model/parameters/N"), std::string::npos) << long_chain.err;
  EXPECT_EQ(outputs_in(s, {"m.json", "l.json"}), std::vector<std::string>{});
}

TEST(CliHostile, SamplerAxesAndLargeConfigs) {
  Scratch s("sizes");
  const auto huge_axis = liebatch(s, "run " + s.file("a.json", R"({"model": {"name": "free_rigid_body"}, "method": "rkmk4",
    "time": {"t1": 0.01}, "step": {"h": 0.001}, "initial": {"state": [1, 0, 0],
    "ensemble": {"count": 4, "sampler": "grid", "points": [1e300, 1, 1], "scale": 0.1}}})") + " -o " + s.path("a.h5"));
  EXPECT_EQ(huge_axis.status, 2);
  EXPECT_NE(huge_axis.err.find("/initial/ensemble/points/0: expected an integer in [1, count = 4]"), std::string::npos) << huge_axis.err;
  // A config of 3000 inline states (≈ 100 kB) is kept whole in the output's `config` attribute
  // (compact attribute storage holds 64 kB: this failed as "a full disk").
  std::string states;
  for (int k = 0; k < 3000; ++k) states += std::string(k ? ", " : "") + "[1, 0.5, " + std::to_string(k) + ".25]";
  const auto big = liebatch(s, "run " + s.file("b.json", R"({"model": {"name": "free_rigid_body"}, "method": "rkmk4",
    "time": {"t1": 0.01}, "step": {"h": 0.001}, "initial": {"states": [)" + states + R"(]}})") + " --no-plot -o " + s.path("b.h5"));
  ASSERT_EQ(big.status, 0) << big.err;
  EXPECT_GT(H5(s.path("b.h5")).attr("config").size(), 65536u);
}

/// Every regular file under `dir` with its contents (names relative to it), but the captured output.
std::map<std::string, std::string> tree(const fs::path& dir) {
  std::map<std::string, std::string> m;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) m[fs::relative(e.path(), dir).string()] = slurp(e.path().string());
  m.erase("stdout.txt");  // the harness's captures
  m.erase("stderr.txt");
  return m;
}

// Issue 33, item 1. gnuplot once read the PNG's temporary name inside its script, and the shell
// ran gnuplot: a newline in the output name ended the string, so `-o $'x\nsystem "touch PWNED"\ny.h5'`
// ran a command and `-o $'line\nbreak.h5'` truncated a file named `line`; TMPDIR with a quote
// lost the plot. Each name below, as the output's name, its directory's and TMPDIR, writes its
// PNG under exactly that name, changes no other file and runs nothing (the canaries stay absent).
TEST(CliHostile, OutputNamesAndTmpdirNeverReachAShellOrGnuplotsScript) {
  if (!lb::cli::in_path("gnuplot")) GTEST_SKIP() << "gnuplot not in PATH (scripts/install-deps.sh installs gnuplot-nox): no plot to inject into";
  Scratch s("names");
  const std::string cfg = s.file("c.json", R"({"model": {"name": "free_rigid_body"}, "method": "rkmk4", "time": {"t1": 1},
    "step": {"h": 0.01}, "initial": {"state": [0.3, 0.8, 0.5]}, "outputs": {"samples": 5}})");
  s.file("line", "precious\n");
  const std::string canary = s.path("CANARY");
  const std::vector<std::string> names = {
      "line\nbreak", "x\nsystem \"touch CANARY\"\ny", "x'\nsystem 'touch CANARY'\n'y", "q\"uote", "it's", "back`touch CANARY`tick",
      "$(touch CANARY)", "semi;touch CANARY;colon", "back\\slash", "-dash", std::string("\xff\xfe\x80 bytes"), "sp ace"};
  int k = 0;
  for (const auto& name : names) {
    SCOPED_TRACE("name " + std::to_string(k));
    // The name as the output's, as its directory's (holding a path to the canary), and as TMPDIR's.
    const fs::path dir = s.dir / ("d" + std::to_string(k++) + name + "\nsystem \"touch " + canary + "\"\n");
    const fs::path tmp = s.dir / ("t" + name + "'\nsystem \"touch " + canary + "\"\n");
    fs::create_directories(dir);
    fs::create_directories(tmp);
    for (const fs::path& out : {s.dir / (name + ".h5"), dir / (name + ".h5"), dir / "o.h5"}) {
      const auto before = tree(s.dir);
      Launch how = in_dir(s.dir.string());
      how.env = {{"TMPDIR", tmp.string()}};
      const auto r = liebatch(s, {"run", cfg, "-q", "-o", out.string()}, how);
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_EQ(r.err.find("plot"), std::string::npos) << r.err;
      fs::path png = out;
      png.replace_extension(".png");
      EXPECT_EQ(slurp(png.string()).substr(0, 8), "\x89PNG\r\n\x1a\n") << "the PNG under exactly its name";
      auto after = tree(s.dir);
      for (const auto& f : {out, png}) after.erase(fs::relative(f, s.dir).string());
      EXPECT_EQ(after, before) << "a file besides the outputs changed";
      EXPECT_TRUE(fs::is_empty(tmp)) << "the plot's private directory left behind";
      EXPECT_FALSE(fs::exists(canary)) << "gnuplot or a shell ran a command from a name";
      EXPECT_FALSE(fs::exists(s.dir / "CANARY"));
      fs::remove(out);
      fs::remove(png);
    }
  }
  EXPECT_EQ(slurp(s.path("line")), "precious\n");
}

// Issue 33, item 2, as the issue ran it: a stroboscopic map records every strobe once (67, then
// 99 with 6 twice, of 100 before), and its limit counts the strobes of the run's span alone.
TEST(CliHostile, StroboscopicMapsRecordEveryStrobeOnce) {
  Scratch s("strobes");
  auto config = [&](const std::string& name, const std::string& model, const std::string& method, double h, const std::string& section) {
    return s.file(name, R"({"model": )" + model + R"(, "method": ")" + method + R"(", "time": {"t1": 10}, "step": {"h": )" + std::to_string(h) +
                            R"(}, "outputs": {"plot": false}, "section": {"type": "stroboscopic", )" + section + "}}");
  };
  const std::string body = R"({"name": "free_rigid_body"}, "initial": {"state": [0.3, 0.8, 0.5]})";
  for (double h : {0.01, 0.03, 0.001}) {
    const auto r = liebatch(s, "poincare " + config("c.json", body, "rkmk4", h, R"("period": 0.1, "max_hits": 1000)") + " -o " + s.path("p.h5"));
    ASSERT_EQ(r.status, 0) << r.err;
    H5 p(s.path("p.h5"));
    const auto t = p.doubles("hits/t");
    ASSERT_EQ(t.size(), 100u) << "h " << h;
    for (std::size_t k = 0; k < t.size(); ++k) EXPECT_EQ(t[k], 0.0 + double(k + 1) * 0.1) << "h " << h << ", strobe " << k + 1;
  }
  // The planar pendulum under HEDOP5 missed t = 0.1.
  const auto pend = liebatch(s, "poincare " + config("pend.json", R"({"name": "planar_pendulum", "preset": "pend2d"})", "hedop5", 0.01,
                                                   R"("period": 0.1, "max_hits": 1000)") + " -o " + s.path("pend.h5"));
  ASSERT_EQ(pend.status, 0) << pend.err;
  const auto tp = H5(s.path("pend.h5")).doubles("hits/t");
  ASSERT_EQ(tp.size(), 100u);
  EXPECT_EQ(tp[0], 0.1);
  // A section that starts long before the run: one strobe in (0, 10] per unit, accepted.
  const auto early = liebatch(s, "poincare " + config("e.json", body, "rkmk4", 0.01, R"("t0": -1e9, "period": 1)") + " -o " + s.path("e.h5"));
  ASSERT_EQ(early.status, 0) << early.err;
  EXPECT_EQ(H5(s.path("e.h5")).doubles("hits/t").size(), 10u);
  // Too many strobes in the span: the count, of what, said once.
  const auto many = liebatch(s, "poincare " + config("m.json", body, "rkmk4", 0.01, R"("period": 1e-8)") + " -o " + s.path("m.h5"));
  EXPECT_EQ(many.status, 2);
  EXPECT_NE(many.err.find("/section/period: a period of 1e-08 gives 1e+09 strobes in the run's span (0, 10]; expected at most 1e8"),
            std::string::npos) << many.err;
}

// Issue 33, item 3: a perturbed constrained member that its projection could not bring back onto
// Φ = 0 ran as "ok" (144 pendulums with |q| down to 0.02, 35 tops with |Φ| up to 1.15). Now every
// member starts within the tolerance (box draws are redrawn), or the run is refused naming it.
TEST(CliHostile, EveryMemberStartsOnItsManifoldOrTheRunIsRefused) {
  Scratch s("manifold");
  auto run = [&](const std::string& name, const std::string& model, const std::string& initial) {
    return liebatch(s, "run " + s.file(name + ".json", R"({"model": )" + model + R"(, "method": "hedop5", "time": {"t1": 0.1},
      "step": {"h": 0.01}, "outputs": {"samples": 2, "plot": false}, "initial": )" + initial + "}") + " -o " + s.path(name + ".h5"));
  };
  const std::string pendulum = R"({"name": "planar_pendulum"})", top = R"({"name": "heavy_top_se3", "preset": "bruls_cardona"})";
  // Box draws: every member's constraints and multiplier consistent at t0 (observables 1-3 of
  // sample 0: |Phi|, |Bv|, |lambda - lambda*|/(1 + |lambda*|)).
  for (const auto& [name, model, initial, count] :
       {std::tuple{"pend", pendulum, std::string(R"({"state": [0, -1, 0, 0], "ensemble": {"count": 2000, "scale": 1.0, "seed": 3}})"), 2000},
        std::tuple{"top", top, std::string(R"({"ensemble": {"count": 3000, "scale": 1.0, "seed": 5}})"), 3000}}) {
    const auto r = run(name, model, initial);
    ASSERT_EQ(r.status, 0) << name << r.err;
    const auto obs = H5(s.path(std::string(name) + ".h5")).doubles("samples/observables");  // (sample, obs, member)
    double worst = 0;
    for (int q = 1; q < 4; ++q)
      for (int i = 0; i < count; ++i) worst = std::max(worst, std::isnan(obs[std::size_t(q * count + i)]) ? INFINITY : obs[std::size_t(q * count + i)]);
    EXPECT_LE(worst, 1e-10) << name << ": a member starts off its manifold";
  }
  // A Sobol' point has no other draw: refused, naming the member and its defect (exit 2).
  const auto sobol = run("sobol", pendulum, R"({"state": [0, -1, 0, 0], "ensemble": {"count": 2000, "scale": 1.0, "seed": 3, "sampler": "sobol"}})");
  EXPECT_EQ(sobol.status, 2) << sobol.err;
  EXPECT_NE(sobol.err.find("/initial/ensemble: member "), std::string::npos) << sobol.err;
  EXPECT_NE(sobol.err.find("starts off the model's manifold: defect "), std::string::npos) << sobol.err;
  EXPECT_FALSE(fs::exists(s.path("sobol.h5")));
  // |q| = 0: B M^-1 B^T singular, a NaN defect: refused naming /initial, and it cannot be projected.
  const auto zero = run("zero", pendulum, R"({"state": [0, 0, 0, 0]})");
  EXPECT_EQ(zero.status, 2) << zero.err;
  EXPECT_NE(zero.err.find("/initial: initial state 0 is off the model's manifold: defect nan"), std::string::npos) << zero.err;
  const auto zero_n = run("zero_n", pendulum, R"({"state": [0, 0, 0, 0], "normalize": true})");
  EXPECT_EQ(zero_n.status, 2) << zero_n.err;
  EXPECT_NE(zero_n.err.find("cannot be projected"), std::string::npos) << zero_n.err;
}

// Issue 33, item 4: samples a failed member never reached were zeros; validate failed a correct
// HEDOP5 run on its multipliers (6.28e-11 against the (q, v) bound 3.20e-11).
TEST(CliHostile, UnreachedSamplesAreNanAndValidateBoundsTheMultipliersApart) {
  Scratch s("nan_fill");
  const auto r = liebatch(s, "run " + s.file("p.json", R"({"model": {"name": "planar_pendulum", "preset": "pend2d"}, "method": "hedop5",
    "time": {"t1": 10}, "step": {"h": 0.2}, "outputs": {"samples": 11, "plot": false}})") + " -o " + s.path("p.h5"));
  H5 h(s.path("p.h5"));
  ASSERT_EQ(h.read<unsigned char>("final/status", H5T_NATIVE_UCHAR).size(), 1u);
  ASSERT_NE(h.read<unsigned char>("final/status", H5T_NATIVE_UCHAR)[0], 1) << "the member must fail for this check: " << r.err;
  const auto t = h.doubles("samples/t"), y = h.doubles("samples/y"), obs = h.doubles("samples/observables");
  const double t_end = h.doubles("final/t")[0];
  std::size_t unreached = 0;
  for (std::size_t k = 0; k < 11; ++k) {
    const bool reached = k * 1.0 <= t_end;  // sample k at t = k
    EXPECT_EQ(std::isnan(t[k]), !reached) << "sample " << k;
    for (std::size_t d = 0; d < 5; ++d) EXPECT_EQ(std::isnan(y[k * 5 + d]), !reached) << "sample " << k << ", component " << d;
    for (std::size_t q = 0; q < obs.size() / 11; ++q) EXPECT_EQ(std::isnan(obs[k * (obs.size() / 11) + q]), !reached) << "sample " << k;
    unreached += !reached;
  }
  EXPECT_GT(unreached, 0u);

  const auto v = liebatch(s, "validate " + s.file("v.json", R"({"model": {"name": "heavy_top_se3", "preset": "bruls_cardona"}, "method": "hedop5",
    "time": {"t1": 1.00002}, "step": {"h": 0.005}, "outputs": {"samples": 7}})") + " -o " + s.path("v.h5"));
  EXPECT_EQ(v.status, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("final (q, v): max "), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("final multipliers: max "), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("the multipliers' "), std::string::npos) << v.out;
  H5 hv(s.path("v.h5"));
  EXPECT_EQ(hv.attr("validate_result"), "pass");
  const auto bound = hv.doubles("validate/bound"), max = hv.doubles("validate/max");
  ASSERT_EQ(bound.size(), 5u);  // final (q, v), final multipliers, sampled (q, v), sampled multipliers, observables
  EXPECT_GT(bound[1], bound[0]);
  for (std::size_t o = 0; o < 5; ++o) EXPECT_LE(max[o], bound[o]) << o;
}

// Issue 33, item 4: no silent coarsening in any precision, no order fitted from steps as long as
// the span; item 5: step.h in a converge config named as unused there.
TEST(CliHostile, StepsTheTimeCannotResolveAndStepsAsLongAsTheSpanAreNoData) {
  Scratch s("resolution");
  const std::string body = R"("model": {"name": "free_rigid_body"}, "initial": {"state": [0.3, 0.8, 0.5]}, "outputs": {"plot": false})";
  auto config = [&](const std::string& name, const std::string& rest) { return s.file(name, "{" + body + ", " + rest + "}"); };
  // t0 = 1e16 with h = 1 (double's spacing there is 2) took one step of 4; t0 = 1.7e9 with
  // h = 1e-7 took 9970 steps for 10^4. Refused in run, validate and converge alike.
  for (const auto& [time, step, steps] : {std::tuple{R"("t0": 1e16, "t1": 1.0000000000000004e16)", "1", "[2, 1]"},
                                          std::tuple{R"("t0": 1.7e9, "t1": 1700000000.001)", "1e-07", "[2e-7, 1e-7]"}}) {
    for (const std::string cmd : {"run", "validate"}) {
      const auto r = liebatch(s, cmd + " " + config("r.json", R"("method": "rkmk4", "time": {)" + std::string(time) + R"(}, "step": {"h": )" + step + "}") +
                                     " -o " + s.path("r.h5"));
      EXPECT_EQ(r.status, 2) << cmd << " " << time << r.err;
      EXPECT_NE(r.err.find("config /time: double cannot resolve steps of " + std::string(step) + " at |t| = "), std::string::npos) << r.err;
      EXPECT_FALSE(fs::exists(s.path("r.h5")));
    }
    const auto c = liebatch(s, "converge " + config("c.json", R"("time": {)" + std::string(time) + R"(}, "converge": {"methods": ["rkmk4"], "steps": )" +
                                                                 steps + "}") + " -o " + s.path("c.h5"));
    EXPECT_EQ(c.status, 2) << c.err;
    EXPECT_NE(c.err.find("double cannot resolve steps of"), std::string::npos) << c.err;
  }
  // Steps of 10 and 5 on a span of 1: each one step, marked so; no order fitted (it printed 0).
  const auto whole = liebatch(s, "converge " + config("w.json", R"("time": {"t1": 1}, "converge": {"methods": ["rkmk4"], "steps": [10, 5]})") +
                                     " -o " + s.path("w.h5"));
  EXPECT_EQ(whole.status, 1) << whole.out << whole.err;
  EXPECT_NE(whole.err.find("no observed order could be fitted"), std::string::npos) << whole.err;
  H5 w(s.path("w.h5"));
  EXPECT_TRUE(std::isnan(w.doubles("converge/observed_order")[0]));
  EXPECT_EQ(w.read<unsigned char>("converge/point", H5T_NATIVE_UCHAR), (std::vector<unsigned char>{5, 5}));
  // step.h is not a converge key: said so, not "unknown key".
  const auto h = liebatch(s, "converge " + config("h.json", R"("time": {"t1": 1}, "step": {"h": 0.1}, "converge": {"methods": ["rkmk4"], "steps": [0.1, 0.05]})") +
                                 " -o " + s.path("h.h5"));
  EXPECT_EQ(h.status, 2);
  EXPECT_NE(h.err.find("/step/h: not used by converge"), std::string::npos) << h.err;
}

// Issue 33, item 5: inputs read exactly as written, and messages that show what they quote.
TEST(CliHostile, InputsAreReadExactlyAndMessagesShowWhatTheyQuote) {
  Scratch s("exact");
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(s.path(name), std::ios::binary) << bytes;
    return s.path(name);
  };
  const std::string free_body = R"("model": {"name": "free_rigid_body"}, "method": "rkmk4", "time": {"t1": 0.1}, "step": {"h": 0.01}, "outputs": {"plot": false})";
  auto from_file = [&](const std::string& states) {
    return liebatch(s, "run " + s.file("f.json", "{" + free_body + R"(, "initial": {"file": ")" + states + R"("}})") + " -o " + s.path("f.h5"));
  };
  // A NUL inside a number: strtod stopped there and read "0.5".
  const auto nul = from_file(write("nul.txt", std::string("0.3 0.8 0.5\0junk\n", 17)));
  EXPECT_EQ(nul.status, 2);
  EXPECT_NE(nul.err.find("line 1: expected a finite number, got '0.5\\x00junk'"), std::string::npos) << nul.err;
  // A byte-order mark, shown rather than invisible.
  const auto bom = from_file(write("bom.txt", "\xEF\xBB\xBF" "0.3 0.8 0.5\n"));
  EXPECT_EQ(bom.status, 2);
  EXPECT_NE(bom.err.find("got '\\uFEFF0.3'"), std::string::npos) << bom.err;
  // A key holding a NUL or an escape sequence: escaped, and the message goes on after it.
  for (const auto& [key, shown] : {std::pair{std::string("a\\u0000b"), std::string("/model/a\\x00b: unknown key")},
                                   std::pair{std::string("\\u001b[31mred"), std::string("/model/\\x1b[31mred: unknown key")}}) {
    const auto r = liebatch(s, "run " + s.file("k.json", R"({"model": {"name": "free_rigid_body", ")" + key + R"(": 1}, "method": "rkmk4",
      "time": {"t1": 0.1}, "step": {"h": 0.01}, "initial": {"state": [1, 0, 0]}})") + " -o " + s.path("k.h5"));
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(shown), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << "an escape sequence reached the terminal";
  }
  // heavy_top_se3 from a file of 18 numbers (q, v), lambda completed, as "state" accepts them.
  const std::string top = R"("model": {"name": "heavy_top_se3", "preset": "bruls_cardona"}, "method": "hedop5", "time": {"t1": 0.05},
    "step": {"h": 0.0025}, "outputs": {"plot": false})";
  const std::string qv = "1 0 0 0 1 0 0 0 1 0 1 0 0 150 -4.61538 4.61538 0 0";
  const auto a = liebatch(s, "run " + s.file("a.json", "{" + top + R"(, "initial": {"file": ")" + write("qv.txt", qv + "\n") + R"("}})") + " -o " + s.path("a.h5"));
  std::string comma = qv;
  for (char& c : comma) c = c == ' ' ? ',' : c;
  const auto b = liebatch(s, "run " + s.file("b.json", "{" + top + R"(, "initial": {"state": [)" + comma + "]}}") + " -o " + s.path("b.h5"));
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(H5(s.path("a.h5")).doubles("final/y"), H5(s.path("b.h5")).doubles("final/y"));
  // Output names up to NAME_MAX: the temporary's suffix once pushed 246-255-byte names past it.
  const std::string cfg = s.file("c.json", "{" + free_body + R"(, "initial": {"state": [0.3, 0.8, 0.5]}})");
  for (std::size_t len : {246, 250, 255}) {
    const std::string name = std::string(len - 3, 'n') + ".h5";
    const auto r = liebatch(s, "run " + cfg + " -o " + s.path(name));
    EXPECT_EQ(r.status, 0) << len << r.err;
    EXPECT_TRUE(fs::exists(s.path(name))) << len;
  }
  // ".h5" alone is a hidden file's name without an extension: said so.
  const auto dot = liebatch(s, "run " + cfg + " -o " + s.path(".h5"));
  EXPECT_EQ(dot.status, 2);
  EXPECT_NE(dot.err.find("expected a name before .h5"), std::string::npos) << dot.err;
}

// Issue 33, item 6, from the command line: rigid_body_attitude keeps its spatial momentum QΠ
// under every method that conserves it (10⁴ steps of h = 0.1; 1.2e-11 to 4e-11 before).
TEST(CliHostile, FreeBodyWithAttitudeKeepsItsSpatialMomentum) {
  Scratch s("attitude");
  for (const std::string m : {"slgi0", "slgi_half", "slgi1", "hp_sv_exp", "hp_sv_cay", "hp_ve_exp", "hp_ve_cay"}) {
    const auto r = liebatch(s, "run " + s.file(m + ".json", R"({"model": {"name": "rigid_body_attitude", "parameters": {"inertia": [2, 1, 0.5]}},
      "method": ")" + m + R"(", "time": {"t1": 1000}, "step": {"h": 0.1}, "outputs": {"plot": false},
      "initial": {"state": [1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 1, 2]}})") + " -o " + s.path(m + ".h5"));
    ASSERT_EQ(r.status, 0) << m << r.err;
    const auto y = H5(s.path(m + ".h5")).doubles("final/y");  // (12, 1): Q row-major, then Π
    ASSERT_EQ(y.size(), 12u);
    double d2 = 0;
    const long double pi0[3] = {0.5L, 1, 2};
    for (int i = 0; i < 3; ++i) {
      long double p = 0;
      for (int j = 0; j < 3; ++j) p += static_cast<long double>(y[std::size_t(3 * i + j)]) * static_cast<long double>(y[std::size_t(9 + j)]);
      d2 += double((p - pi0[i]) * (p - pi0[i]));
    }
    EXPECT_LE(std::sqrt(d2), 1e-13) << m;
  }
}

TEST(CliHostile, ExitStatusesFollowTheReadmeTable) {
  Scratch s("exits");
  // Every member failing is a failed run (1), not a success; the file records each status.
  const auto all_fail = liebatch(s, "run " + s.file("l.json", R"({"model": {"name": "lorenz"}, "method": "rkmk4",
    "time": {"t1": 100}, "step": {"h": 0.5}, "initial": {"states": [[1, 1, 1], [2, 1, 1]]}})") + " --no-plot -o " + s.path("l.h5"));
  EXPECT_EQ(all_fail.status, 1) << all_fail.err;
  EXPECT_NE(all_fail.err.find("no member finished (2 nonfinite)"), std::string::npos) << all_fail.err;
  EXPECT_EQ(H5(s.path("l.h5")).read<unsigned char>("final/status", H5T_NATIVE_UCHAR), (std::vector<unsigned char>{2, 2}));
  // One member failing of two is a success.
  const auto one_fails = liebatch(s, "run " + s.file("m.json", R"({"model": {"name": "lorenz"}, "method": "rkmk4",
    "time": {"t1": 1}, "step": {"h": 0.01}, "initial": {"states": [[1, 1, 1], [1e300, 1e300, 1e300]]}})") + " --no-plot -o " + s.path("m.h5"));
  EXPECT_EQ(one_fails.status, 0) << one_fails.err;
  // A config that cannot be read is a file error (3), missing or not a file.
  const auto missing = liebatch(s, "run " + s.path("missing.json"));
  EXPECT_EQ(missing.status, 3);
  EXPECT_NE(missing.err.find("No such file or directory"), std::string::npos) << missing.err;
  EXPECT_EQ(liebatch(s, "run " + s.dir.string()).status, 3);
  // A states file that is a device (endless) is refused, not read until memory runs out.
  const auto dev = liebatch(s, "run " + s.file("d.json", R"({"model": {"name": "lorenz"}, "method": "rkmk4", "time": {"t1": 1},
    "step": {"h": 0.1}, "initial": {"file": "/dev/zero"}})") + " -o " + s.path("d.h5"));
  EXPECT_EQ(dev.status, 3) << dev.err;
  EXPECT_NE(dev.err.find("not a regular file"), std::string::npos) << dev.err;
}

}  // namespace

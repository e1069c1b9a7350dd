// A mutation fuzzer for the liebatch command line and its config reader. Seed configs
// (tests/fuzz/corpus, named after the command they suit) are mutated — values replaced by hostile
// ones, keys added, deleted and repeated, nesting deepened, bytes flipped — and run with mutated
// options, each execution in a child process of this program, which is built with
// AddressSanitizer and UndefinedBehaviorSanitizer. Every execution must:
//   - end with a documented exit status, 0 to 4 (no signal, no sanitizer report, no leak);
//   - leave no temporary file, and no output file after a failure (status 2, 3 or 4);
//   - leave its inputs (the config, a states file) byte for byte as they were, and files already at
//     its output paths too: someone else's (unless --force), read-only ones and links' targets.
// An execution still running after the time limit is stopped with SIGTERM, as a user would, and
// counted, not failed (a valid config may ask for a long run); it must still remove its
// temporary files, and one that ignores SIGTERM for 5 s fails.
//
// Usage: fuzz_cli CORPUS_DIR SCRATCH_DIR [executions = 1000] [seed = 1] [max seconds = 300]
// A failing input is kept in SCRATCH_DIR as failure-K.json with its command line in failure-K.txt.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/commands/commands.hpp"

// A sanitizer report ends the child with this status, told apart from the command's own 0–4.
constexpr int sanitizer_status = 86;
// protect_shadow_gap=0: the CUDA runtime (the command's GPU path, linked where built) maps memory
// where AddressSanitizer's shadow gap would be.
extern "C" const char* __asan_default_options() { return "exitcode=86:detect_leaks=1:abort_on_error=0:protect_shadow_gap=0"; }
extern "C" const char* __lsan_default_options() { return "exitcode=86"; }
extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:exitcode=86:print_stacktrace=1"; }

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Rng = std::mt19937_64;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t pick(Rng& r, std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(r); }
template <class V> const auto& any(Rng& r, const V& v) { return v[pick(r, v.size())]; }

const std::vector<std::string> keys = {
    "model", "name", "preset", "parameters", "method", "time", "t0", "t1", "step", "h", "adaptive", "atol", "rtol", "h0",
    "max_steps", "initial", "state", "states", "file", "normalize", "tolerance", "ensemble", "count", "sampler", "seed",
    "scale", "points", "energy", "outputs", "samples", "plot", "section", "type", "component", "value", "direction",
    "condition", "less_than", "greater_than", "max_hits", "period", "converge", "methods", "steps", "factor", "reference",
    "kind", "validate", "against", "bound", "N", "inertia", "mass", "gravity", "com", "lengths", "masses", "bogus", "", "a/b",
    "~1"};
const std::vector<std::string> words = {
    "heavy_top", "free_rigid_body", "rigid_body_attitude", "heavy_top_spatial", "pendulum_chain", "quadrotor_load", "lorenz",
    "rkmk4", "rkmk54", "cf4", "lie_euler", "bruls_cardona", "paper", "box", "sobol", "grid", "hyperplane", "stroboscopic",
    "up", "down", "both", "extended", "gpu", "method", "Gamma_x", "Pi_z", "q1_x", "states.txt", "missing.txt", "/dev/zero",
    "/", ".", "config.json", "out.h5", "", "\xe2\x88\x9e", "\xff\xfe", "nan", "-1"};

/// A hostile value of any JSON type.
json hostile(Rng& r) {
  switch (pick(r, 14)) {
    case 0: return any(r, std::vector<double>{0.0, -0.0, -1.0, 0.5, 1e-320, 1e-300, 1e300, -1e308, 1.7976931348623157e308});
    case 1: return any(r, std::vector<long long>{0, 1, 2, -1, 3, 7, 65, 1LL << 31, 1LL << 40, 1000000000000LL, 9223372036854775807LL,
                                                 -9223372036854775807LL - 1});
    case 2: return std::uint64_t(18446744073709551615ULL);
    case 3: return any(r, words);
    case 4: return std::string(1 + pick(r, 200000), char('a' + pick(r, 26)));
    case 5: return bool(pick(r, 2));
    case 6: return nullptr;
    case 7: return json::array();
    case 8: return json::object();
    case 9: {
      json a = json::array();
      for (std::size_t k = 0, n = pick(r, 14); k < n; ++k) a.push_back(pick(r, 4) ? json(double(pick(r, 5)) - 2) : hostile(r));
      return a;
    }
    case 10: {
      json v = 1;
      for (std::size_t k = 0, n = 1 + pick(r, 100); k < n; ++k) v = pick(r, 2) ? json::array({v}) : json{{"x", v}};
      return v;
    }
    case 11: return json{{any(r, keys), hostile(r)}};
    case 12: return std::uniform_real_distribution<double>(-10, 10)(r);
    default: return any(r, std::vector<double>{1e-9, 1e-4, 0.01, 0.1, 1, 10, 100, 1e6, 1e12});
  }
}

/// The JSON pointers of every value in j.
void pointers(const json& j, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  out.push_back(at);
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it) pointers(it.value(), at / it.key(), out);
  else if (j.is_array())
    for (std::size_t k = 0; k < j.size(); ++k) pointers(j[k], at / k, out);
}

/// One change to the tree: a value replaced, a key removed or added, an array grown.
void mutate_tree(json& j, Rng& r) {
  std::vector<json::json_pointer> ps;
  pointers(j, json::json_pointer(), ps);
  const auto at = any(r, ps);
  json& v = j[at];
  switch (pick(r, 5)) {
    case 0:
    case 1: v = hostile(r); break;
    case 2:
      if (!at.empty()) {
        json& parent = j[at.parent_pointer()];
        if (parent.is_object()) parent.erase(at.back());
        else if (parent.is_array() && !parent.empty()) parent.erase(parent.begin() + long(pick(r, parent.size())));
      }
      break;
    case 3:
      if (v.is_object()) v[any(r, keys)] = hostile(r);
      break;
    default:
      if (v.is_array()) v.push_back(hostile(r));
      else if (v.is_number()) v = v.get<double>() * any(r, std::vector<double>{-1, 0, 1e-8, 1e8, 1e300});
      break;
  }
}

/// One change to the text: a repeated key, a byte flipped, inserted or deleted, a cut.
void mutate_text(std::string& s, Rng& r) {
  if (s.empty()) { s = "{"; return; }
  const std::size_t p = pick(r, s.size());
  switch (pick(r, 6)) {
    case 0:
      if (const auto b = s.find('{', p); b != std::string::npos) s.insert(b + 1, "\"" + any(r, keys) + "\": 1, ");
      break;
    case 1: s[p] = char(pick(r, 256)); break;
    case 2: s.insert(p, 1, any(r, std::vector<char>{'{', '}', '[', ']', ',', ':', '"', '\\', '0', '-', 'e', '\0'})); break;
    case 3: s.erase(p, 1 + pick(r, 16)); break;
    case 4: s.resize(p); break;
    default: s.insert(p, s.substr(p, pick(r, 64))); break;
  }
}

struct Outcome {
  int status = -1;         ///< exit status, or -1
  int signal = 0;          ///< the signal that ended it
  bool timed_out = false;  ///< stopped by our SIGTERM at the time limit
};

Outcome execute(const std::vector<std::string>& args, double seconds) {
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("child-stderr.txt", "w", stderr);
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::exit(lb::cli::cli_main(int(argv.size()), argv.data()));  // exit: the leak check runs
  }
  const auto start = std::chrono::steady_clock::now();
  const auto waited = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  int ws = 0;
  bool termed = false;
  while (::waitpid(pid, &ws, WNOHANG) == 0) {
    if (!termed && waited() > seconds) { ::kill(pid, SIGTERM); termed = true; }
    if (termed && waited() > seconds + 5) ::kill(pid, SIGKILL);
    ::usleep(2000);
  }
  Outcome o;
  if (WIFEXITED(ws)) o.status = WEXITSTATUS(ws);
  if (WIFSIGNALED(ws)) {
    o.signal = WTERMSIG(ws);
    o.timed_out = termed && o.signal == SIGTERM;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: fuzz_cli CORPUS_DIR SCRATCH_DIR [executions] [seed] [max seconds]\n";
    return 2;
  }
  const fs::path corpus = argv[1], scratch = argv[2];
  const long executions = argc > 3 ? std::atol(argv[3]) : 1000;
  const unsigned long seed = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 1;
  const double max_seconds = argc > 5 ? std::atof(argv[5]) : 300;
  std::vector<std::pair<std::string, json>> seeds;  // (command, config)
  std::string states;
  for (const auto& e : fs::directory_iterator(corpus)) {
    if (e.path().extension() == ".txt") states = slurp(e.path());
    if (e.path().extension() != ".json") continue;
    const std::string stem = e.path().stem().string();
    seeds.emplace_back(stem.substr(0, stem.find('_')), json::parse(slurp(e.path())));
  }
  std::sort(seeds.begin(), seeds.end(), [](const auto& a, const auto& b) { return a.second.dump() < b.second.dump(); });
  if (seeds.empty()) { std::cerr << "fuzz_cli: no seed configs in " << corpus << "\n"; return 2; }
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  fs::current_path(scratch);
  const std::vector<std::string> commands = {"run", "poincare", "converge", "validate", "list", "bogus"};

  Rng r(seed);
  std::map<int, long> statuses;
  long done = 0, timeouts = 0, failures = 0;
  const auto start = std::chrono::steady_clock::now();
  for (; done < executions; ++done) {
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > max_seconds) break;
    const auto& [command, base] = any(r, seeds);
    json j = base;
    // A quarter of the executions keep the seed's structure (valid runs reach the engine and the
    // writers); the rest take one to three changes, and a fifth of all also byte-level ones.
    for (std::size_t k = 0, n = pick(r, 4) == 0 ? 0 : 1 + pick(r, 3); k < n; ++k) mutate_tree(j, r);
    std::string text = j.dump(pick(r, 2) ? -1 : 2, ' ', false, json::error_handler_t::replace);
    if (pick(r, 5) == 0)
      for (std::size_t k = 0, n = 1 + pick(r, 3); k < n; ++k) mutate_text(text, r);
    std::ofstream("config.json", std::ios::binary) << text;
    std::ofstream("states.txt", std::ios::binary) << states;

    std::vector<std::string> args = {"liebatch", pick(r, 8) ? command : any(r, commands), "config.json", "--threads", "1"};
    if (pick(r, 8)) args.push_back("--no-plot");  // gnuplot now and then
    if (pick(r, 4)) args.push_back("-q");
    std::string out = "out.h5";
    switch (pick(r, 16)) {
      case 0: out = "config.json"; break;
      case 1: out = "states.h5"; break;  // its CSV would be states.csv: none here, so allowed
      case 2: out = "out.txt"; break;
      case 3: out = "."; break;
      case 4: out = "missing-dir/out.h5"; break;
      case 5: out = std::string(5000, 'o') + ".h5"; break;
      // Names a shell or gnuplot would read as code (issue 33): the plot must not run them.
      case 6: out = "x\nsystem \"touch PWNED\"\ny.h5"; break;
      case 7: out = "$(touch PWNED);`touch PWNED`'\"\\.h5"; break;
      case 8: out = std::string("-\xff\xfe\x01.h5"); break;
      case 9: out = std::string(250, 'n') + ".h5"; break;
      default: break;
    }
    args.insert(args.end(), {"-o", out});
    for (std::size_t k = 0, n = pick(r, 3); k < n; ++k) {
      const std::vector<std::string> extra = any(r, std::vector<std::vector<std::string>>{
          {"--batch", any(r, std::vector<std::string>{"0", "1", "7", "-1", "99999999999999999999", "x"})},
          {"--precision", any(r, std::vector<std::string>{"float", "double", "half"})},
          {"--device", any(r, std::vector<std::string>{"cpu", "gpu", "auto", "tpu"})},
          {"--threads", any(r, std::vector<std::string>{"0", "2", "-3", "5000"})},
          {"--force"},
          {"--bogus"},
          {"extra-argument"}});
      args.insert(args.end(), extra.begin(), extra.end());
    }

    const std::vector<std::string> outputs = {"out.h5", "out.csv", "out.png", "states.h5", "states.csv", "states.png"};
    for (const auto& f : outputs) {
      std::error_code ec;
      fs::permissions(f, fs::perms::owner_all, fs::perm_options::add, ec);
      fs::remove(f, ec);
    }
    // Half the time a file is already at an output path: someone else's, read-only, or a link.
    const std::string pre = pick(r, 2) ? "" : any(r, std::vector<std::string>{"out.h5", "out.csv", "out.png"});
    const std::size_t pre_kind = pick(r, 3);  // 0 someone else's, 1 read-only, 2 a link to victim.txt
    const std::string theirs = "someone else's file";
    std::ofstream("victim.txt") << theirs;
    if (!pre.empty()) {
      if (pre_kind == 2) fs::create_symlink("victim.txt", pre);
      else std::ofstream(pre) << theirs;
      if (pre_kind == 1) fs::permissions(pre, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    }
    const bool force = std::find(args.begin(), args.end(), "--force") != args.end();
    const Outcome o = execute(args, 5);
    std::string why;
    if (o.timed_out) ++timeouts;
    else if (o.signal) why = "killed by signal " + std::to_string(o.signal);
    else if (o.status == sanitizer_status) why = "sanitizer report";
    else if (o.status < 0 || o.status > 4) why = "undocumented exit status " + std::to_string(o.status);
    if (!o.timed_out) ++statuses[o.status];
    if (slurp("config.json") != text) why += (why.empty() ? "" : "; ") + std::string("the config was changed");
    if (slurp("states.txt") != states) why += (why.empty() ? "" : "; ") + std::string("the states file was changed");
    if (slurp("victim.txt") != theirs) why += (why.empty() ? "" : "; ") + std::string("a link's target was written");
    if (fs::exists("PWNED")) why += (why.empty() ? "" : "; ") + std::string("an output name was run as a command");
    if (!pre.empty() && (pre_kind == 2 ? !fs::is_symlink(pre) : (pre_kind == 1 || !force) && slurp(pre) != theirs))
      why += (why.empty() ? "" : "; ") + pre + (pre_kind == 1 ? " (read-only)" : pre_kind == 2 ? " (a link)" : " (someone else's)") +
             " was replaced";
    for (const auto& e : fs::directory_iterator(".")) {
      const std::string f = e.path().filename().string();
      const bool output = std::find(outputs.begin(), outputs.end(), f) != outputs.end();
      if (f.find(".tmp-") != std::string::npos || (output && f != pre && o.status >= 2 && !o.timed_out))
        why += (why.empty() ? "" : "; ") + std::string("left ") + f;
      if (f.find(".tmp-") != std::string::npos) fs::remove_all(e.path());
    }
    if (!why.empty()) {
      const std::string k = std::to_string(++failures);
      std::ofstream("failure-" + k + ".json", std::ios::binary) << text;
      std::ofstream cmd("failure-" + k + ".txt");
      for (const auto& a : args) cmd << (a.size() > 200 ? a.substr(0, 200) + "..." : a) << ' ';
      cmd << "\n" << why << "\n" << slurp("child-stderr.txt");
      std::cout << "FAILED execution " << done << ": " << why << " (kept as " << (scratch / ("failure-" + k + ".json")).string() << ")\n"
                << slurp("child-stderr.txt").substr(0, 2000) << "\n";
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "fuzz_cli: " << done << " executions in " << seconds << " s (seed " << seed << ", " << seeds.size()
            << " seed configs); exit statuses:";
  for (const auto& [s, n] : statuses) std::cout << " " << s << ": " << n;
  std::cout << "; stopped at the time limit: " << timeouts << "\n"
            << "fuzz: " << (done - failures) << " passed, " << failures << " failed\n";
  if (done < executions / 4) std::cout << "fuzz_cli: too few executions in the time allowed to count as a run\n";
  return failures == 0 && done >= executions / 4 ? 0 : 1;
}

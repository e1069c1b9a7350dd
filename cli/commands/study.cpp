// Reading a config into a Study (see study.hpp); every error names the JSON path.
#include "cli/commands/study.hpp"

#include <cmath>
#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <liebatch/sampling/unit_sampler.hpp>

#include <liebatch/ensemble/sampling.hpp>
#include "cli/config/fnv.hpp"
#include "cli/models/for_members.hpp"
#include "cli/models/method_list.hpp"
#include "cli/outputs/output_files.hpp"

namespace lb::cli {
namespace {

/// A state component given by index or by name (e.g. "Gamma_z").
int component(Node& n, const std::string& key, const ModelRunner& m) {
  const auto& v = n.raw(key);
  const auto names = m.state_names();
  if (v.is_number_integer()) {
    const long c = v.get<long>();
    if (c < 0 || c >= m.dim()) Node::fail(n.at(key), "expected a state component in [0, " + std::to_string(m.dim() - 1) + "]", v);
    return int(c);
  }
  if (v.is_string())
    for (std::size_t c = 0; c < names.size(); ++c)
      if (names[c] == v.get<std::string>()) return int(c);
  std::string all;
  for (const auto& s : names) all += (all.empty() ? "" : ", ") + s;
  Node::fail(n.at(key), "expected a component index or one of " + all, v);
}

std::vector<double> state_of(const nlohmann::json& v, const std::string& path, int dim) {
  if (!v.is_array()) Node::fail(path, "expected an array of " + std::to_string(dim) + " numbers", v);
  if (int(v.size()) != dim)
    Node::fail(path, "expected " + std::to_string(dim) + " numbers (the model's state), got " + std::to_string(v.size()));
  std::vector<double> y;
  for (std::size_t d = 0; d < v.size(); ++d) {
    if (!v[d].is_number()) Node::fail(path + "/" + std::to_string(d), "expected a number", v[d]);
    const double x = v[d].get<double>();
    if (!std::isfinite(x)) Node::fail(path + "/" + std::to_string(d), "expected a finite number", v[d]);
    y.push_back(x);
  }
  return y;
}

/// What a state must hold: `dim` numbers, or `dim − r` where a constrained system's r multipliers
/// are left out (and completed).
std::string expected_state(int dim, int r) {
  return "expected " + std::to_string(dim) +
         (r > 0 ? " numbers (q, v, lambda) or " + std::to_string(dim - r) + " (q, v; lambda completed)" : " numbers (the model's state)");
}

/// States from a text file: one state per line, numbers separated by spaces or by commas (then one
/// number between each two, none left out), '#' comments; each as expected_state(dim, r) says.
/// `digest`: the FNV-1a hash of the file's bytes, which the output and a checkpoint record, so that
/// a resumed run, a merge of slices or a job's blocks cannot mix states from a file changed between.
std::vector<std::vector<double>> read_states(const std::string& file, const std::string& path, int dim, int r, std::uint64_t& digest) {
  if (const std::string why = unreadable(file); !why.empty())
    throw IoError("config " + path + ": cannot read '" + echo(file) + "': " + why);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw IoError("config " + path + ": cannot read '" + echo(file) + "': " + std::strerror(errno));
  const auto at = [&](std::uint64_t lineno) { return "'" + echo(file) + "' line " + std::to_string(lineno) + ": "; };
  std::vector<std::vector<double>> states;
  // What the states take as they are read (each a vector: a few numbers in a heap block), against
  // the memory this process may take; a file of 10⁸ lines once ran it out of memory.
  const double per_state = double(sizeof(std::vector<double>)) + 16 + 8.0 * dim, room = 0.5 * available_memory();
  const auto take = [&](std::string line, std::uint64_t lineno) {
    if (const auto h = line.find('#'); h != std::string::npos) line.resize(h);
    std::vector<std::string> fields;
    if (line.find(',') == std::string::npos) {
      std::istringstream words(line);
      for (std::string w; words >> w;) fields.push_back(w);
    } else {
      std::istringstream cells(line + ",");
      int column = 1;
      for (std::string cell; std::getline(cells, cell, ','); ++column) {
        const auto a = cell.find_first_not_of(" \t\r\v\f"), b = cell.find_last_not_of(" \t\r\v\f");
        if (a == std::string::npos) Node::fail(path, at(lineno) + "field " + std::to_string(column) + " is empty");
        fields.push_back(cell.substr(a, b - a + 1));
      }
    }
    std::vector<double> y;
    for (const auto& tok : fields) {
      // Decimal numbers, all of the field (strtod read hex, 0x1p-2, and stopped at a NUL); a '+'
      // as some writers put it.
      double x = 0;
      const char* b = tok.data() + (tok.size() > 1 && tok[0] == '+' && tok[1] != '-' ? 1 : 0);
      const auto [end, ec] = std::from_chars(b, tok.data() + tok.size(), x);
      if (ec != std::errc() || end != tok.data() + tok.size() || !std::isfinite(x))
        Node::fail(path, at(lineno) + "expected a finite number, got '" + echo(tok) + "'");
      y.push_back(x);
    }
    if (y.empty()) return;
    if (int(y.size()) != dim && (r == 0 || int(y.size()) != dim - r))
      Node::fail(path, at(lineno) + expected_state(dim, r) + ", got " + std::to_string(y.size()));
    if (double(states.size() + 1) * per_state > room)
      Node::fail(path, at(lineno) + "more states than fit in memory: " + std::to_string(states.size() + 1) + " states need about " +
                           human_bytes(double(states.size() + 1) * per_state) + ", more than half of the " + human_bytes(2 * room) +
                           " available");
    states.push_back(std::move(y));
  };
  // In blocks, each line at most max_line bytes (a state is a few numbers; an unbounded getline of
  // a file without line ends would hold all of it), and a read error is an error, not the end.
  constexpr std::size_t max_line = std::size_t(1) << 20;
  std::vector<char> block(std::size_t(1) << 16);
  std::string line;
  std::uint64_t lineno = 1;
  digest = fnv("");
  while (in.read(block.data(), std::streamsize(block.size())) || in.gcount() > 0) {
    digest = fnv(std::string_view(block.data(), std::size_t(in.gcount())), digest);
    for (std::streamsize k = 0; k < in.gcount(); ++k) {
      const char c = block[std::size_t(k)];
      if (c == '\n') {
        take(std::move(line), lineno++);
        line.clear();
      } else if (line.size() == max_line) {
        Node::fail(path, at(lineno) + "longer than 1 MiB; expected one state of numbers a line");
      } else {
        line += c;
      }
    }
  }
  if (in.bad())
    throw IoError("config " + path + ": cannot read '" + echo(file) + "' (a read error at line " + std::to_string(lineno) + ")");
  take(std::move(line), lineno);
  if (states.empty()) Node::fail(path, "'" + echo(file) + "' holds no states");
  return states;
}

std::string fmt(double x) {
  if (std::isnan(x)) return "nan";  // not "-nan": the sign of a NaN means nothing
  std::ostringstream s;
  s.precision(6);
  s << x;
  return s.str();
}

void read_initial(Node* n, Study& st, const std::string& base_dir) {
  const ModelRunner& m = *st.model;
  const int dim = m.dim();
  std::vector<std::vector<double>> base;
  std::string where = n ? n->path() : "/initial";
  // A constrained system's state may leave out its r multipliers: completed from (q, v).
  const int r = m.multipliers();
  auto completed = [&](std::vector<double> y) {
    if (int(y.size()) == dim - r && r > 0) {
      y.resize(std::size_t(dim), 0.0);
      m.complete(y.data(), base_model);
    }
    return y;
  };
  auto state = [&](const nlohmann::json& v, const std::string& path) {
    if (r > 0 && v.is_array() && int(v.size()) != dim && int(v.size()) != dim - r)
      Node::fail(path, expected_state(dim, r) + ", got " + std::to_string(v.size()));
    if (r == 0 || !v.is_array() || int(v.size()) != dim - r) return state_of(v, path, dim);
    return completed(state_of(v, path, dim - r));
  };
  int given = 0;
  if (n && n->has("state")) {
    base.push_back(state(n->raw("state"), n->at("state")));
    ++given;
    st.sampler = "the given state";
  }
  if (n && n->has("states")) {
    const auto& a = n->raw("states");
    if (!a.is_array() || a.empty()) Node::fail(n->at("states"), "expected a non-empty array of states", a);
    for (std::size_t k = 0; k < a.size(); ++k) base.push_back(state(a[k], n->at("states") + "/" + std::to_string(k)));
    ++given;
    st.sampler = std::to_string(a.size()) + " given states";
  }
  if (n && n->has("file")) {
    std::string f = n->string("file");
    if (!f.empty() && f[0] != '/') f = base_dir + "/" + f;
    std::uint64_t digest = 0;
    base = read_states(f, n->at("file"), dim, r, digest);
    for (auto& y : base) y = completed(std::move(y));
    st.inputs.push_back(f);
    ++given;
    st.sampler = std::to_string(base.size()) + " states from " + f + " (its bytes' FNV-1a hash " + hex(digest) + ")";
  }
  if (given > 1) Node::fail(where, "give one of 'state', 'states' or 'file', not several");
  if (given == 0) {
    const auto p = m.preset_initial();
    if (p.empty())
      Node::fail(where, "missing initial states: give 'state', 'states' or 'file' (model " + m.name() + " has no preset state)");
    base.push_back(p);
    st.sampler = "the preset's initial state";
  }
  const bool normalize = n ? n->boolean("normalize", false) : false;
  const double tol = n ? n->positive("tolerance", 1e-10) : 1e-10;
  for (std::size_t k = 0; k < base.size(); ++k) {
    const double d = m.defect(base[k].data(), base_model);
    if (!(d <= tol)) {  // a NaN defect (e.g. a singular constraint Jacobian) is off too
      if (!normalize)
        Node::fail(where, "initial state " + std::to_string(k) + " is off the model's manifold: defect " + fmt(d) + " > tolerance " +
                              fmt(tol) + " (set \"normalize\": true to project it, or fix the state)");
      m.project(base[k].data(), base_model);
      const double after = m.defect(base[k].data(), base_model);
      bool finite = true;
      for (double x : base[k]) finite = finite && std::isfinite(x);
      if (!finite || !(after <= tol))
        Node::fail(where, "initial state " + std::to_string(k) + " cannot be projected onto the manifold (e.g. a zero |q| or |Gamma|)");
    }
  }
  // Members: the base states, or `count` points exp(ξ)·base with ξ from a sampler.
  std::size_t count = base.size();
  UnitSampler us;
  double scale = 0;
  bool ensemble = false;
  if (n && n->has("ensemble")) {
    ensemble = true;
    Node e = n->object("ensemble");
    count = std::size_t(e.integer("count", 1, max_members));
    const std::string kind = e.choice("sampler", {"box", "sobol", "grid"}, "box");
    us.kind = kind == "box" ? SamplerKind::box : kind == "sobol" ? SamplerKind::sobol : SamplerKind::grid;
    us.dim = m.algebra_dim();
    us.seed = std::uint64_t(e.integer("seed", 0, std::numeric_limits<long>::max(), 0));
    scale = e.positive("scale");
    if (us.kind == SamplerKind::sobol && us.dim > sobol_max_dim)
      Node::fail(e.at("sampler"), "sobol supports at most " + std::to_string(sobol_max_dim) + " dimensions; model " + m.name() +
                                      " perturbs in " + std::to_string(us.dim) + " (use box or grid)");
    if (us.kind == SamplerKind::grid) {
      if (us.dim > UnitSampler::max_dim)
        Node::fail(e.at("sampler"), "grid supports at most " + std::to_string(UnitSampler::max_dim) + " dimensions; model " + m.name() +
                                        " perturbs in " + std::to_string(us.dim) + " (use box)");
      const auto pts = e.numbers("points", std::size_t(us.dim));
      double total = 1;  // the product, checked against count before any cast
      for (int j = 0; j < us.dim; ++j) {
        if (pts[j] < 1 || pts[j] != std::floor(pts[j]) || pts[j] > double(count))
          Node::fail(e.at("points") + "/" + std::to_string(j),
                     "expected an integer in [1, count = " + std::to_string(count) + "], got " + fmt(pts[j]));
        us.per_axis[j] = int(pts[j]);
        total *= pts[j];
      }
      if (total != double(count))
        Node::fail(e.at("points"), "the grid has " + fmt(total) + " points but count is " + std::to_string(count));
    }
    e.finish();
    st.sampler += "; " + std::to_string(count) + " members exp(xi)·y0, xi in [-" + fmt(scale) + ", " + fmt(scale) + "]^" +
                  std::to_string(us.dim) + " from " + describe(us);
  }
  const bool level = n && n->has("energy");
  const double E = level ? n->number("energy") : 0;
  if (level && !m.has_energy_level()) Node::fail(n->at("energy"), "model " + m.name() + " cannot target an energy level");
  if (level) st.sampler += "; velocities rescaled to energy " + fmt(E);
  if (n) n->finish();

  // Per-member parameters: G grid points of the sweeps times these N₀ states.
  const MemberRule& rule = m.rule();
  std::size_t states = count;
  if (rule.varies()) {
    if (double(rule.grid()) * double(count) > double(max_members))
      Node::fail("/model/parameters", "the sweeps' grid of " + std::to_string(rule.grid()) + " points times " + std::to_string(count) +
                                          " initial states is more than 2^40 members");
    count *= rule.grid();
    if (rule.grid() > 1) st.sampler += "; each for " + std::to_string(rule.grid()) + " parameter grid points";
  }

  auto& in = st.init;
  in.model = st.model.get();
  in.states = states;
  in.base = std::move(base);
  in.ensemble = ensemble;
  in.sampler = us;
  in.scale = scale;
  in.level = level;
  in.energy = E;
  in.tolerance = tol;
  in.count = count;
  in.path = where;
  st.run.size = count;
}

void read_section(Node& n, Study& st) {
  auto& s = st.run.section;
  const std::string type = n.choice("type", {"hyperplane", "stroboscopic"});
  if (type == "hyperplane") {
    s.kind = SectionSpec::hyperplane;
    s.component = component(n, "component", *st.model);
    s.value = n.number("value", 0);
    const std::string dir = n.choice("direction", {"up", "down", "both"}, "both");
    s.direction = dir == "up" ? Crossing::up : dir == "down" ? Crossing::down : Crossing::both;
    if (n.has("condition")) {
      Node c = n.object("condition");
      s.conditioned = true;
      s.cond_component = component(c, "component", *st.model);
      if (c.has("less_than") == c.has("greater_than")) Node::fail(c.path(), "give exactly one of 'less_than' or 'greater_than'");
      s.cond_less = c.has("less_than");
      s.cond_value = c.number(s.cond_less ? "less_than" : "greater_than");
      c.finish();
    }
  } else {
    s.kind = SectionSpec::stroboscopic;
    s.t0 = n.number("t0", st.run.t0);
    s.period = n.positive("period");
    // The strobes t0 + k·period, k any whole number, inside the run's span (t0, t1] (section.hpp's rule).
    const double strobes = (st.run.t1 - st.run.t0) / s.period;
    if (strobes > 1e8)
      Node::fail(n.at("period"), "a period of " + fmt(s.period) + " gives " + fmt(strobes) + " strobes in the run's span (" +
                                     fmt(st.run.t0) + ", " + fmt(st.run.t1) + "]; expected at most 1e8");
    // t0 + k·period in double: k past 2^53 stops counting (no strobe at all), and far before that
    // the strobes' times lose the period's digits. Within 2^40 periods, 13 bits of it remain.
    const double far = std::max({std::abs(s.t0), std::abs(st.run.t0), std::abs(st.run.t1)});
    if (far * 0x1p-40 > s.period)
      Node::fail(n.has("t0") ? n.at("t0") : n.at("period"),
                 "strobes t0 + k period with t0 = " + fmt(s.t0) + " and period " + fmt(s.period) + " over the span (" + fmt(st.run.t0) +
                     ", " + fmt(st.run.t1) + "] are not resolved in double; expected |t0|, |t1| within 2^40 periods");
    // The first strobe after the span's start, as the section computes it: past t1, no hit ever.
    double k1 = std::floor((st.run.t0 - s.t0) / s.period);
    for (int up = 0; up < 3 && !(s.t0 + k1 * s.period > st.run.t0); ++up) k1 += 1;  // (the quotient rounded either way)
    if (!(s.t0 + k1 * s.period <= st.run.t1))
      Node::fail(n.has("t0") ? n.at("t0") : n.at("period"), "no strobe t0 + k period (t0 = " + fmt(s.t0) + ", period " + fmt(s.period) +
                                                                ") falls in the run's span (" + fmt(st.run.t0) + ", " + fmt(st.run.t1) +
                                                                "]; the first is at " + fmt(s.t0 + k1 * s.period));
  }
  s.max_hits = int(n.integer("max_hits", 1, 1 << 20, 64));
  // The picture: [x, y], or {"x", "y", "colour"}: the hits coloured by "member" (the default: each
  // orbit its own colour, islands told from the chaotic sea), an observable's name, or "none".
  if (n.has("plot")) {
    const auto& a = n.raw("plot");
    if (a.is_array()) {
      if (a.size() != 2) Node::fail(n.at("plot"), "expected two state components [x, y] or {\"x\", \"y\", \"colour\"}", a);
      nlohmann::json tmp = {{"x", a[0]}, {"y", a[1]}};
      Node t(tmp, n.at("plot"));
      st.plot_x = component(t, "x", *st.model);
      st.plot_y = component(t, "y", *st.model);
    } else {
      Node t = n.object("plot");
      st.plot_x = component(t, "x", *st.model);
      st.plot_y = component(t, "y", *st.model);
      const std::string c = t.string("colour", "member");
      const auto obs = st.model->obs_names();
      const auto at = std::find(obs.begin(), obs.end(), c);
      if (c == "none") st.plot_colour = -2;
      else if (at != obs.end()) st.plot_colour = int(at - obs.begin());
      else if (c != "member") {
        std::string all = "member, none";
        for (const auto& o : obs) all += ", " + o;
        Node::fail(t.at("colour"), "expected one of " + all, t.raw("colour"));
      }
      t.finish();
    }
  }
  n.finish();
}

std::vector<double> read_steps(Node& c) {
  std::vector<double> h;
  const auto& v = c.raw("steps");
  if (v.is_array()) {
    h = c.numbers("steps");
  } else {
    Node g(v, c.at("steps"));
    const double h0 = g.positive("h0");
    const double f = g.positive("factor", 0.5);
    if (!(f < 1)) Node::fail(g.at("factor"), "expected a factor in (0, 1)", g.raw("factor"));
    const long n = g.integer("count", 2, 40, 5);
    for (long k = 0; k < n; ++k) h.push_back(h0 * std::pow(f, double(k)));
    g.finish();
  }
  if (h.size() < 2) Node::fail(c.at("steps"), "expected at least two step sizes");
  for (std::size_t k = 0; k < h.size(); ++k)
    if (!(h[k] > 0)) Node::fail(c.at("steps") + "/" + std::to_string(k), "expected a step size > 0, got " + fmt(h[k]));
  std::sort(h.rbegin(), h.rend());
  for (std::size_t k = 1; k < h.size(); ++k)
    if (h[k] == h[k - 1]) Node::fail(c.at("steps"), "expected distinct step sizes; " + fmt(h[k]) + " appears twice");
  return h;
}

bool has_pair(const std::string& method) {
  for (const auto& m : method_list())
    if (m.name == method) return m.order_hat > 0;
  return false;
}

}  // namespace

/// Parses the config. JSON parsers keep the last of a repeated key, so repeats are found here;
/// nesting is limited (a hostile config must not exhaust memory), and a syntax error names the
/// JSON path where it occurred.
nlohmann::json parse_config(const std::string& text) {
  constexpr std::size_t max_depth = 64;
  // The open containers: how each was reached from its parent ("/key" or "/index"), its keys so
  // far (objects) or element count (arrays). O(depth) memory, whatever the nesting.
  struct Open {
    std::string via;
    bool array;
    long count = 0;
    std::set<std::string> keys;
  };
  std::vector<Open> open;
  std::string path, key, duplicate;  // path: of the innermost open container
  const auto here = [&] {            // the path of the value being read
    if (open.empty() || (!open.back().array && key.empty())) return path;
    return path + "/" + (open.back().array ? std::to_string(open.back().count) : key);
  };
  const auto element_done = [&] {
    if (!open.empty() && open.back().array) ++open.back().count;
  };
  auto cb = [&](int, nlohmann::json::parse_event_t e, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (e) {
      case E::object_start:
      case E::array_start: {
        if (open.size() >= max_depth)
          Node::fail(here(), "nested deeper than " + std::to_string(max_depth) + " levels (a config needs at most 5)");
        std::string via = here().substr(path.size());
        path += via;
        open.push_back({std::move(via), e == E::array_start, 0, {}});
        key.clear();
        break;
      }
      case E::object_end:
      case E::array_end:
        path.resize(path.size() - open.back().via.size());
        open.pop_back();
        key.clear();
        element_done();
        break;
      case E::key:
        key = parsed.get<std::string>();
        if (!open.back().keys.insert(key).second && duplicate.empty()) duplicate = here();
        break;
      case E::value:
        element_done();
        break;
    }
    return true;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, cb);
  } catch (const nlohmann::json::exception& e) {  // a parse error, or a number out of range
    std::string what = e.what();
    if (const auto at = what.find("] "); at != std::string::npos) what = what.substr(at + 2);
    const std::string where = here();
    if (const auto num = what.find("number overflow parsing '"); num != std::string::npos) {
      const std::string value = what.substr(num + 25, what.find('\'', num + 25) - num - 25);
      Node::fail(where, "number " + echo(value) + " is out of the range of a double (magnitude at most 1.8e308)");
    }
    throw ConfigError("config" + (where.empty() ? std::string() : " " + echo(where)) + ": malformed JSON: " + echo(what, 240));
  }
  if (!duplicate.empty()) Node::fail(duplicate, "key given twice");
  // A number so small that it reads as 0 ("h": 1e-400 was then refused as "got 0"): named as
  // written. The text is JSON now, so a number starts at a '-' or digit outside a string.
  for (std::size_t i = 0, line = 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) i += text[i] == '\\';
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      const std::size_t end = text.find_first_not_of("0123456789+-.eE", i);
      const std::string number = text.substr(i, end - i);
      const double x = std::strtod(number.c_str(), nullptr);
      if (x == 0 && number.find_first_of("123456789") < number.find_first_of("eE"))
        throw ConfigError("config line " + std::to_string(line) + ": number " + echo(number) +
                          " is below the smallest double (4.9e-324) and would read as 0");
      i = end - 1;
    }
  }
  return j;
}

void InitialStates::fill(std::size_t i0, std::size_t n, std::vector<double>& y0, int threads) const {
  const int dim = model->dim();
  y0.assign(std::size_t(dim) * n, 0);
  // A box draw that misses the energy level or the manifold is drawn again (its own stream of
  // draws); a Sobol' or grid point has no other draw, so it is an error.
  const std::uint32_t attempts = ensemble && sampler.kind == SamplerKind::box ? 1000 : 1;
  const bool varies = model->rule().varies();
  for_members(n, threads, [&](std::size_t k0, std::size_t k1) {
    std::vector<double> y(static_cast<std::size_t>(dim)), xi(static_cast<std::size_t>(model->algebra_dim())),
        numbers(model->rule().numbers());
    for (std::size_t k = k0; k < k1; ++k) {
      const std::size_t i = i0 + k, s = i % states;  // member i starts from initial state s
      if (varies) model->rule().member(i, numbers.data());  // its draws in their domains, or the error naming it
      const auto& b = base[s % base.size()];
      bool reached = false, on = false;
      double defect = 0;
      for (std::uint32_t a = 0; a < attempts && !(reached && on); ++a) {
        if (ensemble) {
          for (int j = 0; j < sampler.dim; ++j) xi[std::size_t(j)] = scale * (2 * sampler(s, j, a) - 1);
          model->perturb(b.data(), xi.data(), y.data(), i);
        } else {
          y = b;
          if (varies && model->multipliers() > 0) model->project(y.data(), i);  // consistent with i's parameters
        }
        reached = !level || model->energy_level(y.data(), energy, i);
        defect = model->defect(y.data(), i);  // after a constrained system's projection in perturb()
        on = defect <= tolerance;             // false for NaN
      }
      const std::string draws = attempts > 1 ? " in " + std::to_string(attempts) + " draws" : "";
      if (!reached)
        Node::fail(path + "/energy", "energy " + fmt(energy) + " cannot be reached from member " + std::to_string(i) +
                                         "'s state by rescaling its velocities: it is below the potential energy of its "
                                         "configuration, or the state has no velocity" +
                                         draws);
      if (!on)
        Node::fail(path + (ensemble ? "/ensemble" : ""), "member " + std::to_string(i) + " starts off the model's manifold: defect " +
                                                             fmt(defect) + " > tolerance " + fmt(tolerance) + draws +
                                                             (ensemble ? " (a smaller 'scale' keeps the members nearer the state)" : ""));
      for (int d = 0; d < dim; ++d) y0[std::size_t(d) * n + k] = y[std::size_t(d)];
    }
  });
}

namespace {

/// Refuses steps that the run's precision cannot resolve at the span's largest |t| (its spacing
/// there above 10⁻³ of the smallest step): the time grid would coarsen silently (t0 = 1e16,
/// h = 1 took one step of 4; at t0 = 1.7e9, h = 1e-7 took 9970 steps for 10⁴). Double is the
/// coarsest precision of every command but a float run (references and round-off runs are in
/// long double, finer still).
void check_resolution(const Study& st, Command c) {
  const auto& h = c == Command::converge ? st.converge.steps : st.run.h;
  double hmin = *std::min_element(h.begin(), h.end());
  if (c == Command::converge) hmin = std::min(hmin, st.converge.ref_h);
  const double tmax = std::max(std::abs(st.run.t0), std::abs(st.run.t1));
  // A float run holds its span, steps and parameters in float: past its range they are ±∞, below
  // its smallest normal they lose digits or are 0, and every member fails "nonfinite".
  if (st.run.single) {
    const auto refuse = [](const std::string& path, const std::string& what) {
      throw ConfigError("config " + path + ": float cannot hold " + what + " (its normal numbers lie between " +
                        fmt(std::numeric_limits<float>::min()) + " and " + fmt(std::numeric_limits<float>::max()) + "); use double");
    };
    if (float_cannot_hold(tmax)) refuse("/time", "|t| = " + fmt(tmax));
    if (float_cannot_hold(hmin) || float_cannot_hold(*std::max_element(h.begin(), h.end()))) refuse("/step", "the step");
    // Below a few of float's ε the error estimate is float's rounding: the steps shrink, are
    // rejected again and again, and the error stays at float's, whatever the tolerance said.
    if (st.run.adaptive && float_cannot_hold(st.run.h_min)) refuse("/step/h_min", "h_min = " + fmt(st.run.h_min));
    const double finest = 8 * double(std::numeric_limits<float>::epsilon());
    if (st.run.adaptive && st.run.rtol < finest)
      throw ConfigError("config /step/rtol: " + fmt(st.run.rtol) + " is below what float resolves (8 ε = " + fmt(finest) +
                        "); use double, or rtol >= that");
    if (const auto [path, what] = st.model->beyond_float(); !path.empty()) refuse(path, what);
  }
  const int digits = st.run.single ? std::numeric_limits<float>::digits : std::numeric_limits<double>::digits;
  const double spacing = tmax > 0 ? std::ldexp(1.0, std::ilogb(tmax) - (digits - 1)) : 0;  // of numbers near tmax
  if (spacing > 1e-3 * hmin) {
    char msg[320];
    std::snprintf(msg, sizeof msg,
                  "config /time: %s cannot resolve steps of %g at |t| = %g (its spacing there is %g, over 1e-3 of the step); "
                  "shift the span towards 0%s",
                  st.run.single ? "float" : "double", hmin, tmax, spacing, st.run.single ? " or use double" : "");
    throw ConfigError(msg);
  }
}

}  // namespace

UnitSampler read_sampler(Node ps, const ModelRunner& model) {
  UnitSampler draws;
  const std::size_t n = model.rule().draws.size();
  if (n == 0) Node::fail(ps.path(), "no model parameter is drawn from a distribution (uniform, normal, lognormal)");
  draws.kind = ps.choice("kind", {"box", "sobol"}, "box") == "sobol" ? SamplerKind::sobol : SamplerKind::box;
  draws.seed = std::uint64_t(ps.integer("seed", 0, std::numeric_limits<long>::max(), 0));
  if (draws.kind == SamplerKind::sobol && n > std::size_t(sobol_max_dim))
    Node::fail(ps.at("kind"), "sobol supports at most " + std::to_string(sobol_max_dim) + " dimensions; " + std::to_string(n) +
                                  " parameters are drawn (use box)");
  ps.finish();
  return draws;
}

Study read_study(const std::string& text, Command cmd, const std::string& base_dir, bool single) {
  Study st;
  st.run.single = single;
  st.config = parse_config(text);
  Node root(st.config, "");
  Node model = root.object("model");
  st.model = make_model(model, base_dir, &st.model_source);
  auto& r = st.run;

  Node time = root.object("time");
  r.t0 = time.number("t0", 0);
  r.t1 = time.number("t1");
  if (!(r.t1 > r.t0)) Node::fail(time.at("t1"), "expected t1 > t0 = " + fmt(r.t0), time.raw("t1"));
  time.finish();

  // A method name that exists and serves the model.
  auto check = [&](const std::string& method, const std::string& path) {
    check_method(method, path);
    if (const std::string why = st.model->refusal(method); !why.empty()) fail_refused(path, method, st.model->name(), why);
  };
  if (cmd == Command::converge) {
    Node c = root.object("converge");
    const auto& ms = c.raw("methods");
    if (!ms.is_array() || ms.empty()) Node::fail(c.at("methods"), "expected a non-empty array of method names", ms);
    for (std::size_t k = 0; k < ms.size(); ++k) {
      if (!ms[k].is_string()) Node::fail(c.at("methods") + "/" + std::to_string(k), "expected a method name", ms[k]);
      st.converge.methods.push_back(ms[k].get<std::string>());
      check(st.converge.methods.back(), c.at("methods") + "/" + std::to_string(k));
      if (std::count(st.converge.methods.begin(), st.converge.methods.end(), st.converge.methods.back()) > 1)
        Node::fail(c.at("methods") + "/" + std::to_string(k), "method '" + st.converge.methods.back() + "' is listed twice");
    }
    st.converge.steps = read_steps(c);
    static const nlohmann::json none = nlohmann::json::object();
    Node ref = c.has("reference") ? c.object("reference") : Node(none, c.at("reference"));
    st.converge.reference = ref.has("kind") ? ref.choice("kind", {"extended", "method"}) : "extended";
    // The default reference method: rkmk5, or hedop5 for a constrained system (no other steps it).
    st.converge.ref_method = ref.string("method", st.model->multipliers() > 0 ? "hedop5" : "rkmk5");
    check(st.converge.ref_method, ref.at("method"));
    st.converge.ref_h = ref.positive("h", st.converge.steps.back() / 8);
    // A reference no finer than the steps it judges measures its own error: a plateau, fitted as
    // an order of about 0.
    if (const double finest = *std::min_element(st.converge.steps.begin(), st.converge.steps.end()); !(st.converge.ref_h < finest))
      Node::fail(ref.at("h"), "the reference step " + fmt(st.converge.ref_h) + " must be finer than every step it judges; the finest is " +
                                  fmt(finest) + " (by default the reference takes an eighth of it)");
    ref.finish();
    c.finish();
    r.method = st.converge.methods[0];
  } else {
    r.method = root.string("method");
    check(r.method, "/method");
  }

  if (cmd != Command::converge || root.has("step")) {
    Node step = root.object("step");
    r.adaptive = step.boolean("adaptive", false);
    if (cmd == Command::converge && r.adaptive) Node::fail(step.at("adaptive"), "a convergence study uses fixed steps (/converge/steps)");
    if (r.adaptive) {
      if (!has_pair(r.method)) {
        std::string pairs;
        for (const auto& m : method_list())
          if (m.order_hat > 0) pairs += (pairs.empty() ? "" : ", ") + m.name;
        Node::fail(step.at("adaptive"), "method '" + echo(r.method) + "' has no embedded pair; adaptive steps need one of " + pairs);
      }
      const double tol = single ? 1e-6 : 1e-8;  // float resolves no finer (check_resolution)
      r.atol = step.positive("atol", tol);
      r.rtol = step.positive("rtol", tol);
      r.h = {step.positive("h0", (r.t1 - r.t0) / 1000)};
      // The floor scales with the span, as h0 does: a system in units that make its span 1e-11
      // takes steps of 1e-14 as one whose span is 10 takes steps of 1e-2.
      r.h_min = step.positive("h_min", 1e-12 * (r.t1 - r.t0));
      if (!(r.h_min <= r.h[0]))
        Node::fail(step.has("h_min") ? step.at("h_min") : step.at("h0"),
                   "h_min " + fmt(r.h_min) + " is above h0 " + fmt(r.h[0]) + ": the first rejected step would end every member");
    } else if (cmd != Command::converge) {
      r.h = {step.positive("h")};
    } else if (step.has("h")) {
      Node::fail(step.at("h"), "not used by converge (its step sizes are /converge/steps)");
    }
    r.max_steps = step.integer("max_steps", 1, 1L << 50, 10'000'000);
    step.finish();
  }

  UnitSampler draws = root.has("parameter_sampler") ? read_sampler(root.object("parameter_sampler"), *st.model) : UnitSampler{};
  if (root.has("initial")) {
    Node init = root.object("initial");
    read_initial(&init, st, base_dir);
  } else {
    read_initial(nullptr, st, base_dir);
  }
  // Sobol' points are 32-bit fractions of an index below 2³²; the parameters' coordinates follow
  // the initial states' where both are Sobol', one sequence for both, so that they are independent.
  const auto sobol_members = [&](const std::string& path, std::size_t n) {
    if (n > std::size_t(1) << 32)
      Node::fail(path, "sobol covers at most 2^32 members (its points repeat beyond), but there are " + std::to_string(n) + "; use box");
  };
  const bool sobol_states = st.init.ensemble && st.init.sampler.kind == SamplerKind::sobol;
  if (sobol_states) sobol_members("/initial/ensemble/sampler", st.init.states);
  if (draws.kind == SamplerKind::sobol && !st.model->rule().draws.empty()) {
    sobol_members("/parameter_sampler/kind", st.init.count);
    if (sobol_states) {
      draws.first = st.init.sampler.dim;
      const std::size_t dims = std::size_t(draws.first) + st.model->rule().draws.size();
      if (dims > std::size_t(sobol_max_dim))
        Node::fail("/parameter_sampler/kind",
                   "sobol takes the parameters' coordinates after the initial states' " + std::to_string(draws.first) + ", " +
                       std::to_string(dims) + " in all; it supports at most " + std::to_string(sobol_max_dim) + " (use box for either)");
    }
  }
  st.model->set_rule(draws, st.init.states, single);

  if (root.has("outputs")) {
    Node o = root.object("outputs");
    st.samples_given = o.has("samples");
    r.samples = int(o.integer("samples", 0, 1 << 24, 0));
    if (r.samples == 1) Node::fail(o.at("samples"), "expected 0 (final state only) or at least 2 (t0 and t1 included), got 1");
    st.plot = o.boolean("plot", true);
    o.finish();
  }
  if (cmd == Command::poincare) {
    Node s = root.object("section");
    read_section(s, st);
  }
  if (cmd == Command::validate && root.has("validate")) {
    Node v = root.object("validate");
    st.validate.against = v.choice("against", {"extended", "gpu"}, "extended");
    st.validate.bound = v.positive("bound", 0);
    v.finish();
  }
  const char* command_of[][2] = {{"section", "poincare"}, {"converge", "converge"}, {"validate", "validate"}};
  for (const auto& k : command_of)
    if (root.has(k[0]) &&
        !((cmd == Command::poincare && k[1] == std::string("poincare")) || (cmd == Command::converge && k[1] == std::string("converge")) ||
          (cmd == Command::validate && k[1] == std::string("validate"))))
      Node::fail(root.at(k[0]), std::string("not used by this command (it configures 'liebatch ") + k[1] + "')");
  root.finish();
  check_resolution(st, cmd);
  return st;
}

}  // namespace lb::cli

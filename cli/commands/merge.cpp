// liebatch merge: the outputs of slices of one run (`run|poincare --members A:B`, on job-array
// tasks or machines of their own) joined into the output the whole run writes, dataset by dataset.
// The parts are checked first: each a run or poincare output of liebatch; one config, command,
// model, method, precision and liebatch version (and commit); their slices covering every member
// once. Per-member arrays (a member's column last) are joined at the members' offsets, hit records
// (rows) appended in member order, names copied; root attributes are the first part's, with the
// devices, SIMD units and batches of all parts and the list of parts.
#include <hdf5.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include "cli/commands/command.hpp"
#include "cli/config/config_node.hpp"
#include "cli/outputs/h5_sink.hpp"

namespace lb::cli {
namespace {

/// Root attributes that must agree for parts to be slices of one run.
const char* const same_run[] = {"liebatch_version", "liebatch_commit", "command",        "model",         "model_source", "method",
                                "precision",        "config",          "initial_states", "members_total", "parameters"};

/// Where two configs' texts first differ, as " (at /section/max_hits)"; "" where they do not parse.
std::string config_difference(const std::string& was, const std::string& now) {
  try {
    const nlohmann::json d = nlohmann::json::diff(nlohmann::json::parse(was), nlohmann::json::parse(now));
    return d.empty() ? "" : " (at " + d.at(0).at("path").get<std::string>() + ")";
  } catch (const nlohmann::json::exception&) {
    return "";
  }
}

/// An HDF5 handle closed on scope exit (files, datasets, spaces, types, attributes).
struct Handle {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  Handle(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  Handle(Handle&& o) noexcept : id(std::exchange(o.id, -1)), close(o.close) {}
  Handle& operator=(Handle&&) = delete;
  ~Handle() {
    if (id >= 0) close(id);
  }
  operator hid_t() const { return id; }
};

/// A part: its file, its root attributes (numbers and strings), its members [begin, end).
struct Part {
  std::string path, name;  ///< name: as merged_from lists it
  Handle file{-1, H5Fclose};
  std::map<std::string, std::string> text;
  std::map<std::string, double> number;
  std::size_t begin = 0, end = 0, total = 0;
  Part(std::string p, std::string n) : path(std::move(p)), name(std::move(n)) {}
};

/// Whether attribute `a` holds one value (liebatch writes no other): what is read into one value.
bool single(hid_t a) {
  Handle space(H5Aget_space(a), H5Sclose);
  return space >= 0 && H5Sget_simple_extent_npoints(space) == 1;
}

/// The string attribute `name` of object `obj`, fixed-size (liebatch's) or of variable size
/// (h5py's); an IoError when it is not one string.
std::string string_attr(hid_t obj, const char* name) {
  Handle a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  Handle t(H5Aget_type(a), H5Tclose);
  if (a < 0 || H5Tget_class(t) != H5T_STRING || !single(a)) throw IoError(std::string("merge: attribute ") + name + " is not one string");
  if (H5Tis_variable_str(t) > 0) {
    char* p = nullptr;
    if (H5Aread(a, t, &p) < 0) throw IoError(std::string("merge: cannot read attribute ") + name);
    std::string v = p ? p : "";
    H5free_memory(p);
    return v;
  }
  std::string v(H5Tget_size(t), '\0');
  if (H5Aread(a, t, v.data()) < 0) throw IoError(std::string("merge: cannot read attribute ") + name);
  return v.substr(0, v.find('\0'));
}

/// HDF5's iteration callbacks: an exception never crosses HDF5's C frames, it ends the iteration.
herr_t collect_attr(hid_t obj, const char* name, const H5A_info_t*, void* data) try {
  auto& p = *static_cast<Part*>(data);
  Handle a(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  Handle t(H5Aget_type(a), H5Tclose);
  if (H5Tget_class(t) == H5T_FLOAT || H5Tget_class(t) == H5T_INTEGER) {
    double v = 0;
    if (!single(a) || H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0) return -1;
    p.number[name] = v;
  } else if (H5Tget_class(t) == H5T_STRING) {
    p.text[name] = string_attr(obj, name);
  }
  return 0;
} catch (...) {
  return -1;
}

/// The element kind of a dataset's type, or none.
std::optional<Sink::Kind> kind_of(hid_t type) {
  if (H5Tget_class(type) == H5T_FLOAT && H5Tget_size(type) == 8) return Sink::Kind::f64;
  if (H5Tget_class(type) == H5T_INTEGER && H5Tget_size(type) == 8 && H5Tget_sign(type) == H5T_SGN_2) return Sink::Kind::i64;
  if (H5Tget_class(type) == H5T_INTEGER && H5Tget_size(type) == 1 && H5Tget_sign(type) == H5T_SGN_NONE) return Sink::Kind::u8;
  return std::nullopt;
}

/// A dataset of the parts: per member (its last index), rows (hit records, growing) or names.
struct Dataset {
  enum Shape { columns, rows, names } shape;
  Sink::Kind kind = Sink::Kind::f64;
  std::vector<hsize_t> dims;  ///< the first part's
  std::map<std::string, std::string> attrs;
};

herr_t collect_dataset(hid_t root, const char* name, const H5L_info_t*, void* data) try {
  H5O_info_t info;
  if (H5Oget_info_by_name(root, name, &info, H5P_DEFAULT) < 0) return -1;
  if (info.type == H5O_TYPE_DATASET) static_cast<std::set<std::string>*>(data)->insert(name);
  return 0;
} catch (...) {
  return -1;
}

/// Every dataset of part p by name, with its shape.
std::map<std::string, Dataset> datasets(const Part& p) {
  std::set<std::string> found;
  if (H5Lvisit(p.file, H5_INDEX_NAME, H5_ITER_INC, collect_dataset, &found) < 0)
    throw IoError("merge: cannot read the datasets of '" + echo(p.path) + "'");
  std::map<std::string, Dataset> v;
  const hsize_t count = p.end - p.begin;
  for (const auto& name : found) {
    Handle d(H5Dopen2(p.file, name.c_str(), H5P_DEFAULT), H5Dclose);
    Handle sp(H5Dget_space(d), H5Sclose), t(H5Dget_type(d), H5Tclose);
    Dataset s{};
    const int rank = H5Sget_simple_extent_ndims(sp);
    if (d < 0 || rank < 0) throw IoError("merge: cannot read dataset " + name + " of '" + echo(p.path) + "'");
    s.dims.resize(std::size_t(rank));
    H5Sget_simple_extent_dims(sp, s.dims.data(), nullptr);
    const auto kind = kind_of(t);
    const bool record = std::any_of(std::begin(hit_records), std::end(hit_records), [&](const char* r) { return name == r; });
    if (H5Tget_class(t) == H5T_STRING && rank == 1) s.shape = Dataset::names;
    else if (kind && rank >= 1 && record) s.shape = Dataset::rows, s.kind = *kind;
    else if (kind && rank >= 1 && s.dims.back() == count) s.shape = Dataset::columns, s.kind = *kind;
    else throw ConfigError("merge: '" + echo(p.path) + "' has a dataset " + name + " that is neither per member nor hit records");
    const auto copy = [](hid_t obj, const char* a, const H5A_info_t*, void* out) -> herr_t {
      try {
        (*static_cast<std::map<std::string, std::string>*>(out))[a] = string_attr(obj, a);
        return 0;
      } catch (...) {
        return -1;
      }
    };
    if (H5Aiterate2(d, H5_INDEX_NAME, H5_ITER_INC, nullptr, copy, &s.attrs) < 0)
      throw IoError("merge: cannot read the attributes of dataset " + name + " of '" + echo(p.path) + "'");
    v.emplace(name, std::move(s));
  }
  return v;
}

/// Reads `cols` columns from col0 (rows: `cols` rows from row col0) of dataset `name` of `file`.
template <class T> std::vector<T> read_block(hid_t file, const std::string& name, hid_t mem_type, bool by_row, hsize_t col0, hsize_t cols) {
  Handle d(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  Handle sp(H5Dget_space(d), H5Sclose);
  std::vector<hsize_t> dims(std::size_t(H5Sget_simple_extent_ndims(sp)));
  H5Sget_simple_extent_dims(sp, dims.data(), nullptr);
  std::vector<hsize_t> start(dims.size(), 0), count = dims;
  const std::size_t axis = by_row ? 0 : dims.size() - 1;
  start[axis] = col0, count[axis] = cols;
  std::size_t n = 1;
  for (auto c : count) n *= std::size_t(c);
  std::vector<T> v(n);
  if (n == 0) return v;
  Handle mem(H5Screate_simple(int(count.size()), count.data(), nullptr), H5Sclose);
  if (H5Sselect_hyperslab(sp, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0 ||
      H5Dread(d, mem_type, mem, sp, H5P_DEFAULT, v.data()) < 0)
    throw IoError("merge: cannot read dataset " + name);
  return v;
}

/// A list of strings: fixed-size (liebatch's) or of variable size (lb.Output.save's, h5py's).
std::vector<std::string> read_names(hid_t file, const std::string& name) {
  Handle d(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  Handle sp(H5Dget_space(d), H5Sclose), t(H5Dget_type(d), H5Tclose);
  const auto n = std::size_t(H5Sget_simple_extent_npoints(sp));
  std::vector<std::string> v;
  if (H5Tis_variable_str(t) > 0) {
    Handle mt(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mt, H5T_VARIABLE);
    std::vector<char*> p(n, nullptr);
    if (n > 0 && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, p.data()) < 0) throw IoError("merge: cannot read dataset " + name);
    for (auto* s : p) v.emplace_back(s ? s : "");
    if (n > 0) H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, p.data());
    return v;
  }
  const auto w = H5Tget_size(t);
  std::vector<char> buf(n * w);
  if (n > 0 && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0) throw IoError("merge: cannot read dataset " + name);
  for (std::size_t k = 0; k < n; ++k) v.emplace_back(buf.data() + k * w, strnlen(buf.data() + k * w, w));
  return v;
}

/// Copies dataset `name` of every part into w: columns at each part's offset, in blocks of about
/// 16 M numbers; rows appended part after part (so in member order).
template <class T> void join(Sink& w, const std::vector<Part>& parts, const std::string& name, const Dataset& s, hid_t mem_type) {
  hsize_t per = 1;  // numbers per column (or per row)
  for (std::size_t k = s.shape == Dataset::rows ? 1 : 0; k + (s.shape == Dataset::columns ? 1 : 0) < s.dims.size(); ++k) per *= s.dims[k];
  const hsize_t block = std::max<hsize_t>(1, (hsize_t(1) << 24) / std::max<hsize_t>(per, 1));
  for (const auto& p : parts) {
    hsize_t len = p.end - p.begin;
    if (s.shape == Dataset::rows) {
      Handle d(H5Dopen2(p.file, name.c_str(), H5P_DEFAULT), H5Dclose);
      Handle sp(H5Dget_space(d), H5Sclose);
      std::vector<hsize_t> dims(std::size_t(H5Sget_simple_extent_ndims(sp)));
      H5Sget_simple_extent_dims(sp, dims.data(), nullptr);
      len = dims[0];
    }
    for (hsize_t c = 0; c < len; c += block) {
      const hsize_t m = std::min(block, len - c);
      auto v = read_block<T>(p.file, name, mem_type, s.shape == Dataset::rows, c, m);
      if (s.shape == Dataset::rows) {
        if constexpr (!std::is_same_v<T, std::uint8_t>) w.append_rows(name, v, s.dims.size() > 1 ? s.dims[1] : 0);
      } else {
        w.write_columns(name, v, p.begin + c, m);
      }
    }
  }
}

}  // namespace

bool any_member_finished(const std::string& path) {
  h5_setup();
  Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  Handle d(f < 0 ? -1 : H5Dopen2(f, "final/status", H5P_DEFAULT), H5Dclose);
  Handle sp(d < 0 ? -1 : H5Dget_space(d), H5Sclose);
  if (sp < 0 || H5Sget_simple_extent_ndims(sp) != 1) throw IoError("cannot read final/status of '" + echo(path) + "'");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(sp, &n, nullptr);
  const auto status = read_block<std::uint8_t>(f, "final/status", H5T_NATIVE_UINT8, false, 0, n);
  return std::find(status.begin(), status.end(), std::uint8_t(Status::ok)) != status.end();
}

int merge_command(const std::vector<std::string>& paths, const Options& o, const std::string& origin,
                  const std::vector<std::string>& names) {
  if (paths.empty()) throw ConfigError("merge: no parts given");
  if (!names.empty() && names.size() != paths.size()) throw std::logic_error("merge_command: a name for each part");
  if (o.output.empty()) throw ConfigError("merge: -o: give the merged file's name");
  if (const std::string why = sink_format_error(o.output); !why.empty()) throw ConfigError(why);
  check_outputs({o.output}, paths, o.force);
  // Every part is open at once: as many files as this process may open (ulimit -n), the soft limit
  // raised to the hard one (a job array's thousands of parts).
  if (struct rlimit r{}; ::getrlimit(RLIMIT_NOFILE, &r) == 0) {
    if (r.rlim_cur < r.rlim_max) r.rlim_cur = r.rlim_max, ::setrlimit(RLIMIT_NOFILE, &r);
    if (::getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY && paths.size() + 64 > r.rlim_cur)
      throw IoError("merge: " + std::to_string(paths.size()) + " parts, open at once, need more files than the " +
                    std::to_string(r.rlim_cur) + " this process may open (ulimit -n; raise its hard limit)");
  }
  h5_setup();
  // A part in messages: its file, or what the caller named it (lb.merge: an Output in memory).
  const auto named = [](const Part& q) { return q.name == q.path ? "'" + echo(q.path) + "'" : q.name; };
  std::vector<Part> parts;
  parts.reserve(paths.size());
  for (std::size_t k = 0; k < paths.size(); ++k) {
    const std::string& path = paths[k];
    Part& p = parts.emplace_back(path, names.empty() ? path : names[k]);
    if (const std::string why = unreadable(path); !why.empty()) throw IoError("merge: cannot read '" + echo(path) + "': " + why);
    p.file.id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (p.file < 0) throw IoError("merge: cannot open '" + echo(path) + "' as an HDF5 file");
    if (H5Aiterate2(p.file, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_attr, &p) < 0)
      throw IoError("merge: cannot read the attributes of " + named(p) + " (each is one number or one string in liebatch's outputs)");
    const auto cmd = p.text.find("command");
    if (!p.text.count("liebatch_version") || cmd == p.text.end() || (cmd->second != "run" && cmd->second != "poincare") ||
        !p.number.count("members_begin") || !p.number.count("members_end") || !p.number.count("members_total"))
      throw ConfigError("merge: " + named(p) + " is not the output of a liebatch run or poincare (with its members recorded)");
    const double a = p.number["members_begin"], b = p.number["members_end"], n = p.number["members_total"];
    const auto whole = [](double x) { return x >= 0 && x <= 9.0e15 && x == std::floor(x); };
    if (!whole(a) || !whole(b) || !whole(n) || a >= b || b > n)
      throw ConfigError("merge: " + named(p) + " records no valid slice (members " + std::to_string(a) + " to " + std::to_string(b) +
                        " of " + std::to_string(n) + ")");
    p.begin = std::size_t(a), p.end = std::size_t(b), p.total = std::size_t(n);
    for (const char* key : same_run) {
      const Part& first = parts.front();
      const bool differs = p.text.count(key) != first.text.count(key) || p.number.count(key) != first.number.count(key) ||
                           (p.text.count(key) && p.text[key] != first.text.at(key)) ||
                           (p.number.count(key) && p.number[key] != first.number.at(key));
      if (differs)
        throw ConfigError("merge: " + named(p) + " is not a slice of the same run as " + named(first) + ": its " + key + " differs" +
                          (!p.text.count(key) || !first.text.count(key) ? ""
                           : std::string(key) == "config"               ? config_difference(first.text.at(key), p.text[key])
                                                          : " ('" + echo(p.text[key]) + "', there '" + echo(first.text.at(key)) + "')"));
    }
  }
  // The slices in member order, covering 0 … N once.
  std::vector<std::size_t> order(parts.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return parts[a].begin < parts[b].begin; });
  const std::size_t total = parts.front().total;
  std::size_t next = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Part& p = parts[order[k]];
    const auto range = [](const Part& q) { return std::to_string(q.begin) + ":" + std::to_string(q.end); };
    if (p.begin < next)
      throw ConfigError("merge: " + named(p) + " (members " + range(p) + ") overlaps " + named(parts[order[k - 1]]) + " (members " +
                        range(parts[order[k - 1]]) + ")");
    if (p.begin > next)
      throw ConfigError("merge: members " + std::to_string(next) + " to " + std::to_string(p.begin - 1) + " are in no part (of " +
                        std::to_string(total) + ")");
    next = p.end;
  }
  if (next != total)
    throw ConfigError("merge: members " + std::to_string(next) + " to " + std::to_string(total - 1) + " are in no part (of " +
                      std::to_string(total) + ")");
  std::vector<Part> sorted;
  for (auto k : order) sorted.push_back(std::move(parts[k]));

  // The same datasets in every part, of the same shape but for the members; the bytes they hold
  // (as their shapes say), which the merged file needs on its file system.
  const auto sets = datasets(sorted.front());
  const auto bytes = [](const std::map<std::string, Dataset>& d) {
    double b = 0;
    for (const auto& [name, s] : d)
      if (s.shape != Dataset::names)
        b += std::accumulate(s.dims.begin(), s.dims.end(), s.kind == Sink::Kind::u8 ? 1.0 : 8.0, std::multiplies<double>());
    return b;
  };
  double needed = 65536 + bytes(sets);
  for (std::size_t k = 1; k < sorted.size(); ++k) {
    const auto other = datasets(sorted[k]);
    needed += bytes(other);
    for (const auto& [name, s] : sets) {
      const auto it = other.find(name);
      const bool same =
          it != other.end() && it->second.shape == s.shape && it->second.kind == s.kind && it->second.dims.size() == s.dims.size() &&
          std::equal(s.dims.begin() + (s.shape == Dataset::rows ? 1 : 0), s.dims.end() - (s.shape == Dataset::columns ? 1 : 0),
                     it->second.dims.begin() + (s.shape == Dataset::rows ? 1 : 0));
      if (!same)
        throw ConfigError("merge: '" + echo(sorted[k].path) + "' and '" + echo(sorted.front().path) + "' differ in dataset " + name);
    }
    if (other.size() != sets.size())
      throw ConfigError("merge: '" + echo(sorted[k].path) + "' has datasets that '" + echo(sorted.front().path) + "' has not");
  }

  check_space(o.output, needed, std::to_string(sorted.size()) + " parts' datasets");
  H5Sink w(o.output);
  const Part& first = sorted.front();
  std::set<std::string> devices, simd;
  double batches = 0;
  std::string listing;
  for (const auto& p : sorted) {
    devices.insert(p.text.count("device") ? p.text.at("device") : "unknown");
    simd.insert(p.text.count("cpu_simd") ? p.text.at("cpu_simd") : "unknown");
    batches += p.number.count("batches") ? p.number.at("batches") : 0;
    listing += p.name + " members " + std::to_string(p.begin) + ":" + std::to_string(p.end) + "\n";
  }
  const auto joined = [](const std::set<std::string>& s) {
    std::string r;
    for (const auto& x : s) r += (r.empty() ? "" : "; ") + x;
    return r;
  };
  for (const auto& [key, value] : first.text)
    if (key != "device" && key != "cpu_simd" && key != "command_line" && key != "created") w.attr(key, value);
  for (const auto& [key, value] : first.number)
    if (key.rfind("members_", 0) != 0 && key != "batches") w.attr(key, value);
  w.attr("device", joined(devices));
  w.attr("cpu_simd", joined(simd));
  w.attr("command_line", o.command_line);
  w.attr("created", utc_now());
  w.attr("batches", batches);
  w.attr("members_begin", 0.0);
  w.attr("members_end", double(total));
  w.attr("members_total", double(total));
  w.attr("merged_from", origin.empty() ? listing : origin);
  for (const auto& [name, s] : sets) {
    if (s.shape == Dataset::names) {
      w.write(name, read_names(first.file, name));
    } else {
      auto dims = s.dims;
      if (s.shape == Dataset::columns) {
        dims.back() = total;
        w.create(name, s.kind, Sink::Dims(dims.begin(), dims.end()));
      } else {
        w.create_rows(name, s.kind, dims.size() > 1 ? dims[1] : 0);
      }
      switch (s.kind) {
        case Sink::Kind::f64:
          join<double>(w, sorted, name, s, H5T_NATIVE_DOUBLE);
          break;
        case Sink::Kind::i64:
          join<long>(w, sorted, name, s, H5T_NATIVE_LONG);
          break;
        case Sink::Kind::u8:
          if (s.shape == Dataset::rows) throw ConfigError("merge: dataset " + name + " has rows of bytes, which liebatch never writes");
          join<std::uint8_t>(w, sorted, name, s, H5T_NATIVE_UINT8);
          break;
      }
    }
    for (const auto& [key, value] : s.attrs) w.attr(name, key, value);
  }
  check_outputs({o.output}, paths, o.force);  // again: a file may have appeared at the path meanwhile
  w.commit();
  if (!o.quiet)
    std::cout << "merge: " << sorted.size() << " parts, " << total << " members of one " << first.text.at("command") << " ("
              << first.text.at("model") << ", " << first.text.at("method") << ")\n  output: " << w.path() << "\n";
  return ok;
}

}  // namespace lb::cli

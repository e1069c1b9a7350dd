#include "cli/outputs/checkpoint.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cli/config/config_node.hpp"
#include "cli/outputs/output_files.hpp"

namespace lb::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// 2: a run whose section is none keeps no hit buffers in its engine state (session 36), which a
// build whose commit is unknown or "-dirty" would not tell by the identity alone.
constexpr char format[] = "liebatch checkpoint 2";
constexpr char magic[8] = {'L', 'B', 'P', 'A', 'R', 'T', 'S', '1'};

// SIGUSR1: a checkpoint at the next pause; SIGTERM: a checkpoint, then the end (exit 5).
std::atomic<bool> asked{false}, term_asked{false};
extern "C" void on_signal(int sig) {
  asked.store(true);
  if (sig == SIGTERM) term_asked.store(true);
}
struct sigaction before_usr1, before_term;
int signal_scopes = 0;  // CheckpointSignals alive (one thread makes and ends them)

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string in_quotes(const std::string& p) { return "'" + echo(p) + "'"; }

bool made_of(std::string_view s, const char* chars) { return !s.empty() && s.find_first_not_of(chars) == s.npos; }

/// A job's block: part-K.h5, its temporaries part-K.h5.tmp-PID[-k], and (`dir`) its checkpoint part-K.h5.ckpt.
bool job_part(std::string_view f, bool dir) {
  if (!f.starts_with("part-")) return false;
  f.remove_prefix(5);
  const std::size_t dot = f.find('.');
  if (dot == f.npos || !made_of(f.substr(0, dot), "0123456789")) return false;
  f.remove_prefix(dot);
  if (dir) return f == ".h5.ckpt";
  return f == ".h5" || (f.starts_with(".h5.tmp-") && made_of(f.substr(8), "0123456789-"));
}

/// The file by which a checkpoint directory is known as liebatch's, made at once with it: a
/// directory of the user's under the name, even an empty one, is never taken for a checkpoint and
/// never removed.
constexpr const char* marker = ".liebatch-checkpoint";

bool marked(const std::string& dir) {
  struct stat sb {};
  return ::lstat((dir + "/" + marker).c_str(), &sb) == 0 && S_ISREG(sb.st_mode);
}

/// The files a checkpoint directory holds; nothing else is ever removed from it.
bool ours(const std::string& name) {
  const std::string_view f = name;
  if (f == marker || f == "manifest.json" || f == "manifest.json.tmp" || f == "job.json" || f == "job.json.tmp" || job_part(f, false))
    return true;
  if (f.ends_with(".raw")) return made_of(f.substr(0, f.size() - 4), "0123456789abcdef");
  for (std::string_view kind : {"engine-", "tally-"})
    if (f.starts_with(kind) && f.ends_with(".bin")) return made_of(f.substr(kind.size(), f.size() - kind.size() - 4), "0123456789");
  return false;
}

bool removable(const std::string& dir);

/// A checkpoint to resume from is a directory liebatch made, never a link to one, holding only
/// what liebatch writes there: what it holds is removed once the output is in place, so anything
/// else would be refused then, after the run (or removed through a link).
void check_resumable(const std::string& dir) {
  struct stat sb {};
  if (::lstat(dir.c_str(), &sb) == 0 && !S_ISDIR(sb.st_mode))
    throw IoError("cannot resume from " + in_quotes(dir) + ": it is " + (S_ISLNK(sb.st_mode) ? "a symbolic link" : "not a directory") +
                  "; liebatch resumes from the directory it made, there (move that back)");
  removable(dir);
}

/// The error for a checkpoint file that cannot be what liebatch wrote, and the way out.
IoError damaged(const std::string& dir, const std::string& file, const std::string& why) {
  return IoError("checkpoint file " + in_quotes(file) + " in " + in_quotes(dir) + " is damaged (" + why +
                 "); run again with --restart to start over");
}

/// A manifest as a file of its own: written under NAME.tmp, made durable, renamed, the directory synced.
void write_json(const std::string& dir, const std::string& file, const json& m, long generation);

json read_json(const std::string& dir, const std::string& file) {
  const std::string name = dir + "/" + file;
  struct stat sb {};
  if (::stat(name.c_str(), &sb) != 0)
    throw IoError("--resume: no checkpoint to resume from (" + in_quotes(name) + ": " + std::strerror(errno) + ")");
  try {
    std::ifstream in(name);
    json m = json::parse(in);
    if (m.at("format") != format) throw std::runtime_error("format " + m.at("format").dump());
    return m;
  } catch (const std::exception& e) {
    throw damaged(dir, file, echo(e.what(), 200));
  }
}

void sync_dir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    throw IoError("checkpoint: cannot sync the directory " + in_quotes(dir) + ": " + why);
  }
  ::close(fd);
}

/// The checkpoint directory of `output`, new, with its marker, both durable.
void make_dir(const std::string& dir, const std::string& output) {
  if (::mkdir(dir.c_str(), 0700) != 0) {
    if (errno == EEXIST) throw ConfigError(Checkpoint::in_the_way(output));
    throw IoError("checkpoint: cannot create " + in_quotes(dir) + ": " + std::strerror(errno));
  }
  static constexpr std::string_view text =
      "liebatch's checkpoint of the output beside it: --resume goes on from it, --restart removes it\n";
  const std::string name = dir + "/" + marker;
  const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  const bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == ssize_t(text.size()) && ::fsync(fd) == 0;
  const std::string why = std::strerror(errno);
  if (fd >= 0) ::close(fd);
  if (!ok) throw IoError("checkpoint: cannot write " + in_quotes(name) + ": " + why);
  sync_dir(dir);
}

/// A file written whole and made durable; its size and CRC-32.
struct Written {
  std::uint64_t bytes = 0;
  unsigned long crc = 0;
};

class Writer {
 public:
  explicit Writer(std::string name) : name_(std::move(name)) {
    fd_ = ::open(name_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd_ < 0) fail();
    w_.crc = crc32_z(0, nullptr, 0);
  }
  ~Writer() {
    if (fd_ >= 0) ::close(fd_);
  }
  void put(const void* data, std::size_t n) {
    if (n == 0) return;  // (crc32_z of a null buffer is the initial value, whatever the crc before)
    w_.crc = crc32_z(w_.crc, static_cast<const Bytef*>(data), n);
    w_.bytes += n;
    const auto* p = static_cast<const char*>(data);
    while (n > 0) {
      const ssize_t k = ::write(fd_, p, n);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) fail();
      p += k, n -= std::size_t(k);
    }
  }
  void put(std::uint64_t x) { put(&x, sizeof x); }
  Written finish() {
    if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
      fd_ = -1;
      fail();
    }
    fd_ = -1;
    return w_;
  }

 private:
  std::string name_;
  int fd_ = -1;
  Written w_;
  [[noreturn]] void fail() { throw IoError("checkpoint: cannot write " + in_quotes(name_) + ": " + std::strerror(errno)); }
};

/// Parts as a file: a mark, the header numbers, then each part's size and bytes.
Written write_parts(const std::string& name, const std::vector<std::uint64_t>& head, const Parts& p) {
  Writer w(name);
  w.put(magic, sizeof magic);
  w.put(head.size());
  for (auto x : head) w.put(x);
  w.put(p.parts.size());
  for (const auto& part : p.parts) {
    w.put(part.size());
    w.put(part.data(), part.size());
  }
  return w.finish();
}

/// The parts of a file written by write_parts, checked against its size and CRC in the manifest.
Parts read_parts(const std::string& dir, const json& entry, std::vector<std::uint64_t>& head) {
  const std::string file = entry.at("name").get<std::string>(), name = dir + "/" + file;
  const auto bad = [&](const std::string& why) { return damaged(dir, file, why); };
  std::ifstream in(name, std::ios::binary);
  if (!in) throw IoError("checkpoint: cannot read " + in_quotes(name) + ": " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  if (bytes.size() != entry.at("bytes").get<std::uint64_t>())
    throw bad(std::to_string(bytes.size()) + " bytes, its manifest says " + entry.at("bytes").dump());
  if (crc32_z(crc32_z(0, nullptr, 0), reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()) != entry.at("crc32").get<unsigned long>())
    throw bad("its CRC-32 differs from its manifest's");
  std::size_t at = 0;
  const auto take = [&](void* out, std::size_t n) {
    if (bytes.size() - at < n) throw bad("it ends early");
    std::memcpy(out, bytes.data() + at, n);
    at += n;
  };
  const auto number = [&] {
    std::uint64_t x = 0;
    take(&x, sizeof x);
    return x;
  };
  char m[sizeof magic];
  take(m, sizeof m);
  if (std::memcmp(m, magic, sizeof magic) != 0) throw bad("not a checkpoint file");
  head.resize(number());
  for (auto& x : head) x = number();
  Parts p;
  p.parts.resize(number());
  for (auto& part : p.parts) {
    const std::uint64_t n = number();
    if (n > bytes.size() - at) throw bad("it ends early");
    part.assign(bytes.begin() + std::ptrdiff_t(at), bytes.begin() + std::ptrdiff_t(at + n));
    at += n;
  }
  return p;
}

/// Why a checkpoint made as `was` cannot go on as `now`, naming the first field that differs ("" : none).
std::string mismatch(const json& was, const json& now) {
  // (A field of a damaged manifest may be of any type: it is named as it is.)
  const auto text = [](const json& v) { return echo(v.is_string() ? v.get<std::string>() : v.dump(), 200); };
  for (const auto& [key, value] : now.items()) {
    const json old = was.is_object() && was.contains(key) ? was[key] : json();
    if (old == value) continue;
    if (key == "config") return "the config differs at " + json::diff(old, value).at(0).at("path").get<std::string>();
    if (key == "liebatch") return "it was made by liebatch " + text(old) + ", this is " + text(value);
    if (key == "members" && old.is_array() && old.size() == 2)
      return "it was made for members " + old[0].dump() + ":" + old[1].dump() + ", this run has " + value[0].dump() + ":" + value[1].dump();
    return "it was made with " + key + " " + text(old) + ", this run has " + text(value);
  }
  return "";
}

}  // namespace

std::string Checkpoint::dir_of(const std::string& output) { return output + ".ckpt"; }

std::string Checkpoint::in_the_way(const std::string& output) {
  if (!marked(dir_of(output)))
    return "output " + in_quotes(output) + ": " + in_quotes(dir_of(output)) +
           ", where its checkpoint would go, is not one liebatch made; move it, or name another output";
  return "output " + in_quotes(output) + " has a checkpoint in " + in_quotes(dir_of(output)) +
         " (a run that was stopped); give --resume to go on from it, or --restart to start over";
}

Checkpoint::Checkpoint(const std::string& output, const json& identity, bool resume, bool restart, double every)
    : dir_(dir_of(output)), identity_(identity), every_(every) {
  if (resume) {
    check_resumable(dir_);
    struct stat sb {};
    if (::stat((dir_ + "/job.json").c_str(), &sb) == 0)
      throw ConfigError("cannot resume from " + in_quotes(dir_) +
                        ": a job of ranks made it; resume it under mpirun or srun, with any number of ranks (--restart starts over)");
    read();
    if (const std::string why = mismatch(identity_, identity); !why.empty())
      throw ConfigError("cannot resume from " + in_quotes(dir_) + ": " + why + " (--restart starts over)");
    identity_ = identity;
    if (every > 0) every_ = every;
    resumed_ = true;
  } else {
    if (restart) remove();
    make_dir(dir_, output);
    generation_ = -1;
  }
  last_ = now();
}

Checkpoint::~Checkpoint() = default;

CheckpointSignals::CheckpointSignals() {
  if (signal_scopes++ > 0) return;
  struct sigaction mine {};
  mine.sa_handler = on_signal;
  mine.sa_flags = SA_RESTART;  // the handler only notes the signal: system calls go on
  sigemptyset(&mine.sa_mask);
  asked = false, term_asked = false;
  sigaction(SIGUSR1, &mine, &before_usr1);
  sigaction(SIGTERM, &mine, &before_term);
}

CheckpointSignals::~CheckpointSignals() {
  if (--signal_scopes > 0) return;
  sigaction(SIGUSR1, &before_usr1, nullptr);
  sigaction(SIGTERM, &before_term, nullptr);
}

bool CheckpointSignals::ending() { return term_asked.load(); }

void Checkpoint::read() {
  const json m = read_json(dir_, "manifest.json");
  std::map<std::string, std::uint64_t> columns;  // the staged column arrays' raw files and sizes
  try {
    identity_ = m.at("identity");
    generation_ = m.at("generation").get<long>();
    next_ = m.at("next_member").get<std::size_t>();
    every_ = m.at("every").get<double>();
    rows_ = m.at("rows").get<std::map<std::string, std::uint64_t>>();
    values_ = m.at("values").get<std::map<std::string, std::uint64_t>>();
    columns = m.value("columns", json::object()).get<std::map<std::string, std::uint64_t>>();
    if (!identity_.is_object() || !m.at("files").is_object()) throw std::runtime_error("its identity and files are not objects");
  } catch (const std::exception& e) {
    throw damaged(dir_, "manifest.json", echo(e.what(), 200));
  }
  std::vector<std::uint64_t> head;
  const json& files = m["files"];
  if (files.contains("engine")) {
    Parts p = read_parts(dir_, files["engine"], head);
    if (head.size() != 3) throw IoError("checkpoint file of the engine's state in " + in_quotes(dir_) + " is damaged (its header)");
    engine_ = std::make_unique<EngineState>();
    engine_->parts = std::move(p.parts);
    engine_->batch = head[0], engine_->b0 = head[1], engine_->leg = int(head[2]);
  }
  if (files.contains("tally")) tally_ = read_parts(dir_, files["tally"], head);
  // The staged arrays, each at its size: one gone would be made again of zeros, members never run.
  // (Their contents have no CRC: batches rewrite them in place.)
  for (const auto& [name, bytes] : columns) {
    struct stat sb {};
    if (!ours(name) || ::lstat((dir_ + "/" + name).c_str(), &sb) != 0 || !S_ISREG(sb.st_mode))
      throw damaged(dir_, name, "missing; the manifest lists it, a staged array of " + std::to_string(bytes) + " bytes");
    if (std::uint64_t(sb.st_size) != bytes)
      throw damaged(dir_, name, std::to_string(sb.st_size) + " bytes, not the " + std::to_string(bytes) + " its manifest lists");
  }
  // What a killed checkpoint left beside this generation: liebatch's own files alone (a user's
  // note.bin stays).
  for (const auto& e : fs::directory_iterator(dir_)) {
    const std::string f = e.path().filename().string();
    const bool named =
        (files.contains("engine") && files["engine"]["name"] == f) || (files.contains("tally") && files["tally"]["name"] == f);
    std::error_code ec;
    if (!named && ours(f) && (f == "manifest.json.tmp" || f.ends_with(".bin")) && fs::is_regular_file(fs::symlink_status(e.path(), ec)))
      fs::remove(e.path());
  }
}

std::uint64_t Checkpoint::value(const std::string& key, std::uint64_t fallback) const {
  const auto it = values_.find(key);
  return resumed_ && it != values_.end() ? it->second : fallback;
}

bool Checkpoint::due() const { return asked.load() || (every_ > 0 && now() - last_ >= every_); }

void Checkpoint::save(StagedSink& sink, std::size_t next_member, const EngineState* engine, const Parts& tally) {
  const double t0 = now();
  sink.sync();
  const long g = generation_ + 1;
  json files = json::object();
  const auto file = [&](const std::string& what, const std::vector<std::uint64_t>& head, const Parts& p) {
    const std::string name = what + "-" + std::to_string(g) + ".bin";
    const Written w = write_parts(dir_ + "/" + name, head, p);
    files[what] = {{"name", name}, {"bytes", w.bytes}, {"crc32", w.crc}};
    bytes_ += w.bytes;
  };
  bytes_ = 0;
  if (engine) file("engine", {engine->batch, engine->b0, std::uint64_t(engine->leg)}, *engine);
  file("tally", {}, tally);
  const json m = {{"format", format}, {"identity", identity_}, {"generation", g},   {"next_member", next_member},    {"every", every_},
                  {"files", files},   {"rows", sink.rows()},   {"values", values_}, {"columns", sink.column_files()}};
  write_manifest(m);
  // The previous generation's files are no longer named by the manifest.
  for (const char* what : {"engine", "tally"}) std::remove((dir_ + "/" + what + "-" + std::to_string(generation_) + ".bin").c_str());
  generation_ = g;
  ++saved_;
  last_ = now();
  seconds_ += last_ - t0;
  asked = false;
  if (term_asked.load())
    throw Checkpointed("stopped by SIGTERM after a checkpoint (generation " + std::to_string(g) + ", " + std::to_string(next_member) +
                       " members done" + (engine ? " and a batch in flight" : "") + ") in " + in_quotes(dir_) +
                       "; run the same command with --resume to go on");
}

void Checkpoint::write_manifest(const json& m) { write_json(dir_, "manifest.json", m, m["generation"].get<long>()); }

namespace {

void write_json(const std::string& dir, const std::string& file, const json& m, long generation) {
  const std::string name = dir + "/" + file, tmp = name + ".tmp";
  Writer w(tmp);
  const std::string text = m.dump(1);
  w.put(text.data(), text.size());
  w.finish();
  // A test's kill between the data files and the rename (docs/cluster.md: the previous generation stays).
  if (const char* g = std::getenv("LIEBATCH_CHECKPOINT_KILL_BEFORE_RENAME"); g && std::atol(g) == generation) std::raise(SIGKILL);
  if (std::rename(tmp.c_str(), name.c_str()) != 0)
    throw IoError("checkpoint: cannot rename " + in_quotes(tmp) + " to " + in_quotes(name) + ": " + std::strerror(errno));
  sync_dir(dir);
}

}  // namespace

Checkpoint::Job Checkpoint::job(const std::string& output, const json& identity, bool resume, bool restart, Job fresh) {
  const std::string dir = dir_of(output);
  if (resume) {
    check_resumable(dir);
    struct stat sb {};
    if (::stat((dir + "/manifest.json").c_str(), &sb) == 0)
      throw ConfigError("cannot resume from " + in_quotes(dir) +
                        ": a single process made it; resume it without mpirun or srun (--restart starts over)");
    const json m = read_json(dir, "job.json");
    Job kept;
    try {
      kept = {m.at("block").get<std::uint64_t>(), m.at("every").get<double>()};
      if (kept.block == 0 || !(kept.every > 0)) throw std::runtime_error("block " + m["block"].dump() + ", every " + m["every"].dump());
    } catch (const std::exception& e) {
      throw damaged(dir, "job.json", echo(e.what(), 200));
    }
    if (const std::string why = mismatch(m.contains("identity") ? m["identity"] : json(), identity); !why.empty())
      throw ConfigError("cannot resume from " + in_quotes(dir) + ": " + why + " (--restart starts over)");
    // What a killed job left half written: its blocks' output temporaries, the manifest's.
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string f = e.path().filename().string();
      if (f == "job.json.tmp" || (job_part(f, false) && !f.ends_with(".h5"))) fs::remove(e.path());
    }
    return kept;
  }
  if (restart) remove(dir);
  make_dir(dir, output);
  write_json(dir, "job.json", {{"format", format}, {"identity", identity}, {"block", fresh.block}, {"every", fresh.every}}, -1);
  return fresh;
}

namespace {

/// Throws (IoError) unless `dir` is a directory that holds only what liebatch writes there, a job's
/// blocks' checkpoints included; whether it exists.
bool removable(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(dir, ec))) return false;
  if (fs::is_symlink(fs::symlink_status(dir, ec)) || !fs::is_directory(dir, ec))
    throw IoError("checkpoint: " + in_quotes(dir) + " is not a directory liebatch made; liebatch does not remove it");
  if (!marked(dir))
    throw IoError("checkpoint: " + in_quotes(dir) + " is not a checkpoint liebatch made (it has no " + marker +
                  "); liebatch removes nothing of it");
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    // By name and by type, links never followed: a link or a directory under one of liebatch's names
    // is the user's (a link to their data would have it removed through the link).
    const fs::file_type type = e.symlink_status(ec).type();
    if (job_part(f, true) && type == fs::file_type::directory) removable(e.path().string());
    else if (!ours(f) || type != fs::file_type::regular)
      throw IoError("checkpoint: " + in_quotes(dir) + " holds " + in_quotes(f) + (ours(f) ? ", which is not a file" : "") +
                    ", which liebatch did not write; liebatch removes nothing of it");
  }
  return true;
}

/// Removes a directory that removable() accepted, its manifests (job.json, manifest.json) and then
/// its marker last: a removal cut short leaves a checkpoint that resumes, not a directory that
/// --resume cannot read.
void remove_checked(const std::string& dir) {
  std::vector<fs::path> last;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    if (f == "job.json" || f == "manifest.json") last.push_back(e.path());
    else if (f != marker && e.symlink_status().type() == fs::file_type::directory) remove_checked(e.path().string());
    else if (f != marker) fs::remove(e.path());
  }
  last.push_back(fs::path(dir) / marker);
  for (const auto& p : last) fs::remove(p);
  std::error_code ec;
  if (!fs::remove(dir, ec) || ec) throw IoError("checkpoint: cannot remove " + in_quotes(dir) + ": " + ec.message());
}

}  // namespace

void Checkpoint::remove(const std::string& dir) {
  if (removable(dir)) remove_checked(dir);
}

}  // namespace lb::cli

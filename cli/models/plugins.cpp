#include "cli/models/plugin.hpp"

#include <dlfcn.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>

#include "cli/config/fnv.hpp"  // the cache's keys and file checks (the cache is the user's own, mode 0700)
#include "cli/models/method_list.hpp"
#include "cli/outputs/output_files.hpp"
#include "cli/outputs/provenance.hpp"

extern char** environ;

// Where the build wrote its compile settings (CMakeLists.txt sets it for this file; a build of
// these sources for another use, as the fuzzer's, has none and says so when asked for a model).
#ifndef LIEBATCH_PLUGIN_CONFIG
#define LIEBATCH_PLUGIN_CONFIG ""
#endif

namespace lb::cli {
namespace {

namespace fs = std::filesystem;

/// How the command compiles a plugin: written by CMake into the build (cmake/plugin_config.txt.in),
/// one "key value" a line: the compiler, its id, the unit and each flag; in a build with a GPU
/// path, nvcc, its flags and how to link the CUDA runtime (the GPU unit lies beside the unit), and
/// whether a model gets kernels unless it says (not where they only check: LIEBATCH_CUDA_CHECK_ONLY).
struct CompileConfig {
  std::string compiler, compiler_id, unit, cuda_compiler;
  std::vector<std::string> flags, cuda_flags, cuda_link;
  bool cuda_by_default = true;
};

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw IoError("cannot read '" + echo(p.string()) + "'");
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

/// Where the settings are: $LIEBATCH_PLUGIN_CONFIG; beside the binary holding this code
/// (plugin_config.txt: an installed Python module) or under its prefix (bin/../share/liebatch/
/// plugin/config.txt: an installed command); else the build's own.
fs::path config_path() {
  if (const char* env = std::getenv("LIEBATCH_PLUGIN_CONFIG"); env && *env) return env;
  if (Dl_info self; dladdr(reinterpret_cast<void*>(&config_path), &self) != 0 && self.dli_fname) {
    // A shared object is named by its path; the program by argv[0], which may be a bare name.
    const std::string name = self.dli_fname;
    std::error_code ec;
    const fs::path dir = fs::canonical(name.find('/') == std::string::npos ? "/proc/self/exe" : name, ec).parent_path();
    for (const fs::path& p : {dir / "plugin_config.txt", dir / ".." / "share" / "liebatch" / "plugin" / "config.txt"}) {
      std::error_code missing;
      if (!ec && fs::is_regular_file(p, missing)) return p;
    }
  }
  return LIEBATCH_PLUGIN_CONFIG;
}

CompileConfig compile_config() {
  const fs::path p = config_path();
  std::ifstream f(p);
  if (!f)
    throw std::runtime_error("user models: this liebatch cannot compile them: its compile settings '" + p.string() +
                             "' are missing (set LIEBATCH_PLUGIN_CONFIG to the build's plugin/config.txt)");
  CompileConfig c;
  for (std::string line; std::getline(f, line);) {
    const auto sp = line.find(' ');
    const std::string k = line.substr(0, sp), v = sp == std::string::npos ? "" : line.substr(sp + 1);
    if (k == "compiler") c.compiler = v;
    else if (k == "compiler_id") c.compiler_id = v;
    else if (k == "unit") c.unit = v;
    else if (k == "flag" && !v.empty()) c.flags.push_back(v);
    else if (k == "cuda_compiler") c.cuda_compiler = v;
    else if (k == "cuda_flag" && !v.empty()) c.cuda_flags.push_back(v);
    else if (k == "cuda_link" && !v.empty()) c.cuda_link.push_back(v);
    else if (k == "cuda_by_default") c.cuda_by_default = v != "off";
  }
  if (const char* cxx = std::getenv("LIEBATCH_CXX"); cxx && *cxx) c.compiler = cxx;
  if (c.compiler.find('/') == std::string::npos && std::getenv("PATH")) {  // a name: its file on PATH
    std::istringstream dirs(std::getenv("PATH"));
    for (std::string d; std::getline(dirs, d, ':');)
      if (!d.empty() && ::access((fs::path(d) / c.compiler).c_str(), X_OK) == 0) {
        c.compiler = (fs::path(d) / c.compiler).string();
        break;
      }
  }
  return c;
}

/// A plugin's manifest: its key, its shared object's hash, and each file it was compiled from
/// (the user's header, what that includes, liebatch's headers) with its hash: a file that has
/// changed since makes the plugin stale, and it is rebuilt.
struct Manifest {
  std::string key;
  std::uint64_t object = 0;
  std::vector<std::pair<std::string, std::uint64_t>> files;
};

std::string format(const Manifest& m) {
  std::string s = "liebatch-plugin 1\nkey " + m.key + "\nobject " + hex(m.object) + "\n";
  for (const auto& [path, h] : m.files) s += "file " + hex(h) + " " + path + "\n";
  return s;
}

/// The object of the plugin `key` in dir, "" unless its manifest and the object it names are whole
/// and every file it was compiled from is unchanged. An object is named by its key and its own
/// hash, so that a rebuilt plugin never has the name of one a process has loaded (dlopen would
/// give that one back).
fs::path current(const fs::path& dir, const std::string& key) {
  std::ifstream f(dir / (key + ".manifest"));
  std::string line;
  if (!f || !std::getline(f, line) || line != "liebatch-plugin 1") return {};
  if (!std::getline(f, line) || line != "key " + key) return {};
  if (!std::getline(f, line) || line.rfind("object ", 0) != 0) return {};
  const fs::path object = dir / (key + "-" + line.substr(7) + ".so");
  try {
    if (line.substr(7) != hex(fnv(read_text(object)))) return {};
    while (std::getline(f, line)) {
      if (line.rfind("file ", 0) != 0 || line.size() < 23) return {};
      if (line.substr(5, 16) != hex(fnv(read_text(line.substr(22))))) return {};
    }
  } catch (const IoError&) {
    return {};
  }
  return object;
}

/// The cache directory, made if needed, as a path without links; refused unless it is this user's
/// alone and no other user can rename or replace any directory above it (each is root's or this
/// user's, and writable by no one else unless sticky, as /tmp): a plugin is code that this process
/// runs, found by its path between the checks and dlopen.
fs::path check_cache(const fs::path& asked) {
  if (!asked.is_absolute())
    throw IoError("user models: the cache directory '" + asked.string() + "' is a relative path (LIEBATCH_CACHE_DIR, HOME)");
  std::error_code ec;
  fs::create_directories(asked, ec);
  if (ec) throw IoError("user models: cannot create the cache directory '" + asked.string() + "': " + ec.message());
  const fs::path dir = fs::canonical(asked, ec);
  struct stat st {};
  if (ec || ::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
    throw IoError("user models: the cache directory '" + asked.string() + "' is not a directory of this user's (LIEBATCH_CACHE_DIR)");
  if ((st.st_mode & 077) != 0 && ::chmod(dir.c_str(), 0700) != 0)
    throw IoError("user models: the cache directory '" + asked.string() + "' is open to others and cannot be made private");
  for (fs::path up = dir.parent_path();; up = up.parent_path()) {
    struct stat u {};
    if (::lstat(up.c_str(), &u) != 0 || (u.st_uid != 0 && u.st_uid != ::geteuid()) ||
        ((u.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (u.st_mode & S_ISVTX) == 0))
      throw IoError("user models: the cache directory '" + asked.string() + "' lies in '" + up.string() +
                    "', which another user can change (its owner or its mode); set LIEBATCH_CACHE_DIR to a directory of yours");
    if (up == up.root_path()) break;
  }
  return dir;
}

/// This host's name, for the build directories: a cache in a home shared by several hosts holds
/// builds in flight on others, whose process ids mean nothing here.
std::string host() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  std::string h;
  for (const char* c = name; *c; ++c) h += std::isalnum(static_cast<unsigned char>(*c)) || *c == '.' || *c == '-' ? *c : '_';
  return h;
}

/// Build directories that a killed process of this host left (.build-<key>-<pid>-<random>-<host>,
/// its pid gone).
void sweep(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(".build-", 0) != 0 || name.size() < 7 + 33 || !name.ends_with("-" + host())) continue;
    const std::string rest = name.substr(7 + 33);  // after the key and its dash
    const long pid = std::strtol(rest.c_str(), nullptr, 10);
    if (pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
  }
}

/// What a compiler reads from the environment that changes its object (include and program paths,
/// nvcc's extra flags), and, for -march=native, the CPU it means: part of a plugin's key.
std::string compile_environment(const std::vector<std::string>& flags) {
  std::string v;
  for (const char* name : {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "GCC_EXEC_PREFIX", "COMPILER_PATH", "LIBRARY_PATH",
                           "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN"})
    if (const char* x = std::getenv(name)) v += std::string(name) + "=" + x + "\n";
  if (std::any_of(flags.begin(), flags.end(), [](const std::string& f) { return f.find("=native") != f.npos; })) {
    std::ifstream cpu("/proc/cpuinfo");
    for (std::string line; std::getline(cpu, line) && !line.empty();)  // the first CPU's lines
      if (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0 || line.rfind("model name", 0) == 0) v += line + "\n";
  }
  return v;
}

/// The files a -MMD dependency list names (continued lines; "\\ ", "\\#" and "$$" escape a space,
/// a # and a $), less its target.
std::vector<std::string> dependencies(const std::string& text) {
  std::vector<std::string> v;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) v.push_back(cur), cur.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == ' ' || text[i + 1] == '#')) {
      if (text[++i] == '\n') flush();
      else cur += text[i];
    } else if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      cur += text[i++];
    } else if (text[i] == ' ' || text[i] == '\n' || text[i] == '\t') {
      flush();
    } else {
      cur += text[i];
    }
  }
  flush();
  // Less the target: "obj:" (g++) or "obj :" (nvcc).
  if (const auto colon = std::find_if(v.begin(), v.end(), [](const std::string& x) { return x.back() == ':'; }); colon != v.end())
    v.erase(v.begin(), colon + 1);
  return v;
}

/// Starts argv[0] (found on PATH if it has no slash) with argv, no shell: each argument is passed
/// as it is; its output into `log`. wait() gives its exit status; otherwise a message: why it did
/// not start, or the signal that ended it.
struct Ran {
  int status = -1;
  std::string failure;
};
struct Spawned {
  pid_t pid = 0;
  Ran failed;  // why it did not start (pid 0)
};
Spawned spawn(const std::vector<std::string>& argv, const fs::path& log, bool own_group = false) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawnattr_t attr;  // in a process group of its own: stopped as a whole (nvcc runs several)
  posix_spawnattr_init(&attr);
  if (own_group) posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP), posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return {0, {-1, std::string("it did not start: ") + std::strerror(rc)}};
  return {pid, {}};
}
Ran wait(const Spawned& p) {
  if (p.pid == 0) return p.failed;
  int status = 0;
  while (waitpid(p.pid, &status, 0) < 0)
    if (errno != EINTR) return {-1, std::string("waiting for it failed: ") + std::strerror(errno)};
  if (WIFSIGNALED(status))
    return {-1, "it was ended by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")"};
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ""};
}

/// The compiler `path`, checked: there and runnable; its size and time (they go into the key: an
/// upgraded compiler is another).
std::string checked_compiler(const std::string& path, const std::string& what) {
  struct stat cs {};
  if (path.empty() || ::stat(path.c_str(), &cs) != 0 || ::access(path.c_str(), X_OK) != 0) throw std::runtime_error(what);
  return path + " " + std::to_string(cs.st_size) + " " + std::to_string(cs.st_mtime) + "\n";
}

/// The compiler's text for a message: its first 60 lines (the first error comes first: the unit
/// is compiled with -Wfatal-errors).
std::string compiler_text(const fs::path& log) {
  std::string t;
  try {
    t = read_text(log);
  } catch (const IoError&) {
  }
  std::istringstream s(t);
  std::string out, line;
  for (int n = 0; std::getline(s, line); ++n) {
    if (n == 60) {
      out += "  ...\n";
      break;
    }
    out += "  " + line + "\n";
  }
  return out;
}

/// Whether s is a C++ name: identifiers joined by "::", none a keyword (all that goes into
/// -DLB_USER_MODEL).
bool cpp_name(const std::string& s) {
  static const std::set<std::string> keywords = {
      "alignas",  "alignof",  "and",       "and_eq",       "asm",       "auto",       "bitand",        "bitor",       "bool",
      "break",    "case",     "catch",     "char",         "char8_t",   "char16_t",   "char32_t",      "class",       "compl",
      "concept",  "const",    "consteval", "constexpr",    "constinit", "const_cast", "continue",      "co_await",    "co_return",
      "co_yield", "decltype", "default",   "delete",       "do",        "double",     "dynamic_cast",  "else",        "enum",
      "explicit", "export",   "extern",    "false",        "float",     "for",        "friend",        "goto",        "if",
      "inline",   "int",      "long",      "mutable",      "namespace", "new",        "noexcept",      "not",         "not_eq",
      "nullptr",  "operator", "or",        "or_eq",        "private",   "protected",  "public",        "register",    "reinterpret_cast",
      "requires", "return",   "short",     "signed",       "sizeof",    "static",     "static_assert", "static_cast", "struct",
      "switch",   "template", "this",      "thread_local", "throw",     "true",       "try",           "typedef",     "typeid",
      "typename", "union",    "unsigned",  "using",        "virtual",   "void",       "volatile",      "wchar_t",     "while",
      "xor",      "xor_eq"};
  const auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  std::size_t begin = 0;
  bool start = true;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || (s.compare(i, 2, "::") == 0 && !start)) {
      if (start || keywords.count(s.substr(begin, i - begin))) return false;
      start = true, begin = i + 2, ++i;
    } else if (letter(s[i]) || (!start && s[i] >= '0' && s[i] <= '9')) {
      start = false;
    } else {
      return false;
    }
  }
  return true;
}

/// The line of `text` that declares class template `type` ("struct Name" or "class Name"), 0 if
/// none: a broken part of the contract is reported where the model is, in the user's header.
int declared_at(const std::string& text, const std::string& type) {
  const std::string name = type.substr(type.rfind(':') == std::string::npos ? 0 : type.rfind(':') + 1);
  for (const char* kw : {"struct ", "class "}) {
    for (std::size_t at = text.find(kw + name); at != std::string::npos; at = text.find(kw + name, at + 1)) {
      const std::size_t end = at + std::char_traits<char>::length(kw) + name.size();
      const char c = end < text.size() ? text[end] : ' ';
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return 1 + int(std::count(text.begin(), text.begin() + long(at), '\n'));
    }
  }
  return 0;
}

/// Loaded plugins by object path: never unloaded (their runners' code lives in them).
std::map<std::string, PluginModel>& loaded() {
  static std::map<std::string, PluginModel> m;
  return m;
}

/// The files a plugin's manifest lists, with their hashes.
std::vector<std::pair<std::string, std::uint64_t>> manifest_files(const fs::path& manifest) {
  std::vector<std::pair<std::string, std::uint64_t>> files;
  std::ifstream f(manifest);
  for (std::string line; std::getline(f, line);)
    if (line.rfind("file ", 0) == 0 && line.size() >= 23) files.emplace_back(line.substr(22), std::stoull(line.substr(5, 16), nullptr, 16));
  return files;
}

/// What a user's model's numbers depend on besides liebatch and the config, for outputs to record
/// (a resumed run or merged slices of another header are another run): its header's bytes and
/// those of the files it includes from its own directory, as "NAME (FNV-1a H)". Paths relative to
/// that directory, so that one model on two nodes is one.
std::string model_source(const fs::path& header, const std::string& text, const std::vector<std::pair<std::string, std::uint64_t>>& files) {
  std::uint64_t h = fnv(text);
  for (const auto& [file, digest] : files) {  // (in the compiler's order of inclusion)
    const fs::path rel = fs::path(file).lexically_relative(header.parent_path());
    if (fs::path(file) != header && !rel.empty() && *rel.begin() != "..") h = fnv(rel.string() + " " + hex(digest) + "\n", h);
  }
  return header.filename().string() + " (FNV-1a " + hex(h) + ")";
}

const ModelInfo& load(const fs::path& object, const std::string& key, const std::string& path, const std::string& summary,
                      const std::string& source) {
  static const bool prepared = [] {
    if (const auto& f = before_first_plugin()) f();
    return true;
  }();
  (void)prepared;
  void* h = dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw std::runtime_error(path + ": cannot load the compiled model '" + object.string() + "': " + dlerror());
  using Entry = void (*)(PluginModel&);
  auto* f = reinterpret_cast<Entry>(dlsym(h, "liebatch_user_model"));
  PluginModel m;
  if (f) f(m);
  if (!f || m.key != key) throw std::runtime_error(path + ": '" + object.string() + "' is not the plugin compiled for this model");
  if (!m.broken.empty()) throw ConfigError("config " + path + ": the model breaks its contract: " + m.broken);
  m.info.summary = summary;
  m.info.source = source;
  m.object = object.string();
  return loaded().try_emplace(object.string(), std::move(m)).first->second.info;  // never replaced: callers hold it
}

}  // namespace

std::function<void()>& before_first_plugin() {
  static std::function<void()> f;
  return f;
}

std::string plugin_cache() {
  const auto asked = [] {
    if (const char* d = std::getenv("LIEBATCH_CACHE_DIR"); d && *d) return fs::path(d) / "models";
    if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d && fs::path(d).is_absolute()) return fs::path(d) / "liebatch" / "models";
    const char* home = std::getenv("HOME");
    if (!home || !*home) throw std::runtime_error("user models: no cache directory (set LIEBATCH_CACHE_DIR or HOME)");
    return fs::path(home) / ".cache" / "liebatch" / "models";
  };
  return check_cache(asked()).string();
}

namespace {

/// What a plugin is compiled from: a header that comes in by -include (the user's, or liebatch's
/// own), the macro naming its entry, and how messages name it.
struct PluginSource {
  fs::path source;      ///< canonical
  std::string text;     ///< the header's text (part of the key)
  std::string type;     ///< the model in messages: the user's template ("Gyrostat"), or the entry
  std::string entry;    ///< -DLB_USER_MODEL=Type or -DLB_USER_ENTRY=lb::cli::PendulumEntry<N>
  std::string summary;  ///< the loaded entry's summary
  bool own = false;     ///< a user's model (not liebatch's own entry compiled at run time)
};

/// The plugin of `u` for `methods` (with its GPU kernels where `gpu`; by default where this liebatch
/// has a GPU path that can run), from the cache or compiled into it. Errors name `path`.
const ModelInfo& compiled(const PluginSource& u, const std::vector<std::string>& methods, std::optional<bool> gpu, const std::string& path,
                          const CompileConfig& cc) {
  static std::mutex mutex;  // Python threads may make models at once
  std::lock_guard<std::mutex> lock(mutex);
  const fs::path& src = u.source;
  const std::string& text = u.text;
  const std::string& type = u.type;
  std::error_code ec;
  if (methods.empty()) Node::fail(path + "/methods", "expected at least one method to compile the model for");
  for (std::size_t k = 0; k < methods.size(); ++k) {
    if (!built_in_method(methods[k]))
      Node::fail(path + "/methods/" + std::to_string(k), "unknown method '" + echo(methods[k]) + "'; `liebatch list methods` lists them");
    for (std::size_t j = 0; j < k; ++j)
      if (methods[j] == methods[k]) Node::fail(path + "/methods/" + std::to_string(k), "method '" + methods[k] + "' is listed twice");
  }
  // In one order, so that one set of methods is one plugin (the key holds the list).
  std::vector<std::string> sorted = methods;
  std::sort(sorted.begin(), sorted.end());
  std::string method_list, method_macro;
  for (const auto& m : sorted) {
    method_list += (method_list.empty() ? "" : ", ") + m;
    method_macro += "X(" + m + ")";
  }
  if (gpu.value_or(false) && cc.cuda_compiler.empty())
    Node::fail(path + "/gpu", "this liebatch has no GPU path (built without CUDA), so a model's GPU kernels cannot be compiled");
  const bool kernels = gpu.value_or(!cc.cuda_compiler.empty() && cc.cuda_by_default);
  // The key: everything that makes the object differ. The files it includes are checked by the
  // manifest instead (their list is known once compiled).
  std::string what =
      std::string("liebatch ") + LIEBATCH_VERSION + " " + source_commit() + "\n" + cc.compiler_id + "\n" +
      checked_compiler(cc.compiler, std::string("user models: the C++ compiler ") +
                                        (std::getenv("LIEBATCH_CXX") && *std::getenv("LIEBATCH_CXX") ? "LIEBATCH_CXX names"
                                                                                                     : "liebatch was built with") +
                                        ", '" + cc.compiler + "' (" + cc.compiler_id +
                                        "), is not there: install it (Debian: apt install g++, or scripts/install-deps.sh), "
                                        "or set LIEBATCH_CXX to the same compiler elsewhere");
  for (const auto& f : cc.flags) what += f + "\n";
  if (kernels) {
    what += checked_compiler(cc.cuda_compiler, "user models: the CUDA compiler liebatch was built with, '" + cc.cuda_compiler +
                                                   "', is not there: install the CUDA Toolkit it came from, or give the model "
                                                   "\"gpu\": false to compile it for the CPU alone");
    for (const auto& f : cc.cuda_flags) what += f + "\n";
    for (const auto& f : cc.cuda_link) what += f + "\n";
  }
  what += compile_environment(cc.flags) + u.entry + "\n" + method_list + "\n" + src.string() + "\n" + text;
  const std::string key = hex(fnv(what)) + hex(fnv(what, 0x9e3779b97f4a7c15ull));
  const fs::path dir = plugin_cache();
  const fs::path cached = current(dir, key);  // checked on every use: a header may have changed since
  if (const auto it = loaded().find(cached.string()); !cached.empty() && it != loaded().end()) return it->second.info;
  if (!cached.empty()) {
    try {
      return load(cached, key, path, u.summary, u.own ? model_source(u.source, u.text, manifest_files(dir / (key + ".manifest"))) : "");
    } catch (const ConfigError&) {  // the model itself (its contract): a rebuild would say the same
      throw;
    } catch (const std::runtime_error&) {  // not loadable (a foreign or damaged object): rebuilt below
    }
  }
  sweep(dir);

  // Compiled in a directory of its own, then renamed into place: the object first, its manifest
  // last, so that no run loads a half-written plugin, and two processes compiling the same model at
  // once both succeed and leave one.
  std::random_device rd;
  const fs::path tmp = dir / (".build-" + key + "-" + std::to_string(::getpid()) + "-" + hex(rd()) + "-" + host());
  fs::create_directory(tmp, ec);
  if (ec) throw IoError("user models: cannot create '" + tmp.string() + "': " + ec.message());
  const RemovedOnSignal removed_on_signal(tmp.string());  // (SIGTERM or Ctrl-C while the compilers run)
  struct Remove {
    fs::path p;
    ~Remove() {
      std::error_code e;
      fs::remove_all(p, e);
    }
  } remove{tmp};
  const std::vector<std::string> model{"-include", src.string(), u.entry, "-DLB_USER_METHODS(X)=" + method_macro,
                                       "-DLB_USER_KEY=\"" + key + "\""};
  std::vector<std::string> cpu{cc.compiler};
  cpu.insert(cpu.end(), cc.flags.begin(), cc.flags.end());
  cpu.insert(cpu.end(), {"-fPIC", "-Wfatal-errors"});
  // GCC makes the static locals of templates (a model entry's parameter table) STB_GNU_UNIQUE,
  // which glibc binds process-wide even under RTLD_LOCAL: a second model of the same type name
  // would take the first's table. Each plugin keeps its own.
  const bool gnu = cc.compiler_id.rfind("GNU", 0) == 0;
  if (gnu) cpu.push_back("-fno-gnu-unique");
  cpu.insert(cpu.end(), model.begin(), model.end());
  if (kernels) cpu.push_back("-DLB_USER_GPU");
  cpu.insert(cpu.end(), {"-MMD", "-MF", (tmp / "deps").string(), "-c", cc.unit, "-o", (tmp / "cpu.o").string()});
  std::vector<std::string> cuda{cc.cuda_compiler};
  cuda.insert(cuda.end(), cc.cuda_flags.begin(), cc.cuda_flags.end());
  cuda.insert(cuda.end(), model.begin(), model.end());
  if (gnu) cuda.push_back("-Xcompiler=-fno-gnu-unique");
  cuda.insert(cuda.end(), {"-MMD", "-MF", (tmp / "deps_gpu").string(), "-c",
                           (fs::path(cc.unit).parent_path() / "plugin_unit_gpu.cu").string(), "-o", (tmp / "gpu.o").string()});
  std::cerr << "liebatch: compiling model " << type << " from " << src.string() << " for " << method_list
            << (kernels ? ", CPU and GPU" : "") << " (" << cc.compiler_id << ", about a minute; cached in " << dir.string() << ")..."
            << std::flush;
  const auto t0 = std::chrono::steady_clock::now();
  // The CPU unit and the GPU unit at once (each is one process; the machine has cores for both).
  const Spawned cpu_job = spawn(cpu, tmp / "log");
  const Spawned cuda_job = kernels ? spawn(cuda, tmp / "log_gpu", true) : Spawned{};
  const Ran cpu_ran = wait(cpu_job);
  if (cpu_ran.status != 0 && cuda_job.pid != 0) ::kill(-cuda_job.pid, SIGTERM);  // the error to report is the CPU unit's
  const Ran cuda_ran = kernels ? wait(cuda_job) : Ran{0, ""};
  const auto failed = [&](const Ran& ran, const std::string& compiler, const fs::path& log, const std::string& part) {
    std::cerr << " failed\n";
    if (ran.status < 0) throw std::runtime_error("user models: the compiler '" + compiler + "': " + ran.failure);
    const int line = declared_at(text, type);
    throw CompileError(
        "config " + path + "/source: model " + type + " from '" + src.string() + "' does not compile" + part + ":\n" + compiler_text(log) +
        (line > 0 ? "  " + src.string() + ":" + std::to_string(line) + ": note: model " + type + " is declared here\n" : ""));
  };
  // The CPU unit's errors first: they hold the contract's messages.
  if (cpu_ran.status != 0) failed(cpu_ran, cc.compiler, tmp / "log", "");
  if (cuda_ran.status != 0)
    failed(cuda_ran, cc.cuda_compiler, tmp / "log_gpu",
           " for the GPU (nvcc; f must be LB_HD and call only host-and-device code, or give the model \"gpu\": false)");
  std::vector<std::string> link{cc.compiler, "-shared", (tmp / "cpu.o").string()};
  if (kernels) {
    link.push_back((tmp / "gpu.o").string());
    link.insert(link.end(), cc.cuda_link.begin(), cc.cuda_link.end());
  }
  link.insert(link.end(), {"-o", (tmp / "model.so").string()});
  if (const Ran ran = wait(spawn(link, tmp / "log_link")); ran.status != 0) {
    std::cerr << " failed\n";
    throw std::runtime_error("user models: linking the model failed: " + (ran.status < 0 ? ran.failure : compiler_text(tmp / "log_link")));
  }
  std::fprintf(stderr, " done in %.1f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

  Manifest m{key, fnv(read_text(tmp / "model.so")), {}};
  std::vector<std::string> files = dependencies(read_text(tmp / "deps"));
  if (kernels) {
    const auto more = dependencies(read_text(tmp / "deps_gpu"));
    for (const auto& f : more)
      if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
  }
  for (const auto& f : files) {
    const fs::path p = fs::absolute(f);
    m.files.emplace_back(p.string(), fnv(read_text(p)));
  }
  {
    std::ofstream out(tmp / "manifest", std::ios::binary);
    out << format(m);
    if (!out.flush()) throw IoError("user models: cannot write '" + (tmp / "manifest").string() + "'");
  }
  const fs::path object = dir / (key + "-" + hex(m.object) + ".so");
  fs::rename(tmp / "model.so", object, ec);
  if (!ec) fs::rename(tmp / "manifest", dir / (key + ".manifest"), ec);
  if (ec) throw IoError("user models: cannot put the compiled model into '" + dir.string() + "': " + ec.message());
  // The objects of this key's damaged or stale plugins, but neither this one nor the one the
  // manifest names now (another process's may have replaced this one's meanwhile).
  const fs::path named = current(dir, key);
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(key + "-", 0) == 0 && e.path() != object && e.path() != named) fs::remove(e.path(), ec);
  }
  return load(object, key, path, u.summary, u.own ? model_source(u.source, u.text, m.files) : "");
}

}  // namespace

const ModelInfo& user_model(const std::string& source, const std::string& type, const std::vector<std::string>& methods,
                            std::optional<bool> gpu, const std::string& path) {
  if (type.size() > 200 || !cpp_name(type))
    Node::fail(path + "/type", "'" + echo(type) + "' is not the name of a C++ class template (letters, digits, _ and ::)");
  std::error_code ec;
  const fs::path src = fs::canonical(source, ec);
  if (ec || !fs::is_regular_file(src))  // a file error (3), as a states file's, not a config's
    throw IoError("config " + path + "/source: cannot read the model's source '" + echo(source) +
                  "': " + (ec ? ec.message() : std::string("not a regular file")));
  return compiled(
      {src, read_text(src), type, "-DLB_USER_MODEL=" + type, "a user's model from " + src.string() + ", compiled at run time", true},
      methods, gpu, path, compile_config());
}

const ModelInfo& chain_model(int n, const std::vector<std::string>& methods, const std::string& path) {
  const CompileConfig cc = compile_config();
  // The entry's header, beside the plugin's unit: the build's, or the installed one.
  std::error_code ec;
  const fs::path src = fs::canonical(fs::path(cc.unit).parent_path() / "pendulum_entry.hpp", ec);
  if (ec)
    throw std::runtime_error("pendulum_chain: cannot compile a chain at run time: '" + cc.unit + "' has no pendulum_entry.hpp beside it");
  const std::string links = std::to_string(n);
  return compiled({src, read_text(src), "pendulum_chain of " + links + " links", "-DLB_USER_ENTRY=lb::cli::PendulumEntry<" + links + ">",
                   "N-fold spherical pendulum of " + links + " links, compiled at run time"},
                  methods, false, path, cc);
}

}  // namespace lb::cli

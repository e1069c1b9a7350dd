// Reading a JSON config with errors that name the key's path, the value found and what was
// expected; every object is closed with finish(), which rejects keys nobody read.
#pragma once
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lb::cli {

/// A bad config: the message names the JSON path, the value and what was expected.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The length of the well-formed UTF-8 sequence at `s[i]` (Unicode 15, table 3-7: no overlong
/// form, no surrogate, nothing past U+10FFFF), and its code point; 0 where none starts there.
inline std::size_t utf8_at(const std::string& s, std::size_t i, char32_t& cp) {
  const auto b = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  const unsigned c = b(0);
  const std::size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0) return 0;
  cp = n == 1 ? c : c & (0x7F >> n);
  for (std::size_t k = 1; k < n; ++k) {
    // The second byte's range is narrower after E0, ED, F0 and F4; every other is 80..BF.
    const unsigned lo = k == 1 && c == 0xE0 ? 0xA0 : k == 1 && c == 0xF0 ? 0x90 : 0x80;
    const unsigned hi = k == 1 && c == 0xED ? 0x9F : k == 1 && c == 0xF4 ? 0x8F : 0xBF;
    if (b(k) < lo || b(k) > hi) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  return n;
}

/// A value as messages echo it: control characters escaped (\n, \t, \r, \xNN: a NUL cannot cut
/// the message off, nor an escape sequence reach the terminal), so are C1 controls, the invisible
/// or reordering marks (byte-order mark, bidirectional overrides) as \uXXXX, and each byte of
/// what is not UTF-8 as \xNN (a lone 0x9B is CSI to some terminals; Python cannot decode it); at
/// most `max` characters (cut on a UTF-8 boundary, with the length said), so a huge value in a
/// config or on the command line cannot flood the terminal.
inline std::string echo(const std::string& s, std::size_t max = 80) {
  std::string v;
  static const char hex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < s.size() && v.size() <= max;) {
    char32_t cp = 0;
    const std::size_t n = utf8_at(s, i, cp);
    const bool hidden = (cp >= 0x80 && cp <= 0x9F) || cp == 0xFEFF || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
    if (n == 0 || cp < 0x20 || cp == 0x7f) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      v += c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : std::string("\\x") + hex[c >> 4] + hex[c & 15];
      ++i;
      continue;
    }
    if (hidden) {
      v += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) v += "0123456789ABCDEF"[(cp >> shift) & 15];
    } else {
      v.append(s, i, n);
    }
    i += n;
  }
  if (v.size() <= max) return v;
  std::size_t cut = max - 3;
  while (cut > 0 && (static_cast<unsigned char>(v[cut]) & 0xC0) == 0x80) --cut;
  return v.substr(0, cut) + "... (" + std::to_string(s.size()) + " characters)";
}

/// One JSON object of the config, with its path (e.g. "/model/parameters").
class Node {
 public:
  Node(const nlohmann::json& j, std::string path) : j_(&j), path_(std::move(path)) {
    if (!j.is_object()) fail(path_, "expected an object");
  }
  const std::string& path() const { return path_; }
  bool has(const std::string& key) const { return j_->contains(key); }
  /// The raw value of a key that must be present.
  const nlohmann::json& raw(const std::string& key) {
    if (!has(key)) fail(at(key), "missing (required)");
    read_.insert(key);
    return (*j_)[key];
  }
  Node object(const std::string& key) { return Node(raw(key), at(key)); }
  std::string string(const std::string& key) {
    const auto& v = raw(key);
    if (!v.is_string()) fail(at(key), "expected a string", v);
    return v.get<std::string>();
  }
  std::string string(const std::string& key, const std::string& def) { return has(key) ? string(key) : def; }
  /// One of `choices`.
  std::string choice(const std::string& key, const std::vector<std::string>& choices, const std::string& def = "") {
    if (!has(key) && !def.empty()) return def;
    const std::string s = string(key);
    for (const auto& c : choices)
      if (s == c) return s;
    std::string all;
    for (const auto& c : choices) all += (all.empty() ? "" : ", ") + c;
    fail(at(key), "expected one of " + all, (*j_)[key]);
  }
  /// A finite number.
  double number(const std::string& key) {
    const auto& v = raw(key);
    if (!v.is_number()) fail(at(key), "expected a number", v);
    const double x = v.get<double>();
    if (!std::isfinite(x)) fail(at(key), "expected a finite number", v);
    return x;
  }
  double number(const std::string& key, double def) { return has(key) ? number(key) : def; }
  /// A finite number > 0.
  double positive(const std::string& key) {
    const double x = number(key);
    if (!(x > 0)) fail(at(key), "expected a number > 0", (*j_)[key]);
    return x;
  }
  double positive(const std::string& key, double def) { return has(key) ? positive(key) : def; }
  /// An integer in [lo, hi].
  long integer(const std::string& key, long lo, long hi) {
    const auto& v = raw(key);
    if (!v.is_number_integer()) fail(at(key), "expected an integer", v);
    const long x = v.get<long>();
    if (x < lo || x > hi) fail(at(key), "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]", v);
    return x;
  }
  long integer(const std::string& key, long lo, long hi, long def) { return has(key) ? integer(key, lo, hi) : def; }
  bool boolean(const std::string& key, bool def) {
    if (!has(key)) return def;
    const auto& v = raw(key);
    if (!v.is_boolean()) fail(at(key), "expected true or false", v);
    return v.get<bool>();
  }
  /// An array of finite numbers; n > 0 fixes its length.
  std::vector<double> numbers(const std::string& key, std::size_t n = 0) {
    const auto& v = raw(key);
    if (!v.is_array()) fail(at(key), "expected an array of numbers", v);
    if (n > 0 && v.size() != n) fail(at(key), "expected " + std::to_string(n) + " numbers (" + std::to_string(v.size()) + " given)", v);
    std::vector<double> r;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_number() || !std::isfinite(v[i].get<double>()))
        fail(at(key) + "/" + std::to_string(i), "expected a finite number", v[i]);
      r.push_back(v[i].get<double>());
    }
    return r;
  }
  /// Rejects the keys of this object that were never read.
  void finish() const {
    for (auto it = j_->begin(); it != j_->end(); ++it)
      if (!read_.count(it.key())) fail(at(it.key()), "unknown key");
  }
  std::string at(const std::string& key) const { return path_ + "/" + key; }

  [[noreturn]] static void fail(const std::string& path, const std::string& what) {
    throw ConfigError("config " + echo(path) + ": " + what);
  }
  [[noreturn]] static void fail(const std::string& path, const std::string& what, const nlohmann::json& got) {
    throw ConfigError("config " + echo(path) + ": " + what + ", got " + echo(got.dump()));
  }

 private:
  const nlohmann::json* j_;
  std::string path_;
  std::set<std::string> read_;
};

}  // namespace lb::cli

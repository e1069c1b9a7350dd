// Hashes of results for the bitwise regression tests (test_golden, golden_h5) and the files that
// record them: one "hash  name" line per run or dataset.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace lbtest {

/// 64-bit FNV-1a over the significant bytes of values (a long double's 10 on x86-64, not its
/// padding, whose contents are unspecified).
struct Fnv {
  std::uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (std::size_t k = 0; k < n; ++k) h = (h ^ c[k]) * 1099511628211ull;
  }
  template <class V> void add(const std::vector<V>& v) {
    constexpr std::size_t size = std::is_same_v<V, long double> && sizeof(long double) == 16 ? 10 : sizeof(V);
    const std::uint64_t n = v.size();
    bytes(&n, sizeof n);  // lengths too, so moved boundaries between fields change the hash
    for (const V& x : v) bytes(&x, size);
  }
  std::string hex() const {
    char s[17];
    std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(h));
    return s;
  }
};

/// name → hash from a file of "hash  name" lines (empty if there is none).
inline std::map<std::string, std::string> read_golden(const std::string& path) {
  std::map<std::string, std::string> m;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const auto sp = line.find("  ");
    if (sp != std::string::npos) m[line.substr(sp + 2)] = line.substr(0, sp);
  }
  return m;
}

}  // namespace lbtest

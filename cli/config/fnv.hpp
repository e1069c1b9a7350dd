// FNV-1a, 64 bits, and its hex text: the plugin cache's keys and file checks, a states file's
// record in the output. A check against accidents (a changed file), not against a forger.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace lb::cli {

/// The hash of `s`, continuing from `h` (the offset basis by default): a file hashed block by block
/// gives the hash of the whole.
inline std::uint64_t fnv(std::string_view s, std::uint64_t h = 14695981039346656037ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

/// x as 16 hex digits.
inline std::string hex(std::uint64_t x) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(x));
  return b;
}

}  // namespace lb::cli

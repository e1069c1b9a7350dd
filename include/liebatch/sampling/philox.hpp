// Philox4x32-10 ([SMDS11]: Salmon, Moraes, Dror & Shaw, "Parallel random numbers: as easy as
// 1, 2, 3", SC '11): a counter-based generator, so member i's k-th number is a pure function of
// (seed, i, k) — the same on the CPU and on the GPU, in any order, with no state to carry.
#pragma once
#include <cstdint>

#include "../config.hpp"

namespace lb {

struct Philox4x32 {
  std::uint32_t v[4];
};

/// Philox4x32 with 10 rounds of the counter c under the key k (Random123's philox4x32_10).
LB_HD Philox4x32 philox4x32_10(Philox4x32 c, std::uint32_t k0, std::uint32_t k1) {
  constexpr std::uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  for (int r = 0; r < 10; ++r) {
    if (r > 0) { k0 += W0; k1 += W1; }
    const std::uint64_t p0 = std::uint64_t(M0) * c.v[0], p1 = std::uint64_t(M1) * c.v[2];
    c = {{std::uint32_t(p1 >> 32) ^ c.v[1] ^ k0, std::uint32_t(p1), std::uint32_t(p0 >> 32) ^ c.v[3] ^ k1,
          std::uint32_t(p0)}};
  }
  return c;
}

/// Uniform numbers in [0, 1) for member `index`, block `block` of a stream keyed by `seed`:
/// four 32-bit words per call, combined in pairs into two doubles with 53 random bits. `stream`,
/// the counter's last word, keeps apart the numbers of different uses under one seed.
struct CounterRng {
  std::uint64_t seed;
  std::uint32_t stream = 0;

  /// Two uniform doubles in [0, 1): draws 2·block and 2·block + 1 of member `index`.
  LB_HD void uniform2(std::uint64_t index, std::uint32_t block, double (&u)[2]) const {
    const Philox4x32 r =
        philox4x32_10({{block, std::uint32_t(index), std::uint32_t(index >> 32), stream}}, std::uint32_t(seed), std::uint32_t(seed >> 32));
    for (int j = 0; j < 2; ++j) {
      const std::uint64_t bits = (std::uint64_t(r.v[2 * j]) << 21) | (r.v[2 * j + 1] >> 11);
      u[j] = double(bits) * 0x1.0p-53;
    }
  }
  /// The k-th uniform number in [0, 1) of member `index`.
  LB_HD double uniform(std::uint64_t index, std::uint32_t k) const {
    double u[2];
    uniform2(index, k / 2, u);
    return u[k % 2];
  }
};

}  // namespace lb

// Sobol' points [Sob67] in [0, 1)^d, d ≤ 10, with Joe & Kuo's primitive polynomials and initial
// direction numbers ([JK08], new-joe-kuo-6.21201), in Gray-code order. Point n is computed directly,
// so members are independent; an optional digital shift (XOR with a 32-bit word per coordinate)
// randomises the set while keeping its net structure.
#pragma once
#include <cstdint>

#include "../config.hpp"

namespace lb {

/// The largest dimension sobol() supports.
inline constexpr int sobol_max_dim = 10;

/// Coordinate j (0-based, < sobol_max_dim) of the n-th Sobol' point, as a 32-bit fraction.
LB_HD std::uint32_t sobol_bits(std::uint64_t n, int j) {
  // (degree s, polynomial coefficients a, initial m₁…m_s) for dimensions 2…10; dimension 1 has all mₖ = 1.
  int s = 0;
  std::uint32_t a = 0, m[5] = {1, 1, 1, 1, 1};
  switch (j) {
    case 1: s = 1; a = 0; m[0] = 1; break;
    case 2: s = 2; a = 1; m[0] = 1; m[1] = 3; break;
    case 3: s = 3; a = 1; m[0] = 1; m[1] = 3; m[2] = 1; break;
    case 4: s = 3; a = 2; m[0] = 1; m[1] = 1; m[2] = 1; break;
    case 5: s = 4; a = 1; m[0] = 1; m[1] = 1; m[2] = 3; m[3] = 3; break;
    case 6: s = 4; a = 4; m[0] = 1; m[1] = 3; m[2] = 5; m[3] = 13; break;
    case 7: s = 5; a = 2; m[0] = 1; m[1] = 1; m[2] = 5; m[3] = 5; m[4] = 17; break;
    case 8: s = 5; a = 4; m[0] = 1; m[1] = 1; m[2] = 5; m[3] = 5; m[4] = 5; break;
    case 9: s = 5; a = 7; m[0] = 1; m[1] = 1; m[2] = 7; m[3] = 11; m[4] = 19; break;
    default: break;
  }
  // Direction numbers Vₖ = mₖ 2^{32−k}; beyond s by the recurrence of the primitive polynomial.
  std::uint32_t V[32];
  for (int k = 0; k < 32; ++k) {
    if (j == 0) V[k] = std::uint32_t(1) << (31 - k);
    else if (k < s) V[k] = m[k] << (31 - k);
    else {
      V[k] = V[k - s] ^ (V[k - s] >> s);
      for (int i = 1; i < s; ++i)
        if ((a >> (s - 1 - i)) & 1u) V[k] ^= V[k - i];
    }
  }
  const std::uint64_t g = n ^ (n >> 1);  // Gray code
  std::uint32_t x = 0;
  for (int k = 0; k < 32; ++k)
    if ((g >> k) & 1u) x ^= V[k];
  return x;
}

/// Coordinate j of the n-th Sobol' point in [0, 1) (n < 2³²), digitally shifted by `shift`.
LB_HD double sobol(std::uint64_t n, int j, std::uint32_t shift = 0) {
  return double(sobol_bits(n, j) ^ shift) * 0x1.0p-32;
}

}  // namespace lb

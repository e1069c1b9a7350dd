// What one step of any method returns, and the per-trajectory status codes.
#pragma once
#include <cstdint>

#include "../config.hpp"

namespace lb {

/// How a trajectory ended (or that it is still running).
enum class Status : std::uint8_t {
  running = 0,       ///< not finished yet
  ok = 1,            ///< reached t_end
  nonfinite = 2,     ///< a NaN or Inf appeared in the state
  step_underflow = 3,///< the adaptive step fell below h_min
  step_cap = 4,      ///< the step-count cap was reached before t_end
  dexpinv_singular = 5, ///< an RKMK stage angle reached the singular range of dexp⁻¹ (near 2π)
};

/// Result of one step from yₙ: the new point, an error estimate in embedding coordinates (zero
/// for methods without an embedded pair), and whether dexp⁻¹ was evaluated in its singular range.
template <class P> struct StepResult {
  P y;
  P err;
  bool singular;
};

}  // namespace lb

// What one step of any method returns, and the per-trajectory status codes.
#pragma once
#include <cstdint>

#include "../config.hpp"
#include "../scalar.hpp"

namespace lb {

/// How a trajectory ended, or that it is still running: X(name, code, meaning), one list from
/// which the enum, the names in the output files and the command's summaries are made.
#define LB_STATUSES(X)                                                                         \
  X(running, 0, "not finished yet")                                                            \
  X(ok, 1, "reached t_end")                                                                    \
  X(nonfinite, 2, "a NaN or Inf appeared in the state")                                        \
  X(step_underflow, 3, "the adaptive step fell below h_min")                                   \
  X(step_cap, 4, "the step-count cap was reached before t_end")                                \
  X(dexpinv_singular, 5, "a stage angle (RKMK, HEDOP5) reached the singular range of dexp^-1 (near 2 pi)") \
  X(nonlinear_solve_failed, 6, "an implicit step's Newton solve failed (unconverged, non-finite or |xi| >= pi)") \
  X(constraint_solve_failed, 7, "a half-explicit step failed: a singular or non-finite constraint system, or a multiplier off the one its state implies (step beyond the stability limit)")

enum class Status : std::uint8_t {
#define LB_STATUS_ENUM(name, code, what) name = code,
  LB_STATUSES(LB_STATUS_ENUM)
#undef LB_STATUS_ENUM
};

/// Number of statuses; their codes are 0, …, status_count − 1.
inline constexpr int status_count = 0
#define LB_STATUS_COUNT(name, code, what) +1
    LB_STATUSES(LB_STATUS_COUNT);
#undef LB_STATUS_COUNT

/// The status's name as in LB_STATUSES ("ok"), or "unknown" for a code outside the list.
constexpr const char* status_name(std::uint8_t code) {
  switch (code) {
#define LB_STATUS_CASE(name, code, what) \
  case code: return #name;
    LB_STATUSES(LB_STATUS_CASE)
#undef LB_STATUS_CASE
  }
  return "unknown";
}

/// Result of one step from yₙ: the new point, an error estimate in embedding coordinates (zero
/// for methods without an embedded pair), whether dexp⁻¹ was evaluated in its singular range, and
/// whether an implicit method's solve or a half-explicit stage's constraint solve failed (y is then
/// unspecified; explicit methods leave it false) and the Newton iterations it took (explicit: 0).
template <class P> struct StepResult {
  P y;
  P err;
  mask_t<typename P::scalar> singular;      ///< per lane for a pack of members
  mask_t<typename P::scalar> failed = false;  ///< the method's failure status (method_failure)
  int iterations = 0;                         ///< Newton iterations (implicit methods, never on packs)
};

}  // namespace lb

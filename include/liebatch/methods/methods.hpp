// The named methods. Fixed step: lie_euler … rkmk5, cf3, cf4, cg3, cg4a. Embedded pairs for adaptive
// steps: rkmk54 (Dormand–Prince), rkmk32 (Bogacki–Shampine), cf32a, cf32b, cf43; *_hat are the
// lower-order members as methods of their own (for order studies).
#pragma once
#include "commutator_free.hpp"
#include "rkmk.hpp"

/// Every named method, X(name, description, type): the one list the rest is generated from (the
/// aliases below, the command line's method list and dispatch, the CMake lists of GPU kernels, the
/// tests over every method). Adding a method is a tableau (tableau.hpp, commutator_free.hpp) and
/// one entry here; a user's own method needs neither (see examples/user_method.cpp).
#define LB_METHODS(X)                                                                                          \
  X(lie_euler, "Lie-Euler", RKMK<tableaux::euler>)                                                            \
  X(lie_euler_heun, "RKMK Heun", RKMK<tableaux::heun>)                                                        \
  X(rkmk3_kutta, "RKMK, Kutta's third order", RKMK<tableaux::kutta3>)                                          \
  X(rkmk3_ssp, "RKMK, SSP third order", RKMK<tableaux::ssp3>)                                                 \
  X(rkmk4, "RKMK, classical RK4", RKMK<tableaux::rk4>)                                                        \
  X(rkmk4_commutators, "RKMK4 with two commutators (Munthe-Kaas-Owren)", RKMK4Commutators)                    \
  X(rkmk5, "RKMK, Dormand-Prince fifth-order weights", RKMK<tableaux::dopri5, DexpinvExact, false>)           \
  X(cf3, "commutator-free, third order", CommutatorFree<schemes::cf32a, false>)                              \
  X(cf4, "commutator-free, fourth order, reusing exponentials", CommutatorFree<schemes::cf43, false>)        \
  X(cg3, "Crouch-Grossman, third order", CommutatorFree<schemes::cg3>)                                        \
  X(cg4a, "Crouch-Grossman 4a (Jackiewicz-Marthinsen-Owren)", CommutatorFree<schemes::cg4a>)                  \
  X(rkmk54, "RKMK Dormand-Prince 5(4) pair", RKMK<tableaux::dopri5>)                                          \
  X(rkmk32, "RKMK Bogacki-Shampine 3(2) pair", RKMK<tableaux::bs32>)                                          \
  X(cf32a, "commutator-free 3(2) pair A", CommutatorFree<schemes::cf32a>)                                     \
  X(cf32b, "commutator-free 3(2) pair B", CommutatorFree<schemes::cf32b>)                                     \
  X(cf43, "commutator-free 4(3) pair", CommutatorFree<schemes::cf43>)

namespace lb::methods {

#define LB_METHOD_ALIAS(name, what, ...) using name = __VA_ARGS__;
LB_METHODS(LB_METHOD_ALIAS)
#undef LB_METHOD_ALIAS

/// RKMK4 with dexp⁻¹ truncated after Q commutators.
template <int Q> using rkmk4_truncated = RKMK<tableaux::rk4, DexpinvTruncated<Q>>;

using rkmk54_hat = RKMK<tableaux::dopri5_hat>;
using rkmk32_hat = RKMK<tableaux::bs32_hat>;
using cf32a_hat = CommutatorFree<schemes::cf32a_hat>;
using cf32b_hat = CommutatorFree<schemes::cf32b_hat>;
using cf43_hat = CommutatorFree<schemes::cf43_hat>;

}  // namespace lb::methods

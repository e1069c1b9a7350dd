// The named methods. Fixed step: lie_euler … rkmk5, cf3, cf4, cg3, cg4a. Embedded pairs for adaptive
// steps: rkmk54 (Dormand–Prince), rkmk32 (Bogacki–Shampine), cf32a, cf32b, cf43; *_hat are the
// lower-order members as methods of their own (for order studies).
#pragma once
#include "commutator_free.hpp"
#include "rkmk.hpp"

namespace lb::methods {

using lie_euler = RKMK<tableaux::euler>;
using lie_euler_heun = RKMK<tableaux::heun>;
using rkmk3_kutta = RKMK<tableaux::kutta3>;
using rkmk3_ssp = RKMK<tableaux::ssp3>;
using rkmk4 = RKMK<tableaux::rk4>;
using rkmk4_commutators = RKMK4Commutators;
using rkmk5 = RKMK<tableaux::dopri5, DexpinvExact, false>;
/// RKMK4 with dexp⁻¹ truncated after Q commutators.
template <int Q> using rkmk4_truncated = RKMK<tableaux::rk4, DexpinvTruncated<Q>>;

using cf3 = CommutatorFree<schemes::cf32a, false>;
using cf4 = CommutatorFree<schemes::cf43, false>;
using cg3 = CommutatorFree<schemes::cg3>;
using cg4a = CommutatorFree<schemes::cg4a>;

using rkmk54 = RKMK<tableaux::dopri5>;
using rkmk32 = RKMK<tableaux::bs32>;
using cf32a = CommutatorFree<schemes::cf32a>;
using cf32b = CommutatorFree<schemes::cf32b>;
using cf43 = CommutatorFree<schemes::cf43>;

using rkmk54_hat = RKMK<tableaux::dopri5_hat>;
using rkmk32_hat = RKMK<tableaux::bs32_hat>;
using cf32a_hat = CommutatorFree<schemes::cf32a_hat>;
using cf32b_hat = CommutatorFree<schemes::cf32b_hat>;
using cf43_hat = CommutatorFree<schemes::cf43_hat>;

}  // namespace lb::methods

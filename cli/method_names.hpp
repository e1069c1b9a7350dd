// The integrators the command line offers, as an X-macro over (name, description) pairs, one per
// method of <liebatch/methods/methods.hpp>. Kept apart from the config code so CUDA sources can
// use it; CMake reads the names from here (LIEBATCH_CLI_GPU_METHODS=all).
#pragma once

#define LB_CLI_METHODS(X)                                                                       \
  X(lie_euler, "Lie-Euler") X(lie_euler_heun, "RKMK Heun") X(rkmk3_kutta, "RKMK, Kutta's third order") \
  X(rkmk3_ssp, "RKMK, SSP third order") X(rkmk4, "RKMK, classical RK4")                        \
  X(rkmk4_commutators, "RKMK4 with two commutators (Munthe-Kaas-Owren)")                      \
  X(rkmk5, "RKMK, Dormand-Prince fifth-order weights") X(cf3, "commutator-free, third order")  \
  X(cf4, "commutator-free, fourth order, reusing exponentials") X(cg3, "Crouch-Grossman, third order") \
  X(cg4a, "Crouch-Grossman 4a (Jackiewicz-Marthinsen-Owren)") X(rkmk54, "RKMK Dormand-Prince 5(4) pair") \
  X(rkmk32, "RKMK Bogacki-Shampine 3(2) pair") X(cf32a, "commutator-free 3(2) pair A")          \
  X(cf32b, "commutator-free 3(2) pair B") X(cf43, "commutator-free 4(3) pair")

// Sanitizer builds (the fuzzer, tests/fuzz) instantiate two methods, a fixed-step one and a pair,
// so that they compile in minutes; every code path of the command line stays reachable.
#ifdef LIEBATCH_CLI_FEW_METHODS
#undef LB_CLI_METHODS
#define LB_CLI_METHODS(X) X(rkmk4, "RKMK, classical RK4") X(rkmk54, "RKMK Dormand-Prince 5(4) pair")
#endif

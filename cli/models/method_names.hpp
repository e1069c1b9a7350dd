// The integrators the command line offers: every method of LB_METHODS
// (<liebatch/methods/methods.hpp>), X(name, description, type). Kept apart from the config code so
// CUDA sources can use it.
#pragma once
#include <liebatch/methods/half_explicit.hpp>
#include <liebatch/methods/methods.hpp>
#include <liebatch/methods/symplectic.hpp>

#define LB_CLI_METHODS(X) LB_METHODS(X)
// The symplectic methods, for the models they serve (method_list.cpp names them in `list methods`).
#define LB_CLI_SYMPLECTIC_METHODS(X) LB_SYMPLECTIC_METHODS(X)
// The half-explicit methods, for the constrained systems.
#define LB_CLI_CONSTRAINED_METHODS(X) LB_CONSTRAINED_METHODS(X)

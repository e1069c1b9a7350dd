// liebatch: the whole header-only library but the ensemble engine. Spaces and groups, models,
// every method family (RKMK, commutator-free and Crouch–Grossman, the symplectic SLGI and
// Hamilton–Pontryagin integrators, HEDOP5 for constrained systems), one-trajectory drivers,
// sections and samplers. The engine is <liebatch/ensemble/cpu.hpp> and, under nvcc,
// <liebatch/ensemble/cuda.cuh>; programs that run ensembles link liebatch::runtime.
#pragma once
#include "coadjoint.hpp"
#include "constrained_system.hpp"
#include "dexpinv_series.hpp"
#include "group_space.hpp"
#include "methods/half_explicit.hpp"
#include "methods/methods.hpp"
#include "methods/symplectic.hpp"
#include "model.hpp"
#include "models/constrained_heavy_top.hpp"
#include "models/free_rigid_body.hpp"
#include "models/heavy_top.hpp"
#include "models/heavy_top_quadratic.hpp"
#include "models/heavy_top_spatial.hpp"
#include "models/lorenz.hpp"
#include "models/pendulum_chain.hpp"
#include "models/planar_pendulum.hpp"
#include "models/quadrotor_load.hpp"
#include "models/rigid_body_attitude.hpp"
#include "product.hpp"
#include "sampling/energy_level.hpp"
#include "sampling/unit_sampler.hpp"
#include "se3.hpp"
#include "so3.hpp"
#include "sphere.hpp"
#include "tangent_sphere.hpp"
#include "trajectory/integrate.hpp"
#include "trajectory/integrate_half_explicit.hpp"
#include "trajectory/section.hpp"

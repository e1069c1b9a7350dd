// The constrained systems of the command line (docs/constrained.md): the heavy top as a body in
// SE(3) held at a point, and the planar pendulum on ℝ², each as a model of the engine
// (lb::ConstrainedSystem), stepped by the half-explicit methods only. Shared by their entries and
// their GPU kernels.
#pragma once
#include <liebatch/constrained_system.hpp>
#include <liebatch/models/constrained_heavy_top.hpp>
#include <liebatch/models/planar_pendulum.hpp>

namespace lb::cli {

template <class T> using HeavyTopSe3 = ConstrainedSystem<ConstrainedHeavyTop<T>>;
template <class T> using PlanarPendulumSystem = ConstrainedSystem<PlanarPendulum<T>>;

}  // namespace lb::cli

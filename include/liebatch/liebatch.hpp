// liebatch: the whole header-only core.
#pragma once
#include "coadjoint.hpp"
#include "dexpinv_series.hpp"
#include "group_space.hpp"
#include "trajectory/integrate.hpp"
#include "methods/methods.hpp"
#include "product.hpp"
#include "se3.hpp"
#include "so3.hpp"
#include "sphere.hpp"
#include "tangent_sphere.hpp"

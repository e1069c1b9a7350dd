// A model's observables: `observables(y)` returning a Vec of quantities to record at output
// samples (energy, Casimirs, constraints). Models without it record none.
#pragma once
#include <utility>

namespace lb {

/// Number of observables a model records (0 when it defines none).
template <class Model> constexpr int observable_count() {
  if constexpr (requires(const Model& m, const typename Model::space::point& y) { m.observables(y); }) {
    return decltype(std::declval<const Model&>().observables(std::declval<const typename Model::space::point&>()))::size;
  } else {
    return 0;
  }
}

}  // namespace lb

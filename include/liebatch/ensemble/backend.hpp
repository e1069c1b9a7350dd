// What the ensemble engine (engine.hpp) asks of a backend: memory for structure-of-arrays buffers,
// launches of per-member bodies, copies, a scan and reductions. Two implement it: threads on the
// host (cpu.hpp) and a CUDA device (cuda.cuh).
#pragma once
#include <concepts>
#include <cstddef>
#include <string>

#include "ensemble.hpp"
#include "members.hpp"

namespace lb {

/// A backend B, made from the run's options:
/// - `B::vector<V>`: a buffer of V in B's memory (sized, assign(first, last), back(), begin/end);
/// - `raw(v)`: the buffer's address, as the bodies see it; `copy(first, last, out)` in any
///   direction; `fill(v, x)`;
/// - `launch(n, body, what, tick)`: body(i) for every i < n, calling tick(members done) now and
///   then if it can; `synchronize(what)`; failures are exceptions naming `what`;
/// - `kept_offsets(found, offset, slots)`: exclusive scan of min(found, slots);
/// - `sum(v)` of doubles; `transform_reduce(n, f, init, combine)` over the indices 0 … n−1;
/// - `free_memory()` in bytes, which sizes the batches; `name()`, e.g. "cpu, 2 threads".
template <class B>
concept Backend = std::constructible_from<B, const RunOptions&> &&
                  requires(const B b, typename B::template vector<double> v, typename B::template vector<long> l,
                           engine::DoneMember<double> body, void (*tick)(std::size_t)) {
                    { b.raw(v) } -> std::same_as<double*>;
                    b.copy(v.begin(), v.end(), v.begin());
                    b.fill(v, 0.0);
                    b.launch(std::size_t(1), body, "what", tick);
                    b.synchronize("what");
                    b.kept_offsets(l, l, 1L);
                    { b.sum(v) } -> std::convertible_to<double>;
                    { b.free_memory() } -> std::convertible_to<std::size_t>;
                    { b.name() } -> std::convertible_to<std::string>;
                  };

}  // namespace lb

// The measured floating-point peak of this CPU: independent fused multiply-adds in 64-byte vectors
// (GCC's vector extension, so they stay in registers), 16 accumulators to hide the FMA latency on
// two pipes. Benchmarks report achieved FLOP/s as a fraction of it.
#pragma once
#include <cstdio>

#include <omp.h>

#include "timing.hpp"

namespace lb::bench {

template <class T> struct V64;
template <> struct V64<double> { typedef double type __attribute__((vector_size(64))); };
template <> struct V64<float> { typedef float type __attribute__((vector_size(64))); };

/// One thread's FMAs, returning their FLOPs. a·b + c is contracted into an FMA even where the
/// including target compiles with -ffp-contract=off (the packs' targets).
template <class T> __attribute__((optimize("fp-contract=fast"))) double fma_work() {
  using V = typename V64<T>::type;
  constexpr int acc = 16;
  constexpr long reps = 10'000'000;
  V a[acc], b, c;
  for (int l = 0; l < int(64 / sizeof(T)); ++l) { b[l] = T(0.999999) + T(l) * T(1e-9); c[l] = T(1e-7); }
  for (int j = 0; j < acc; ++j) a[j] = b * T(j + 1);
  for (long r = 0; r < reps; ++r)
    for (int j = 0; j < acc; ++j) a[j] = a[j] * b + c;
  T sink = 0;
  for (int j = 0; j < acc; ++j)
    for (int l = 0; l < int(64 / sizeof(T)); ++l) sink += a[j][l];
  if (sink == T(-1)) std::printf("%g", double(sink));  // keeps the loop
  return 2.0 * double(reps) * acc * double(64 / sizeof(T));
}

/// FLOP/s (an FMA is two) on `threads` threads.
template <class T> double fma_peak(int threads) {
  double flops = 0;
  const double seconds = lb::bench::seconds([&] {
#pragma omp parallel num_threads(threads) reduction(+ : flops)
    flops += fma_work<T>();
  });
  return flops / seconds;
}

}  // namespace lb::bench

// The measured floating-point peak of this CPU: independent fused multiply-adds in vectors of the
// widest unit the benchmark is compiled for (GCC's vector extension: 64 bytes with AVX-512, 32 with
// AVX, 16 otherwise), enough accumulators to hide the FMA latency on two pipes and few enough to stay
// in the register file with the two operands (16 of 32 registers with AVX-512, 12 of 16 below it:
// 64-byte vectors on AVX2 took two registers each, spilled, and measured a tenth of the peak).
// Benchmarks report achieved FLOP/s as a fraction of it.
#pragma once
#include <cstdio>

#include <omp.h>

#include "timing.hpp"

namespace lb::bench {

#if defined(__AVX512F__)
inline constexpr int vector_bytes = 64, accumulators = 16;
#elif defined(__AVX__)
inline constexpr int vector_bytes = 32, accumulators = 12;
#else
inline constexpr int vector_bytes = 16, accumulators = 12;
#endif
template <class T> struct Native;
template <> struct Native<double> { typedef double type __attribute__((vector_size(vector_bytes))); };
template <> struct Native<float> { typedef float type __attribute__((vector_size(vector_bytes))); };

/// One thread's FMAs, returning their FLOPs. a·b + c is contracted into an FMA even where the
/// including target compiles with -ffp-contract=off (the packs' targets).
template <class T> __attribute__((optimize("fp-contract=fast"))) double fma_work() {
  using V = typename Native<T>::type;
  constexpr int acc = accumulators, lanes = int(vector_bytes / sizeof(T));
  constexpr long reps = 10'000'000;
  V a[acc], b, c;
  for (int l = 0; l < lanes; ++l) { b[l] = T(0.999999) + T(l) * T(1e-9); c[l] = T(1e-7); }
  for (int j = 0; j < acc; ++j) a[j] = b * T(j + 1);
  for (long r = 0; r < reps; ++r)
    for (int j = 0; j < acc; ++j) a[j] = a[j] * b + c;
  T sink = 0;
  for (int j = 0; j < acc; ++j)
    for (int l = 0; l < lanes; ++l) sink += a[j][l];
  if (sink == T(-1)) std::printf("%g", double(sink));  // keeps the loop
  return 2.0 * double(reps) * acc * double(lanes);
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

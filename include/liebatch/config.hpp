// liebatch: host/device portability macros.
#pragma once

/// Marks every core function callable from host and device code (one macro, as in Sophus).
#if defined(__CUDACC__)
#define LB_HD __host__ __device__ __forceinline__
#define LB_DEVICE_COMPILE 1
#else
#define LB_HD inline
#define LB_DEVICE_COMPILE 0
#endif

/// Loop unrolling hint for fixed trip counts (registers, not local memory, on the device).
#if defined(__CUDA_ARCH__)
#define LB_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define LB_UNROLL _Pragma("GCC unroll 16")
#else
#define LB_UNROLL
#endif

// One case of the core's exp / dexp / dexp⁻¹ checks, evaluated by the same source on the host and
// on the device, and scored on the host against the quad-precision reference.
#pragma once
#include <liebatch/liebatch.hpp>
#include <liebatch/series_refined.hpp>

namespace lbtest {

/// Input of one case: u = (A, a) and v = (B, b); so(3) uses A and B.
template <class T> struct CoreIn {
  T u[6];
  T v[6];
};

/// Everything the core computes for one case.
template <class T> struct CoreOut {
  T so3_exp[9], so3_dexp[3], so3_dexpinv[3], so3_roundtrip[3];     // roundtrip: dexp(dexp⁻¹ v)
  T se3_exp[12], se3_dexp[6], se3_dexpinv[6], se3_roundtrip[6];
  T so3_a2, so3_refined[3];  // α² = |u₁₂₃|², and its s, c, g2 correctly rounded (series_refined.hpp)
};

template <class T, int N> LB_HD void store(T* dst, const lb::Vec<T, N>& x) {
  for (int i = 0; i < N; ++i) dst[i] = x[i];
}

/// The case, on host or device.
template <class T> LB_HD CoreOut<T> eval_core(const CoreIn<T>& in) {
  lb::Vec6<T> u, v;
  for (int i = 0; i < 6; ++i) { u[i] = in.u[i]; v[i] = in.v[i]; }
  const lb::Vec3<T> A = u.template seg<0, 3>(), B = v.template seg<0, 3>();
  CoreOut<T> o;
  store(o.so3_exp, lb::SO3<T>::exp(A).embed());
  store(o.so3_dexp, lb::so3<T>::dexp(A, B));
  store(o.so3_dexpinv, lb::so3<T>::dexpinv(A, B));
  store(o.so3_roundtrip, lb::so3<T>::dexp(A, lb::so3<T>::dexpinv(A, B)));
  store(o.se3_exp, lb::SE3<T>::exp(u).embed());
  store(o.se3_dexp, lb::se3<T>::dexp(u, v));
  store(o.se3_dexpinv, lb::se3<T>::dexpinv(u, v));
  store(o.se3_roundtrip, lb::se3<T>::dexp(u, lb::se3<T>::dexpinv(u, v)));
  o.so3_a2 = lb::dot(A, A);
  const lb::So3Coeffs<T> r = lb::so3_coeffs_refined(o.so3_a2);
  o.so3_refined[0] = r.s;
  o.so3_refined[1] = r.c;
  o.so3_refined[2] = r.g2;
  return o;
}

}  // namespace lbtest

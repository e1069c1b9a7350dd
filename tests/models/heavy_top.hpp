// The heavy top on se*(3) written as a user's model (tests/python/test_user_models.py): its
// numbers must be the built-in heavy_top's, bitwise.
#include <string>
#include <vector>

#include <liebatch/coadjoint.hpp>
#include <liebatch/model_parameters.hpp>
#include <liebatch/models/names.hpp>
#include <liebatch/sphere.hpp>

template <class T> struct Top {
  using space = lb::CoadjointSE3<T>;
  using point = typename space::point;
  static constexpr bool packs = true;
  lb::Vec3<T> inertia, com;
  T mass, gravity;
  static constexpr auto parameters() {
    return lb::parameters(lb::parameter<&Top::inertia>("inertia", {15.234375, 0.46875, 15.234375}, "moments", lb::positive),
                          lb::parameter<&Top::com>("com", {0, 1, 0}, "centre of mass"),
                          lb::parameter<&Top::mass>("mass", 15, "mass", lb::positive),
                          lb::parameter<&Top::gravity>("gravity", 9.81, "g", lb::positive));
  }
  LB_HD lb::Vec3<T> omega(const point& y) const { return lb::vec3(y[0] / inertia[0], y[1] / inertia[1], y[2] / inertia[2]); }
  LB_HD lb::Vec6<T> f(T, const point& y) const { return lb::concat(-omega(y), (-mass * gravity) * com); }
  LB_HD lb::Vec<T, 3> observables(const point& y) const {
    const lb::Vec3<T> P = y.template seg<0, 3>(), G = y.template seg<3, 3>();
    return {{T(0.5) * lb::dot(P, omega(y)) + mass * gravity * lb::dot(com, G), lb::norm(G), lb::dot(P, G)}};
  }
  static std::vector<std::string> observable_names() { return {"energy", "|Gamma|", "Pi.Gamma"}; }
  static std::vector<std::string> state_names() { return lb::names::join({lb::names::xyz("Pi"), lb::names::xyz("Gamma")}); }
  LB_HD static T defect(const point& y) { return lb::S2<T>::defect(y.template seg<3, 3>()); }
  LB_HD static point project(point y) {
    y.set_seg(3, lb::S2<T>::project(y.template seg<3, 3>()));
    return y;
  }
  template <class U> Top<U> cast() const { return {lb::cast<U>(inertia), lb::cast<U>(com), U(mass), U(gravity)}; }
};

// Component names from which the models' state_names() are assembled (host only): the names of
// the HDF5 output's `names/state`.
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

namespace lb::names {

/// p_x, p_y, p_z.
inline std::vector<std::string> xyz(const std::string& p) { return {p + "_x", p + "_y", p + "_z"}; }
/// p_xx, p_xy, …, p_zz: a 3×3 matrix stored row-major.
inline std::vector<std::string> matrix(const std::string& p) {
  std::vector<std::string> v;
  for (const char* r : {"x", "y", "z"})
    for (const char* c : {"x", "y", "z"}) v.push_back(p + "_" + r + c);
  return v;
}
/// The parts one after the other.
inline std::vector<std::string> join(std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> v;
  for (const auto& p : parts) v.insert(v.end(), p.begin(), p.end());
  return v;
}

}  // namespace lb::names

// Rooted trees and the classical order conditions of an explicit Runge–Kutta method
// ([HNW93 §II.2]), for any number type: long double for the tableau checks of test_methods.cpp,
// exact rationals (Boost.Multiprecision) for HEDOP5's in test_hedop5.cpp.
#pragma once
#include <functional>
#include <vector>

namespace lbtest {

/// A rooted tree as the list of its children.
struct Tree {
  std::vector<int> children;  // indices into the tree list
  int order;
};

/// All rooted trees up to order n (children kept in non-decreasing index order: no duplicates).
inline std::vector<Tree> trees_up_to(int n) {
  std::vector<Tree> all{{{}, 1}};
  std::function<void(int, int, std::vector<int>&, int)> grow = [&](int target, int min_idx, std::vector<int>& kids, int sum) {
    if (sum == target - 1) {
      all.push_back({kids, target});
      return;
    }
    for (int t = min_idx; t < int(all.size()); ++t) {
      if (all[t].order >= target || sum + all[t].order > target - 1) continue;
      kids.push_back(t);
      grow(target, t, kids, sum + all[t].order);
      kids.pop_back();
    }
  };
  std::vector<int> kids;
  for (int order = 2; order <= n; ++order) grow(order, 0, kids, 0);  // new trees are skipped: order ≥ target
  return all;
}

/// Φ(τ) − 1/γ(τ) of weights b over the matrix a (s×s), for each tree τ of order p exactly.
template <class N>
std::vector<N> order_residuals(const std::vector<std::vector<N>>& a, const std::vector<N>& b, const std::vector<Tree>& trees, int p) {
  const int s = int(b.size());
  std::vector<std::vector<N>> phi(trees.size());  // φᵢ(τ): stage weights
  std::vector<N> gamma(trees.size());
  std::vector<N> out;
  for (std::size_t t = 0; t < trees.size(); ++t) {
    phi[t].assign(s, N(1));
    gamma[t] = N(trees[t].order);
    for (int child : trees[t].children) {
      gamma[t] *= gamma[child];
      for (int i = 0; i < s; ++i) {
        N sum(0);
        for (int j = 0; j < s; ++j) sum += a[i][j] * phi[child][j];
        phi[t][i] *= sum;
      }
    }
    if (trees[t].order == p) {
      N Phi(0);
      for (int i = 0; i < s; ++i) Phi += b[i] * phi[t][i];
      out.push_back(Phi - N(1) / gamma[t]);
    }
  }
  return out;
}

}  // namespace lbtest

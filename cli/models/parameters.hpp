// A command-line model's parameters as one table: key, count, the check each number passes and the
// help text. Defaults are not written in the table: they are read from the model an entry starts
// from (its default or a preset), so `list models` prints what a run would use.
#pragma once
#include <charconv>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "cli/config/config_node.hpp"
#include "cli/models/member_parameters.hpp"

namespace lb::cli {

/// The check every number of a parameter passes (finiteness is always checked).
enum class Domain { finite, positive };

/// One parameter of model M: `size` numbers, read from M by `get` and written by `set`.
template <class M> struct Param {
  const char* key;
  int size;       ///< 1: a number; more: an array of that many
  Domain domain;
  const char* help;                   ///< its meaning: the key, the domain and the default are added
  void (*get)(const M&, double*);     ///< null: no value of its own (an alternative form of another)
  void (*set)(M&, const double*);
  bool array = false;  ///< an array in the model, given as one also where it holds one number
};

template <class P> struct member_of;
template <class M, class F> struct member_of<F M::*> {
  using model = M;
  using field = F;
};

/// The parameter that is a member of the model: a number, an array (`T mass[N]`) or a `Vec<T, n>`.
template <auto field>
constexpr Param<typename member_of<decltype(field)>::model> member(const char* key, Domain domain, const char* help) {
  using M = typename member_of<decltype(field)>::model;
  using F = typename member_of<decltype(field)>::field;
  if constexpr (std::is_arithmetic_v<F>) {
    return {key, 1, domain, help, [](const M& m, double* v) { *v = double(m.*field); }, [](M& m, const double* v) { m.*field = F(*v); }};
  } else {
    constexpr int n = [] {
      if constexpr (std::is_array_v<F>) return int(std::extent_v<F>);
      else return int(F::size);
    }();
    return {key,
            n,
            domain,
            help,
            [](const M& m, double* v) {
              for (int k = 0; k < n; ++k) v[k] = double((m.*field)[k]);
            },
            [](M& m, const double* v) {
              for (int k = 0; k < n; ++k) (m.*field)[k] = std::remove_cvref_t<decltype((m.*field)[k])>(v[k]);
            },
            true};
  }
}

/// "key: help, each > 0 (default [2, 1.5, 0.8])"; an array whose numbers agree prints "default all x".
template <class M> std::string help_line(const Param<M>& p, const M& def) {
  std::string s = std::string(p.key) + ": " + p.help;
  if (p.domain == Domain::positive) s += p.size > 1 ? ", each > 0" : ", > 0";
  if (!p.get) return s;
  std::vector<double> v(std::size_t(p.size));
  p.get(def, v.data());
  const auto num = [](double x) {  // the shortest text that reads back as x: the default exactly
    char b[32];
    return std::string(b, std::to_chars(b, b + sizeof b, x).ptr);
  };
  bool same = v.size() > 1;
  for (double x : v) same = same && x == v[0];
  std::string d;
  for (double x : v) d += (d.empty() ? "" : ", ") + num(x);
  return s + " (default " + (same ? "all " + num(v[0]) : v.size() > 1 ? "[" + d + "]" : d) + ")";
}

template <class M> std::vector<std::string> help_lines(std::span<const Param<M>> table, const M& def) {
  std::vector<std::string> v;
  for (const auto& p : table) v.push_back(help_line(p, def));
  return v;
}

/// Sets on m every parameter of the table that the object `node` (may be null) gives; a number
/// outside its domain is refused, naming its path and value. A number given as a sweep or a
/// distribution (member_parameters.hpp) goes into `rule` instead, in the table's order.
template <class M> void read_params(Node* node, std::span<const Param<M>> table, M& m, MemberRule& rule) {
  if (!node) return;
  for (std::size_t k = 0; k < table.size(); ++k) {
    const Param<M>& p = table[k];
    if (!node->has(p.key)) continue;
    const nlohmann::json& j = node->raw(p.key);
    const std::string at = node->at(p.key);
    // An array of one number (a chain of one link's "masses": [2]) may also be given as the number.
    const bool listed = p.size > 1 || (p.array && j.is_array());
    if (listed && (!j.is_array() || j.size() != std::size_t(p.size)))
      Node::fail(at,
                 "expected an array of " + std::to_string(p.size) + (p.size > 1 ? " entries" : " entry") + ", each a number or a variation",
                 j);
    std::vector<double> v(std::size_t(p.size));
    if (p.get) p.get(m, v.data());
    for (int c = 0; c < p.size; ++c) {
      const auto var = read_variation(listed ? j[std::size_t(c)] : j, listed ? at + "/" + std::to_string(c) : at,
                                      p.domain == Domain::positive, v[std::size_t(c)]);
      if (!var) continue;
      if (!p.get) Node::fail(at, "cannot vary per member (it is another form of a parameter that can)");
      Variation x = *var;
      x.param = int(k);
      x.component = c;
      x.name = p.size == 1 ? std::string(p.key) : std::string(p.key) + "[" + std::to_string(c) + "]";
      // Each sweep is at most 2^40 points, and so is their grid (its size a product that never wraps).
      if (x.kind == Variation::sweep && double(rule.grid()) * double(x.size()) > double(max_members))
        Node::fail(at, "the sweeps' grid of " + std::to_string(rule.grid()) + " points times " + std::to_string(x.size()) +
                           " is more than 2^40 members");
      (x.kind == Variation::sweep ? rule.sweeps : rule.draws).push_back(std::move(x));
    }
    p.set(m, v.data());
  }
}

/// m with member i's numbers of `rule` (MemberRule::member) set.
template <class M> M with_member(M m, std::span<const Param<M>> table, const MemberRule& rule, std::size_t i) {
  // Scratch of this thread, grown once: members' models are made member by member, on the run's
  // threads, and allocate nothing.
  thread_local std::vector<double> x, v;
  x.resize(rule.numbers());
  rule.member(i, x.data());
  std::size_t at = 0;
  for (const auto* list : {&rule.sweeps, &rule.draws})
    for (const Variation& var : *list) {
      const Param<M>& p = table[std::size_t(var.param)];
      v.resize(std::size_t(p.size));
      p.get(m, v.data());
      v[std::size_t(var.component)] = x[at++];
      p.set(m, v.data());
    }
  return m;
}

}  // namespace lb::cli

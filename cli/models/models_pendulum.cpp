// Command-line entry: the N-fold spherical pendulum, for the chain lengths this build compiles
// (LIEBATCH_CLI_CHAINS; each N in a generated unit of its own, models_pendulum_N.cpp), and any other
// length up to 64 compiled at run time for the model object's "methods" (cli/models/plugin.hpp).
#include "chains.hpp"
#include "cli/models/pendulum_entry.hpp"
#include "cli/models/plugin.hpp"

namespace lb::cli {

#define LB_CLI_CHAIN_EXTERN(n) extern template std::unique_ptr<ModelRunner> make_pendulum<n>(Node*, const std::string&);
LB_CLI_CHAINS(LB_CLI_CHAIN_EXTERN)
#undef LB_CLI_CHAIN_EXTERN

namespace {

/// The compiled chain lengths, e.g. "1, 2".
std::string chain_list() {
  std::string s;
#define LB_CLI_CHAIN_NAME(n) s += (s.empty() ? "" : ", ") + std::to_string(n);
  LB_CLI_CHAINS(LB_CLI_CHAIN_NAME)
#undef LB_CLI_CHAIN_NAME
  return s;
}

/// N first, then the table's parameters as a chain of two links shows them.
std::vector<std::string> parameters() {
  auto v = parameter_help<PendulumEntry<2>>();
  v.insert(v.begin(), "N: links, 1 to 64 (required); " + chain_list() +
                          " are compiled in, the others compiled at first use for the model's \"methods\" (default rkmk4, "
                          "rkmk54) and cached, as a user's model");
  return v;
}

}  // namespace

void add_pendulum_models(std::vector<ModelInfo>& v) {
  ModelInfo m{"pendulum_chain",
              "N-fold spherical pendulum on (TS2)^N under SE(3)^N ([CCLMO22 §5]), O(N) field",
              "(q_i, w_i) (6 per link, root first): |q_i| = 1, q_i.w_i = 0",
              parameters(),
              PendulumEntry<1>::presets(),
              nullptr,
              nullptr};
  m.make_for = [](Node* params, const std::string& preset, const std::vector<std::string>& methods) -> std::unique_ptr<ModelRunner> {
    if (!params) Node::fail("/model/parameters", "missing (required: N)");
    if (params->has("N") && !params->raw("N").is_number())
      Node::fail(params->at("N"), "expected an integer: N is structural (each length a compiled chain), so it cannot vary per member");
    const int n = int(params->integer("N", 1, 64));
    switch (n) {
#define LB_CLI_CHAIN_CASE(k) \
  case k:                    \
    return make_pendulum<k>(params, preset);
      LB_CLI_CHAINS(LB_CLI_CHAIN_CASE)
#undef LB_CLI_CHAIN_CASE
    }
    return chain_model(n, methods, "/model").make(params, preset);
  };
  v.push_back(std::move(m));
}

}  // namespace lb::cli

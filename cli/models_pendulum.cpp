// Command-line entry: the N-fold spherical pendulum, N ∈ {1, 2, 3, 5} here and {10, 20, 32} in
// models_pendulum_long.cpp.
#include "pendulum_entry.hpp"

namespace lb::cli {

std::unique_ptr<ModelRunner> make_pendulum_short(int n, Node* params, const std::string& preset) {
  switch (n) {
    case 1: return make_pendulum<1>(params, preset);
    case 2: return make_pendulum<2>(params, preset);
    case 3: return make_pendulum<3>(params, preset);
    case 5: return make_pendulum<5>(params, preset);
    default: return nullptr;
  }
}

void add_pendulum_models(std::vector<ModelInfo>& v) {
  v.push_back({"pendulum_chain", "N-fold spherical pendulum on (TS2)^N under SE(3)^N ([CCLMO22 §5]), O(N) field",
               "(q_i, w_i) (6 per link, root first): |q_i| = 1, q_i.w_i = 0",
               {"N: links, one of 1, 2, 3, 5, 10, 20, 32 (required)", "masses: [m_1 … m_N] > 0 (default all 1)",
                "lengths: [L_1 … L_N] > 0 (default all 1), or total_length: L with L_i = L/N",
                "gravity: g > 0 along -z (default 9.81)"},
               {"paper: every link at (q, w) = (sqrt(2)/2, 0, sqrt(2)/2, 0, 1, 0) ([CCLMO22 §5.3])"},
               [](Node* params, const std::string& preset) -> std::unique_ptr<ModelRunner> {
                 if (!params) Node::fail("/model/parameters", "missing (required: N)");
                 const int n = int(params->integer("N", 1, 1000));
                 if (auto r = make_pendulum_short(n, params, preset)) return r;
                 if (auto r = make_pendulum_long(n, params, preset)) return r;
                 Node::fail(params->at("N"), "expected one of 1, 2, 3, 5, 10, 20, 32 (compiled chain lengths), got " +
                                                 std::to_string(n));
               }});
}

}  // namespace lb::cli

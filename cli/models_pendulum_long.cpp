// Command-line entry: the N-fold spherical pendulum for N ∈ {10, 20, 32}.
#include "pendulum_entry.hpp"

namespace lb::cli {

std::unique_ptr<ModelRunner> make_pendulum_long(int n, Node* params, const std::string& preset) {
  switch (n) {
    case 10: return make_pendulum<10>(params, preset);
    case 20: return make_pendulum<20>(params, preset);
    case 32: return make_pendulum<32>(params, preset);
    default: return nullptr;
  }
}

}  // namespace lb::cli

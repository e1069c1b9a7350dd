// Command-line entries: the heavy top on se*(3) (Lie–Poisson), on T*SO(3) (spatial momentum), and
// in its Kaluza–Klein form for SLGIKK.
#include <type_traits>

#include <liebatch/methods/slgi.hpp>
#include <liebatch/models/heavy_top_quadratic.hpp>
#include <liebatch/models/heavy_top_spatial.hpp>

#include "cli/models/heavy_top_entry.hpp"

namespace lb::cli {
namespace {

struct HeavyTopEntry : TopEntry {
  static constexpr const char* name = "heavy_top";
  template <class T> using model = HeavyTop<T>;
  static std::vector<double> initial(const HeavyTop<double>& top, const std::string& preset) { return body_initial(top, preset); }
};

struct HeavyTopSpatialEntry : TopEntry {
  static constexpr const char* name = "heavy_top_spatial";
  template <class T> using model = HeavyTopSpatial<T>;
  static HeavyTopSpatial<double> make(const HeavyTop<double>& top) { return {top}; }
  static std::vector<double> initial(const HeavyTop<double>& top, const std::string& preset) {
    const auto y = body_initial(top, preset);
    if (y.empty()) return {};
    const auto x = HeavyTopSpatial<double>::from_body(Mat3<double>::identity(), vec3(y[0], y[1], y[2]));
    return {x.v, x.v + 12};
  }
};

template <class Method> inline constexpr bool is_slgi = false;
template <int num, int den> inline constexpr bool is_slgi<SLGI<num, den>> = true;

/// The Kaluza–Klein form ([CCLMO22 §3.4.3]) exists for SLGIKK: it takes the SLGI methods only, and
/// the build compiles no other method for it (heavy_top and heavy_top_spatial serve them).
struct HeavyTopQuadraticEntry : TopEntry {
  static constexpr const char* name = "heavy_top_quadratic";
  template <class T> using model = HeavyTopQuadratic<T>;
  template <class Method> static constexpr bool takes = is_slgi<Method>;
  static std::string takes_note() {
    return "it is the Kaluza-Klein form of the heavy top for SLGIKK, which only slgi0, slgi_half and slgi1 step "
           "(the other methods run heavy_top or heavy_top_spatial)";
  }
  static constexpr bool gpu = false;
  static std::string gpu_note() { return "SLGIKK runs on the CPU only"; }
  /// p = −M g X is part of its state: a member's mass, centre of mass or gravity would disagree with it.
  static bool varies(const std::string& key) { return key == "inertia"; }
  static std::string fixed_note() { return "p = -M g X is part of heavy_top_quadratic's state (vary it in heavy_top_spatial)"; }
  static HeavyTopQuadratic<double> make(const HeavyTop<double>& top) { return {top}; }
  static std::vector<double> initial(const HeavyTop<double>& top, const std::string& preset) {
    const auto y = body_initial(top, preset);
    if (y.empty()) return {};
    const auto x = make(top).from_body(Mat3<double>::identity(), vec3(y[0], y[1], y[2]));
    return {x.v, x.v + 18};
  }
};

}  // namespace

void add_heavy_top_models(std::vector<ModelInfo>& v) {
  const auto& presets = top_presets;
  v.push_back(info<HeavyTopEntry>("heavy top, Lie-Poisson equations on se*(3) ([CCLMO22] eqs 23-24)",
                                  "Pi (3): body angular momentum, Gamma (3): gravity direction in the body (|Gamma| = 1)", presets));
  v.push_back(info<HeavyTopSpatialEntry>("heavy top on T*SO(3) in the spatial momentum ([CCLMO22] eqs 21-22)",
                                         "Q (9, row-major attitude), pi (3): spatial angular momentum", presets));
  v.push_back(info<HeavyTopQuadraticEntry>(
      "heavy top in Kaluza-Klein form on T*(SO(3) x R^3), for SLGIKK (slgi0, slgi_half, slgi1; [CCLMO22] §3.4.3)",
      "Q (9, row-major attitude), pi (3): spatial angular momentum, p (3) = -M g X (constant), q (3): its conjugate", presets));
}

}  // namespace lb::cli

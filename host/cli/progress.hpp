// Progress of a long run on stderr: fraction of trajectory-time done, elapsed time and ETA,
// redrawn in place; silent when stderr is not a terminal or --quiet is given.
#pragma once
#include <chrono>
#include <cstdio>
#include <string>

#include <unistd.h>

namespace lb::cli {

class Progress {
 public:
  Progress(std::string label, bool quiet) : label_(std::move(label)), on_(!quiet && ::isatty(2)) {}
  ~Progress() {
    if (on_ && drawn_) std::fprintf(stderr, "\n");
  }
  /// done ∈ [0, 1]: the fraction of all members' time spans integrated.
  void operator()(double done) {
    if (!on_) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double eta = done > 0 ? s * (1 - done) / done : 0;
    std::fprintf(stderr, "\r%s: %5.1f%%  %.1f s elapsed, ETA %.1f s   ", label_.c_str(), 100 * done, s, eta);
    std::fflush(stderr);
    drawn_ = true;
  }

 private:
  std::string label_;
  bool on_, drawn_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace lb::cli

// Progress of a long run on stderr: fraction done, elapsed time and ETA, redrawn in place at most
// every 0.1 s; silent for the first 0.25 s (quick steps print nothing), when stderr is not a
// terminal (unless --progress), or with --quiet. A caller in the same process may take the fraction instead.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

#include <unistd.h>

namespace lb::cli {

class Progress {
 public:
  /// With `report`, each fraction goes to it and nothing is drawn. `always`: drawn where stderr is
  /// no terminal too (--progress: mpirun forwards it through a pipe; a log).
  Progress(std::string label, bool quiet, std::function<void(double)> report = {}, bool always = false)
      : label_(std::move(label)), report_(std::move(report)), on_(drawn(quiet, bool(report_), always)) {}
  /// Whether a bar of these arguments is drawn: then a run pauses its members often (short_pauses,
  /// no result changed) so that the bar moves within a chunk too, where a run of 2 samples has one.
  static bool drawn(bool quiet, bool reported, bool always) { return !quiet && !reported && (always || ::isatty(2)); }
  ~Progress() { finish(); }
  /// done ∈ [0, 1]: the fraction of the work done (shown never decreasing).
  void operator()(double done) {
    done_ = std::max(done_, std::min(done, 1.0));
    if (report_) report_(done_);
    if (!on_) return;
    const auto now = Clock::now();
    const double s = std::chrono::duration<double>(now - start_).count();
    if (s < 0.25 || (now - drawn_at_ < std::chrono::milliseconds(100) && done_ < 1)) return;
    const double eta = done_ > 0 ? s * (1 - done_) / done_ : 0;
    std::fprintf(stderr, "\r%s: %5.1f%%  %.1f s elapsed, ETA %.1f s   ", label_.c_str(), 100 * done_, s, eta);
    std::fflush(stderr);
    drawn_ = true;
    drawn_at_ = now;
  }
  /// Ends the progress line, so what is printed next starts on a line of its own.
  void finish() {
    if (drawn_) std::fprintf(stderr, "\n");
    drawn_ = false;
    on_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  std::function<void(double)> report_;
  bool on_, drawn_ = false;
  double done_ = 0;
  Clock::time_point start_ = Clock::now(), drawn_at_{};
};

}  // namespace lb::cli

// runtime/base/progress.h — a single, self-updating progress line on stderr for long runs.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace tcert {

/// Prints "LABEL: 42% done, ETA 13 s" on one line of stderr, rewritten in place with '\r'.
/// Nothing appears for runs shorter than 3 s, and the line is redrawn at most twice per
/// second, so quick runs and logs stay clean. Only rank 0 should pass enabled = true.
/// The ETA is elapsed · (1 − f) / f for fraction f, rounded to whole seconds.
class Progress {
 public:
  using Clock = std::chrono::steady_clock;
  /// The run starts now. `out` is stderr except in tests.
  Progress(std::string label, bool enabled, std::FILE* out = stderr);
  /// finish().
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Reports that fraction_done ∈ [0, 1] of the work is done (clamped); prints if due.
  void update(double fraction_done) { update_at(fraction_done, Clock::now()); }
  /// update() at a given time (for tests, and callers that already read the clock).
  void update_at(double fraction_done, Clock::time_point now);
  /// Ends the line ("LABEL: done in 13 s" and a newline) if anything was printed; later
  /// calls do nothing.
  void finish();

 private:
  void draw(const std::string& text);

  std::string label_;
  bool enabled_;
  std::FILE* out_;
  Clock::time_point start_;
  Clock::time_point last_draw_{};
  bool printed_ = false;
  bool finished_ = false;
  std::size_t drawn_width_ = 0;
};

}  // namespace tcert

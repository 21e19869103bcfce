// runtime/base/progress.cpp — the throttled, self-updating progress line.
#include "runtime/base/progress.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace tcert {

namespace {
constexpr std::chrono::seconds kQuietFor{3};
constexpr std::chrono::milliseconds kRedrawEvery{500};

double seconds_between(Progress::Clock::time_point a, Progress::Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
}  // namespace

Progress::Progress(std::string label, bool enabled, std::FILE* out)
    : label_(std::move(label)), enabled_(enabled), out_(out), start_(Clock::now()) {}

Progress::~Progress() { finish(); }

void Progress::update_at(double fraction_done, Clock::time_point now) {
  if (!enabled_ || finished_) return;
  if (now - start_ <= kQuietFor) return;
  if (printed_ && now - last_draw_ < kRedrawEvery) return;
  double f = std::clamp(fraction_done, 0.0, 1.0);
  std::string text = label_ + ": " + std::to_string(static_cast<int>(f * 100)) + "% done";
  if (f > 0) {
    double eta_s = seconds_between(start_, now) * (1 - f) / f;
    text += ", ETA " + std::to_string(static_cast<long long>(std::llround(eta_s))) + " s";
  }
  draw(text);
  last_draw_ = now;
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (!printed_) return;
  long long total_s = std::llround(seconds_between(start_, Clock::now()));
  draw(label_ + ": done in " + std::to_string(total_s) + " s");
  std::fputc('\n', out_);
  std::fflush(out_);
}

void Progress::draw(const std::string& text) {
  // Pad with spaces to wipe the rest of a longer previous line.
  std::size_t pad = drawn_width_ > text.size() ? drawn_width_ - text.size() : 0;
  std::fprintf(out_, "\r%s%*s", text.c_str(), static_cast<int>(pad), "");
  std::fflush(out_);
  drawn_width_ = text.size();
  printed_ = true;
}

}  // namespace tcert

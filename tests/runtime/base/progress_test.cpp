// tests/runtime/base/progress_test.cpp — the progress line: quiet start, throttling, ETA, finish.
#include "runtime/base/progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace {

using Clock = tcert::Progress::Clock;
using std::chrono::milliseconds;

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  return text;
}

TEST(Progress, SilentForTheFirstThreeSecondsThenThrottled) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  Clock::time_point t0 = Clock::now();
  {
    tcert::Progress progress("A += B*C", true, out);
    progress.update_at(0.10, t0 + milliseconds(2900));
    EXPECT_EQ(contents(out), "");
    progress.update_at(0.50, t0 + milliseconds(4000));  // ETA 4 s
    progress.update_at(0.60, t0 + milliseconds(4200));  // < 0.5 s later: skipped
    progress.update_at(0.75, t0 + milliseconds(6000));  // ETA 2 s
    std::string text = contents(out);
    std::fseek(out, 0, SEEK_END);
    EXPECT_NE(text.find("\rA += B*C: 50% done, ETA 4 s"), std::string::npos) << text;
    EXPECT_EQ(text.find("60%"), std::string::npos) << text;
    EXPECT_NE(text.find("\rA += B*C: 75% done, ETA 2 s"), std::string::npos) << text;
  }  // the destructor finishes the line
  std::string text = contents(out);
  EXPECT_NE(text.find("A += B*C: done in"), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
  std::fclose(out);
}

TEST(Progress, DisabledOrShortRunsPrintNothing) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  Clock::time_point t0 = Clock::now();
  tcert::Progress disabled("x", false, out);
  disabled.update_at(0.5, t0 + milliseconds(10000));
  disabled.finish();
  tcert::Progress quick("y", true, out);
  quick.update_at(0.5, t0 + milliseconds(100));
  quick.finish();
  EXPECT_EQ(contents(out), "");
  std::fclose(out);
}

}  // namespace

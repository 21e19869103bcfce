// tests/runtime/base/trace_test.cpp — atomic JSON trace files.
#include "runtime/base/trace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runtime/base/error.h"
#include "temp_dir.h"

namespace {

TEST(Trace, WritesTheDocumentAndNoTemporaryFile) {
  tcert_test::TempDir dir;
  nlohmann::json doc = {{"ranks", 4}, {"phases", {{"load", 1.5}}}};
  tcert::write_json_atomically(dir.file("t.json"), doc);
  tcert::write_json_atomically(dir.file("t.json"), doc);  // replacing is fine
  std::ifstream in(dir.file("t.json"));
  EXPECT_EQ(nlohmann::json::parse(in), doc);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(Trace, UnwritablePathIsAnError) {
  try {
    tcert::write_json_atomically("/nonexistent-dir/t.json", nlohmann::json::object());
    FAIL() << "no error";
  } catch (const tcert::Error& e) {
    EXPECT_STREQ(e.what(), "cannot write trace /nonexistent-dir/t.json: No such file or directory");
  }
}

}  // namespace

// tests/runtime/base/file_lock_test.cpp — FileLock: one holder at a time, released by its destructor.
#include "runtime/base/file_lock.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>

#include "temp_dir.h"

namespace {

using tcert_test::message_of;

TEST(FileLock, OneHolderAtATimeAndTheFileStays) {
  tcert_test::TempDir dir;
  const std::string path = dir.file("lock");
  std::optional<tcert::FileLock> first;
  first.emplace(path, "the first");
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(message_of([&] { tcert::FileLock second(path, "the first, still running"); }),
            path + " is held by another process (the first, still running)");
  first.reset();
  EXPECT_EQ(message_of([&] { tcert::FileLock again(path, "the first"); }), "no error");
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST(FileLock, UnopenableFileIsAnError) {
  tcert_test::TempDir dir;
  const std::string path = dir.file("missing/lock");
  EXPECT_EQ(message_of([&] { tcert::FileLock lock(path, "nobody"); }),
            "cannot open " + path + ": No such file or directory");
}

}  // namespace

// tests/runtime/storage/scratch_test.cpp — per-rank scratch directories: naming, cleaning, keep, errors.
#include "runtime/storage/scratch.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/base/error.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;

TEST(Scratch, BaseDirectoryGetsRankSubdirectoryRemovedAtTheEnd) {
  tcert_test::TempDir dir;
  std::string base = dir.file("deeper/scratch");  // created with its parents
  {
    tcert::Scratch scratch(base + "/", 3, /*keep=*/false);
    EXPECT_EQ(scratch.dir(), base + "/rank-3");
    EXPECT_EQ(scratch.path("A.tile"), base + "/rank-3/A.tile");
    EXPECT_TRUE(fs::is_directory(scratch.dir()));
    std::ofstream(scratch.path("A.tile")) << "x";
  }
  EXPECT_FALSE(fs::exists(base + "/rank-3"));
  EXPECT_TRUE(fs::is_directory(base));
}

TEST(Scratch, KeepLeavesFilesAndAReusedDirectoryStartsEmpty) {
  tcert_test::TempDir dir;
  {
    tcert::Scratch scratch(dir.path(), 0, /*keep=*/true);
    std::ofstream(scratch.path("old.bin")) << "x";
  }
  EXPECT_TRUE(fs::exists(dir.file("rank-0/old.bin")));
  tcert::Scratch again(dir.path(), 0, /*keep=*/true);
  EXPECT_TRUE(fs::is_empty(again.dir()));
}

TEST(Scratch, WithoutBaseUsesMkdtempUnderTmpdir) {
  tcert_test::TempDir dir;
  ::setenv("TMPDIR", dir.path().c_str(), 1);
  std::string made;
  {
    tcert::Scratch scratch("", 5, /*keep=*/false);
    made = scratch.dir();
    EXPECT_EQ(fs::path(made).parent_path(), fs::path(dir.path()));
    EXPECT_EQ(fs::path(made).filename().string().rfind("tcert-", 0), 0u);
    EXPECT_TRUE(fs::is_directory(made));
  }
  ::unsetenv("TMPDIR");
  EXPECT_FALSE(fs::exists(made));
}

TEST(Scratch, UncreatableDirectoryIsAnError) {
  tcert_test::TempDir dir;
  std::ofstream(dir.file("plain")) << "x";  // a file where a directory should go
  try {
    tcert::Scratch scratch(dir.file("plain/sub"), 0, false);
    FAIL() << "no error";
  } catch (const tcert::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot create scratch directory " + dir.file("plain/sub"), 0), 0u)
        << e.what();
  }
}

}  // namespace

// tests/runtime/temp_dir.h — test helpers: a fresh temporary directory per test, removed at
// the end, and the message of an expected tcert::Error.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "runtime/base/error.h"

namespace tcert_test {

/// mkdtemp("/tmp/tcert-test-XXXXXX"), removed recursively by the destructor.
class TempDir {
 public:
  TempDir() {
    std::string pattern = "/tmp/tcert-test-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// The message of the tcert::Error that `action` throws, or "no error".
std::string message_of(auto&& action) {
  try {
    action();
  } catch (const tcert::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace tcert_test

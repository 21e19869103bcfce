// runtime/base/trace.cpp — atomic write of a JSON document (temporary file, then rename).
#include "runtime/base/trace.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "runtime/base/error.h"

namespace tcert {

void write_json_atomically(const std::string& path, const nlohmann::json& document) {
  std::string temp = path + ".tmp-" + std::to_string(::getpid());
  std::string text = document.dump(2) + "\n";
  std::FILE* file = std::fopen(temp.c_str(), "w");
  if (file == nullptr) throw Error("cannot write trace " + path + ": " + errno_text(errno));
  int err = 0;  // the first failure's errno
  auto note = [&err](bool failed) {
    if (failed && err == 0) err = errno != 0 ? errno : EIO;
  };
  errno = 0;
  note(std::fwrite(text.data(), 1, text.size(), file) != text.size());
  note(std::fflush(file) != 0);
  note(std::fclose(file) != 0);
  if (err == 0) note(std::rename(temp.c_str(), path.c_str()) != 0);
  if (err == 0) return;
  std::remove(temp.c_str());
  throw Error("cannot write trace " + path + ": " + errno_text(err));
}

}  // namespace tcert

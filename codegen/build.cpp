// codegen/build.cpp — building a generated program: the tool chain recorded by CMake
// (codegen/build_config.h in the build tree) and the compiler call.
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "codegen/build_config.h"
#include "codegen/codegen.h"

namespace tcec::codegen {

Toolchain toolchain() {
  Toolchain tools{build_config::kCompiler, build_config::kSourceRoot, build_config::kRuntimeLibrary};
  if (const char* cxx = std::getenv("TCEC_CXX"); cxx != nullptr && *cxx != '\0') tools.compiler = cxx;
  return tools;
}

std::vector<std::string> build_command(const Toolchain& tools, const std::string& source,
                                       const std::string& output) {
  return {tools.compiler, "-std=c++20", "-O2", "-I" + tools.source_root, source, tools.runtime_library,
          "-lopenblas", "-lfmt", "-o", output};
}

bool build_program(const Toolchain& tools, const std::string& source, const std::string& executable,
                   std::string* output) {
  namespace fs = std::filesystem;
  const std::string temporary = executable + ".tmp";
  std::error_code ignored;
  fs::remove(executable, ignored);  // a failed build must not leave an older program behind
  fs::remove(temporary, ignored);
  const int status = run_command(build_command(tools, source, temporary), output);
  if (status != 0) {
    fs::remove(temporary, ignored);
    if (status < 0) *output += "\n";  // run_command's reason has no newline
    return false;
  }
  std::error_code ec;
  fs::rename(temporary, executable, ec);
  if (ec) {
    fs::remove(temporary, ignored);
    *output = fmt::format("cannot rename '{}' to '{}': {}\n", temporary, executable, ec.message());
    return false;
  }
  return true;
}

}  // namespace tcec::codegen

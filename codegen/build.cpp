// codegen/build.cpp — building a generated program: the tool chain recorded by CMake
// (codegen/build_config.h in the build tree) and the compiler call.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "codegen/build_config.h"
#include "codegen/codegen.h"

namespace tcec::codegen {

namespace {

/// The launcher CMake recorded, when it still exists ("" otherwise).
std::string recorded_launcher() {
  std::error_code ec;
  const std::string launcher = build_config::kCompilerLauncher;
  return !launcher.empty() && std::filesystem::exists(launcher, ec) ? launcher : std::string();
}

}  // namespace

std::optional<Toolchain> installed_toolchain(const std::string& executable) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::weakly_canonical(executable, ec);
  if (ec || !exe.has_parent_path()) return std::nullopt;
  // PREFIX/<bindir>/tcec: climb one level per component of the bin directory.
  fs::path prefix = exe.parent_path();
  const fs::path bin_dir(build_config::kInstallBinDir);
  for (auto part = bin_dir.begin(); part != bin_dir.end(); ++part) prefix = prefix.parent_path();
  if (fs::weakly_canonical(prefix / build_config::kInstallBinDir, ec) != exe.parent_path() || ec) return std::nullopt;
  const fs::path include = prefix / build_config::kInstallIncludeDir,
                 library = prefix / build_config::kInstallRuntimeLibrary,
                 spec_library = prefix / build_config::kInstallSpecLibrary;
  if (!fs::exists(include / "runtime" / "tcert.h", ec) || !fs::exists(library, ec) || !fs::exists(spec_library, ec))
    return std::nullopt;
  return Toolchain{build_config::kCompiler, include.string(), library.string(), spec_library.string(),
                   recorded_launcher()};
}

Toolchain toolchain() {
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  Toolchain tools =
      (!ec ? installed_toolchain(self) : std::nullopt)
          .value_or(Toolchain{build_config::kCompiler, build_config::kSourceRoot, build_config::kRuntimeLibrary,
                              build_config::kSpecLibrary, recorded_launcher()});
  if (const char* cxx = std::getenv("TCEC_CXX"); cxx != nullptr && *cxx != '\0') tools.compiler = cxx;
  if (const char* launcher = std::getenv("TCEC_CXX_LAUNCHER"); launcher != nullptr) tools.launcher = launcher;
  return tools;
}

namespace {

/// What follows the source or object in the link: libtcert.a, libtcert_spec.a, OpenBLAS, fmt, the HDF5 libraries
/// CMake found and the sanitizers, then -o OUTPUT.
void append_link_tail(const Toolchain& tools, const std::string& output, std::vector<std::string>& command) {
  command.insert(command.end(), {tools.runtime_library, tools.spec_library, "-lopenblas", "-lfmt"});
  const std::string_view hdf5 = build_config::kHdf5Libraries;
  for (std::size_t at = 0; at < hdf5.size();) {  // the ';'-separated list
    const std::size_t end = std::min(hdf5.find(';', at), hdf5.size());
    if (end > at) command.emplace_back(hdf5.substr(at, end - at));
    at = end + 1;
  }
  if (*build_config::kSanitizeFlags != '\0') command.emplace_back(build_config::kSanitizeFlags);
  command.insert(command.end(), {"-o", output});
}

}  // namespace

std::vector<std::string> build_command(const Toolchain& tools, const std::string& source, const std::string& output) {
  std::vector<std::string> command = {tools.compiler, "-std=c++20", "-O2", "-I" + tools.source_root, source};
  append_link_tail(tools, output, command);
  return command;
}

std::vector<std::string> compile_command(const Toolchain& tools, const std::string& source, const std::string& object) {
  std::vector<std::string> command;
  if (!tools.launcher.empty()) command.push_back(tools.launcher);
  command.insert(command.end(), {tools.compiler, "-std=c++20", "-O2", "-I" + tools.source_root, source, "-c"});
  if (*build_config::kSanitizeFlags != '\0') command.emplace_back(build_config::kSanitizeFlags);
  command.insert(command.end(), {"-o", object});
  return command;
}

namespace {

/// Runs the compiler: in one call, or (with a launcher) a compile through it and a link of the
/// object, which is removed either way. Returns the status of the failing call, or 0.
int compile_and_link(const Toolchain& tools, const std::string& source, const std::string& temporary,
                     std::string* output) {
  if (tools.launcher.empty()) return run_command(build_command(tools, source, temporary), output);
  const std::string object = temporary + ".o";
  std::error_code ignored;
  int status = run_command(compile_command(tools, source, object), output);
  if (status == 0) {
    std::vector<std::string> link = {tools.compiler, object};
    append_link_tail(tools, temporary, link);
    status = run_command(link, output);
  }
  std::filesystem::remove(object, ignored);
  return status;
}

}  // namespace

bool build_program(const Toolchain& tools, const std::string& source, const std::string& executable,
                   std::string* output) {
  namespace fs = std::filesystem;
  const std::string temporary = executable + ".tmp";
  std::error_code ignored;
  fs::remove(executable, ignored);  // a failed build must not leave an older program behind
  fs::remove(temporary, ignored);
  const int status = compile_and_link(tools, source, temporary, output);
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

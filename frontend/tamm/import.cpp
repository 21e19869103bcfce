// frontend/tamm/import.cpp — import_tamm(): ranges from -D, the stub header, then
// read_function() (Clang) and build_program(); tamm_stub_path(): where the stub header is.
#include <filesystem>
#include <system_error>
#include <tuple>

#include "frontend/defines.h"
#include "frontend/tamm/stub_config.h"
#include "frontend/tamm/tamm.h"

namespace tcec::frontend {

std::string tamm_stub_path() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::weakly_canonical(fs::read_symlink("/proc/self/exe", ec), ec);
  if (!ec && exe.has_parent_path()) {
    // PREFIX/<bindir>/tcec: climb one level per component of the bin directory.
    fs::path prefix = exe.parent_path();
    const fs::path bin_dir(stub_config::kInstallBinDir);
    for (auto part = bin_dir.begin(); part != bin_dir.end(); ++part) prefix = prefix.parent_path();
    const fs::path installed = prefix / stub_config::kInstallStub;
    if (fs::weakly_canonical(prefix / bin_dir, ec) == exe.parent_path() && !ec && fs::exists(installed, ec))
      return installed.string();
  }
  return fs::exists(stub_config::kSourceStub, ec) ? stub_config::kSourceStub : "";
}

Result import_tamm(const std::string& file, std::string source, const Options& options) {
  Result result;
  result.diagnostics.add_source(file, source);
  Reporter reporter(result.diagnostics, file);
  ir::Program program;
  program.file = file;

  // Ranges: O and V from -D, nothing else.
  const auto defines = parse_defines(options.defines, reporter);
  for (const auto& [name, kind, space] : {std::tuple{"O", "occupied", "occ"}, std::tuple{"V", "virtual", "virt"}}) {
    auto d = defines.find(name);
    if (d == defines.end()) reporter.report(DiagId::err_tamm_needs_range, {}, name, name, kind, space);
    program.ranges.push_back({name, d == defines.end() ? 1 : d->second, {}});
  }
  for (const auto& [name, value] : defines) {
    if (name != "O" && name != "V")
      reporter.report(DiagId::err_define_unknown_range, {}, fmt::format("{}={}", name, value), name);
  }
  if (reporter.has_errors()) return result;

  const std::string stub = tamm_stub_path();
  if (stub.empty()) {
    reporter.report(DiagId::err_tamm_no_stub, {});
    return result;
  }
  const auto function = tamm::read_function(file, source, options.function, stub, result.diagnostics);
  if (!function || !tamm::build_program(*function, reporter, program)) return result;
  result.program = std::move(program);
  return result;
}

}  // namespace tcec::frontend

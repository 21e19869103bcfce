// tools/ccsd/equations.cpp — load_equations() (equations.h).
#include "equations.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

#include "tools/diagnostics.h"

namespace tcec::ccsd {

Equations load_equations(const std::string& path) {
  if (path.empty()) {
    std::string text(builtin_equations_text());
    const std::size_t hash = std::hash<std::string>{}(text);
    return {kBuiltinEquationsName, std::move(text), fmt::format("built-in {:016x}", hash)};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_read_equations, path));
  std::string text(std::istreambuf_iterator<char>(in), {});
  if (in.bad())
    throw std::runtime_error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_read_equations, path));
  return {path, std::move(text), std::filesystem::absolute(path).string()};
}

}  // namespace tcec::ccsd

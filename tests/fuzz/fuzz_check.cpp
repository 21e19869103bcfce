// tests/fuzz/fuzz_check.cpp — the requirements of fuzz_check.h.
#include "fuzz_check.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ir/ir.h"

namespace tcec::fuzz {

namespace {

[[noreturn]] void fail(const std::string& why, const frontend::DiagnosticList& diagnostics) {
  std::fprintf(stderr, "fuzz check failed: %s\n--- diagnostics ---\n%s", why.c_str(), diagnostics.render().c_str());
  std::abort();
}

// Length in bytes of each line of `source` (split at '\n'; the last line may be empty).
std::vector<int> line_lengths(const std::string& source) {
  std::vector<int> lengths{0};
  for (char ch : source) {
    if (ch == '\n')
      lengths.push_back(0);
    else
      ++lengths.back();
  }
  return lengths;
}

}  // namespace

std::string diagnostics_problem(const frontend::DiagnosticList& diagnostics, const std::string& file,
                                const std::string& source, bool accepted) {
  const std::vector<int> lengths = line_lengths(source);
  for (const frontend::Diagnostic& d : diagnostics.all()) {
    const std::string what = d.id + " '" + d.message + "'";
    if (d.file != file) return what + " names file '" + d.file + "'";
    if (d.id == "fatal_too_many_errors") continue;
    const int line = d.loc.line, column = d.loc.column;
    if (line < 1 || line > static_cast<int>(lengths.size()) || column < 1 || column > lengths[line - 1] + 1)
      return what + " at " + std::to_string(line) + ":" + std::to_string(column) + ", outside the input";
  }
  if (diagnostics.render().empty() != diagnostics.all().empty()) return "render() lost diagnostics";
  if (accepted && diagnostics.has_errors()) return "an accepted input has errors";
  if (!accepted && !diagnostics.has_errors()) return "a rejected input has no error";
  return "";
}

void check_diagnostics(const frontend::DiagnosticList& diagnostics, const std::string& file, const std::string& source,
                       bool accepted) {
  if (const std::string why = diagnostics_problem(diagnostics, file, source, accepted); !why.empty())
    fail(why, diagnostics);
}

void check_result(const frontend::Result& result, const std::string& source) {
  check_diagnostics(result.diagnostics, kFile, source, result.program.has_value());
  if (!result.program) return;
  const ir::Program& program = *result.program;
  for (const ir::Statement& s : program.statements) {
    (void)ir::format_statement(program, s);
    if (s.operands.size() == 2) (void)ir::macro_index_gemm(program, s);
  }
}

}  // namespace tcec::fuzz

// frontend/frontend.cpp — the frontend's entry points: read, parse, check.
#include "frontend/frontend.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "frontend/defines.h"
#include "frontend/diagnostics.h"
#include "frontend/machine.h"
#include "frontend/nwchem.h"
#include "frontend/sema.h"
#include "frontend/symmetry_options.h"
#include "frontend/syntax.h"
#include "frontend/tamm/tamm.h"
#include "frontend/tccg.h"

namespace tcec::frontend {

// Parses -D NAME=VALUE overrides; reports malformed ones (frontend/defines.h).
std::map<std::string, std::uint64_t> parse_defines(const std::vector<std::string>& defines, Reporter& r) {
  std::map<std::string, std::uint64_t> out;
  for (const std::string& d : defines) {
    auto eq = d.find('=');
    if (eq == std::string::npos || eq == 0) {
      r.report(DiagId::err_define_syntax, {}, d);
      continue;
    }
    const std::string name = d.substr(0, eq), value = d.substr(eq + 1);
    char* end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(value.c_str(), &end, 10);
    if (value.empty() || value[0] == '-' || *end != '\0' || errno != 0 || v == 0 || v > ir::kMaxRangeExtent) {
      r.report(DiagId::err_define_bad_value, {}, d, value);
      continue;
    }
    out[name] = v;
  }
  return out;
}

namespace {

std::optional<std::string> read_file(const std::string& path, Reporter& r) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    r.report(DiagId::err_cannot_read_file, {}, path, std::strerror(errno));
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Result parse_tce(const std::string& file, std::string source, const Options& options) {
  Result result;
  result.diagnostics.add_source(file, source);
  Reporter reporter(result.diagnostics, file);
  auto defines = parse_defines(options.defines, reporter);
  ir::Program program;
  program.file = file;
  parse_syntax(source, reporter, [&](grammar::TceParser::ProgramContext& tree) {
    check_program(tree, defines, reporter, program, [&](const ir::Program& parsed) {
      if (options.observe) options.observe("parse", parsed);
    });
  });
  // After other errors a range may be missing only because its declaration
  // failed, so an unmatched -D is reported on an otherwise clean program only.
  for (const auto& [name, value] : defines) {
    if (program.find_range(name) < 0 && !reporter.has_errors()) {
      reporter.report(DiagId::err_define_unknown_range, {}, fmt::format("{}={}", name, value), name);
    }
  }
  if (!reporter.has_errors()) result.program = std::move(program);
  return result;
}

}  // namespace

namespace {

Result parse_format(const std::string& file, std::string source, const Options& options) {
  if (!options.function.empty() && options.format != InputFormat::Tamm) {
    Result result;
    Reporter(result.diagnostics, file).report(DiagId::err_tamm_function_needs_format, {}, options.function);
    return result;
  }
  if (options.format == InputFormat::Nwchem) return import_nwchem(file, std::move(source), options);
  if (!options.section.empty()) {
    Result result;
    Reporter(result.diagnostics, file).report(DiagId::err_nwchem_section_needs_format, {}, options.section);
    return result;
  }
  if (options.format == InputFormat::Tccg) return import_tccg(file, std::move(source), options);
  if (options.format == InputFormat::Tamm) return import_tamm(file, std::move(source), options);
  return parse_tce(file, std::move(source), options);
}

}  // namespace

Result parse_source(const std::string& file, std::string source, const Options& options) {
  Result result = parse_format(file, std::move(source), options);
  if (!result.ok()) return result;
  if (Reporter reporter(result.diagnostics, file);
      !apply_symmetry_options(*result.program, options, reporter) || !check_antisymmetry(*result.program, reporter)) {
    result.program.reset();
    return result;
  }
  if (options.machine) result.program->machine = options.machine;
  if (!check_distributions(*result.program, result.diagnostics)) result.program.reset();
  if (result.ok() && options.observe) {
    if (options.format != InputFormat::Tce) options.observe("parse", *result.program);
    options.observe("split", *result.program);
  }
  return result;
}

Result parse_file(const std::string& path, const Options& options) {
  Result result;
  Reporter reporter(result.diagnostics, path);
  auto text = read_file(path, reporter);
  if (!text) return result;
  return parse_source(path, std::move(*text), options);
}

std::optional<ir::MachineDesc> parse_machine_file(const std::string& path, DiagnosticList& diagnostics) {
  Reporter reporter(diagnostics, path);
  auto text = read_file(path, reporter);
  if (!text) return std::nullopt;
  return parse_machine_source(path, *text, diagnostics);
}

std::optional<ir::MachineDesc> parse_machine_source(const std::string& file, const std::string& source,
                                                    DiagnosticList& diagnostics) {
  Reporter reporter(diagnostics, file);
  diagnostics.add_source(file, source);
  std::optional<ir::MachineDesc> machine;
  parse_syntax(source, reporter, [&](grammar::TceParser::ProgramContext& tree) {
    for (auto* item : tree.item()) {
      if (!item->machineBlock() || machine) {
        reporter.report(DiagId::err_machine_file_content, location_of(item->getStart()));
        continue;
      }
      ir::MachineDesc m;
      if (check_machine_block(*item->machineBlock(), reporter, m)) machine = m;
    }
    if (tree.item().empty()) reporter.report(DiagId::err_machine_file_empty, {1, 1});
  });
  if (reporter.has_errors()) return std::nullopt;
  return machine;
}

}  // namespace tcec::frontend

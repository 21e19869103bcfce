// tools/tcec/main.cpp — the tcec command-line driver: a flat list of passes
// (parse and check -> plan -> report / generate), each stage's public header only.
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "costmodel/costmodel.h"
#include "frontend/frontend.h"

namespace {

struct Args {
  std::string file;
  std::vector<std::string> defines;
  std::string machine_file;
  std::string from = "tce";
  bool dry_run = false;
  bool json = false;
  bool all = false;
  std::string output_dir;
};

void add_options(CLI::App& app, Args& a) {
  app.add_option("file", a.file, "input file (.tce, or see --from)")->required();
  app.add_option("-D,--define", a.defines, "override a range's extent: -D NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--machine", a.machine_file, "machine file (a machine block); overrides the input's");
  app.add_option("--from", a.from, "input format")->check(CLI::IsMember({"tce", "tccg"}));
  app.add_flag("--dry-run", a.dry_run, "print the analysis and plan choice; generate nothing");
  app.add_flag("--json", a.json, "with --dry-run: print the report as JSON");
  app.add_flag("--all", a.all, "with --dry-run: list every candidate plan");
  app.add_option("-o,--output-dir", a.output_dir, "write the generated C++ program into DIR");
}

// Parses the input and the machine; prints diagnostics; nullopt on error.
std::optional<tcec::ir::Program> load(const Args& a) {
  tcec::frontend::Options options;
  options.defines = a.defines;
  options.format = a.from == "tccg" ? tcec::frontend::InputFormat::Tccg : tcec::frontend::InputFormat::Tce;
  auto result = tcec::frontend::parse_file(a.file, options);
  std::fputs(result.diagnostics.render().c_str(), stderr);
  if (!result.ok()) return std::nullopt;
  if (!a.machine_file.empty()) {
    tcec::frontend::DiagnosticList diagnostics;
    auto machine = tcec::frontend::parse_machine_file(a.machine_file, diagnostics);
    std::fputs(diagnostics.render().c_str(), stderr);
    if (!machine) return std::nullopt;
    result.program->machine = machine;
  }
  return result.program;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tcec: compiles tensor contractions into out-of-core parallel C++/MPI programs "
               "(Gao et al. cost model)"};
  app.set_version_flag("--version", std::string("tcec ") + TCEC_VERSION);
  Args args;
  add_options(app, args);
  CLI11_PARSE(app, argc, argv);
  try {
    auto program = load(args);
    if (!program) return 1;
    std::optional<tcec::costmodel::Machine> machine;
    if (program->machine) machine = tcec::costmodel::machine_from(*program->machine);
    tcec::costmodel::ReportOptions report{args.all};
    if (args.dry_run) {
      if (args.json) {
        std::cout << tcec::costmodel::dry_run_json(*program, machine, report).dump(2) << "\n";
      } else {
        std::cout << tcec::costmodel::dry_run_text(*program, machine, report);
      }
      return 0;
    }
    if (!args.output_dir.empty()) {
      std::fprintf(stderr, "tcec: error: code generation (-o) is not implemented yet; use --dry-run\n");
      return 1;
    }
    std::fprintf(stderr, "tcec: %s: no errors; pass --dry-run to see the analysis\n", args.file.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tcec: internal error: %s\n", e.what());
    return 2;
  }
}

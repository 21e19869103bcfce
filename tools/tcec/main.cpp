// tools/tcec/main.cpp — the tcec command-line driver: a flat list of passes
// (parse and check -> plan -> report / generate [-> build]), each stage's public header
// only; and the subcommand `tcec compare TRACE.json` (compare.h).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "compare.h"
#include "costmodel/costmodel.h"
#include "frontend/frontend.h"
#include "generate.h"
#include "tools/diagnostics.h"

namespace {

using tcec::tools::ToolDiag;

struct Args {
  std::string file;
  std::vector<std::string> defines;
  std::string machine_file;
  std::string from = "tce";
  std::string section;
  std::string function;
  std::string point_group;          // --point-group GROUP
  bool restricted = false;          // --restricted
  std::vector<std::string> irreps;  // --irreps NAME=n0,n1,...
  bool dry_run = false;
  bool no_handoff = false;
  bool no_overlap = false;
  bool no_symmetry = false;
  double max_writes = 0;
  std::string resident = "auto";  // --resident auto|on|all|off
  bool json = false;
  std::string svg;  // --svg FILE
  bool all = false;
  std::string output_dir;
  std::string emit = "program";  // --emit program|library
  bool build = false;
  std::string memory_split = "optimal";
  std::string force_method;
  std::vector<std::string> exclude_methods;
  std::string force_order;
  std::vector<std::string> plans;  // --plan LINE=PLAN (repeatable)
  std::string print_after;         // --print-after parse|split|ir|plan
};

/// The input's options: the file, -D overrides, the machine, the front end and what it imports.
void add_input_options(CLI::App& app, Args& a) {
  app.add_option("file", a.file, "input file (.tce, or see --from)")->required();
  app.add_option("-D,--define", a.defines, "override a range's extent: -D NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--machine", a.machine_file, "machine file (a machine block); overrides the input's");
  app.add_option("--from", a.from, "input format")->check(CLI::IsMember({"tce", "tccg", "nwchem", "tamm"}));
  app.add_option("--section", a.section,
                 "with --from nwchem: the equation tree under the header '### file: .../NAME.F'")
      ->type_name("NAME");
  app.add_option("--function", a.function,
                 "with --from tamm: the function of the C++ file to import (needed when it defines several)")
      ->type_name("NAME");
  app.add_option(
         "--point-group", a.point_group,
         "symmetry blocks, as NWChem's TCE has them, in this abelian point group (c1, cs, ci, c2, d2, c2v, "
         "c2h, d2h); replaces the input's 'symmetry' declaration; needs --irreps for each range (not the same as "
         "--no-symmetry, which is about symmetric products)")
      ->type_name("GROUP");
  app.add_flag("--restricted", a.restricted, "with symmetry blocks: closed shell (no all-beta block is stored)");
  app.add_option("--irreps", a.irreps,
                 "a range's spatial orbitals per irrep of the point group, e.g. --irreps O=3,0,1,1 (its extent, in "
                 "spin orbitals, must be twice their sum; repeatable)")
      ->type_name("NAME=n0,n1,...")
      ->allow_extra_args(false);
}

/// What tcec writes: the dry-run's report (text, JSON, SVG) or the program (-o, --emit, --build).
void add_output_options(CLI::App& app, Args& a) {
  app.add_flag("--dry-run", a.dry_run, "print the analysis and plan choice; generate nothing");
  app.add_flag("--json", a.json, "with --dry-run: print the report as JSON");
  app.add_option("--svg", a.svg,
                 "with --dry-run: also draw every candidate's predicted time (disk, network, kernel, stages 1 "
                 "and 3), the chosen plan and the I/O lower bound into FILE (SVG)")
      ->type_name("FILE");
  app.add_flag("--all", a.all, "with --dry-run: list every candidate plan");
  auto* output = app.add_option("-o,--output-dir", a.output_dir,
                                "write the generated C++/MPI program to DIR/<stem>.cpp (stem: FILE's name "
                                "without extension); DIR is created when missing")
                     ->type_name("DIR");
  app.add_option("--emit", a.emit,
                 "with -o: what to write: program (DIR/<stem>.cpp, a main() that parses the command line) or "
                 "library (DIR/<stem>.h and DIR/<stem>.cpp: the function tcec_gen::<stem>(comm, tensors, options) "
                 "for your own MPI program)")
      ->check(CLI::IsMember({"program", "library"}))
      ->default_str("program")
      ->needs(output);
  app.add_flag("--build", a.build,
               "with -o: also compile it to DIR/<stem> with the MPI C++ compiler against libtcert "
               "($TCEC_CXX replaces the compiler)")
      ->needs(output);
}

/// How tcec plans: memory split, forced or excluded methods and orders, hand-off, overlap,
/// symmetry, write limits, resident accumulation, pinned plans, and --print-after.
void add_plan_options(CLI::App& app, Args& a) {
  app.add_option("--memory-split", a.memory_split,
                 "how tiles share memory: thirds (Gao et al.: M = memory/3 each) or optimal (free split)")
      ->check(CLI::IsMember({"thirds", "optimal"}))
      ->default_str("optimal");
  app.add_option("--force-method", a.force_method, "plan with this method: " + tcec::costmodel::method_names());
  app.add_option("--exclude-method", a.exclude_methods, "plan without this method (repeatable)")->type_name("NAME");
  app.add_option("--force-order", a.force_order, "plan with this disk placement order: ABC, ACB, BAC, BCA, CAB or CBA");
  app.add_flag("--no-handoff", a.no_handoff,
               "pass every tensor through the run's store between steps (default: an intermediate stays on "
               "the ranks for the next contraction where the model finds that cheaper)");
  app.add_flag("--no-overlap", a.no_overlap,
               "plan serial compute stages only, as Gao et al. model them (default: a Gao plan may give each "
               "array a second buffer so that an I/O thread reads and writes while the multiply runs, where "
               "the predicted wall time is lower)");
  app.add_flag("--no-symmetry", a.no_symmetry,
               "plan symmetric contractions (C[I,J] = A[I,K] * A[J,K]) as general products (default: tbs may "
               "compute them in triangle blocks, reading A about sqrt(2) times less)");
  app.add_option("--max-writes", a.max_writes,
                 "plan only with plans whose fullest rank writes at most FACTOR times its share of each result "
                 "(1.0: write-avoiding, each result written once; for disks whose writes are dear or wear out)")
      ->check(CLI::PositiveNumber)
      ->type_name("FACTOR");
  app.add_option("--resident", a.resident,
                 "resident accumulation: statements adding into one tensor keep its blocks in memory from the "
                 "first to the last, so it is written once: auto (where disk writes are slower than reads, or "
                 "with --max-writes, and no method or order is forced), on (on every machine, where it is "
                 "faster or --max-writes asks for it), all (every group that fits, whatever its time) or off")
      ->check(CLI::IsMember({"auto", "on", "all", "off"}))
      ->default_str("auto");
  app.add_option("--plan", a.plans,
                 "pin the plan of the contraction at source line LINE to PLAN, the one-line plan text the dry-run "
                 "prints after 'plan:' (and --print-after plan after 'LINE='); checked against the machine as the "
                 "planner checks its own plans; used by the dry-run and by -o (repeatable)")
      ->type_name("LINE=PLAN")
      ->allow_extra_args(false);
  app.add_option("--print-after", a.print_after,
                 "print the program to stdout after this stage, then go on: parse (as parsed), split (products "
                 "of three or more operands split into binary contractions), ir (each statement's macro-index "
                 "GEMM), plan (each contraction's plan as LINE=PLAN, the form --plan takes)")
      ->check(CLI::IsMember({"parse", "split", "ir", "plan"}))
      ->type_name("STAGE");
}

/// Every option of tcec's command line, in --help's order.
void add_options(CLI::App& app, Args& a) {
  add_input_options(app, a);
  add_output_options(app, a);
  add_plan_options(app, a);
}

// --print-after ir: each statement and, for a contraction, its macro-index GEMM and extents.
std::string ir_text(const tcec::ir::Program& program) {
  std::string out;
  for (const tcec::ir::Statement& s : program.statements) {
    out += fmt::format("line {}: {}\n", s.loc.line, tcec::ir::format_statement(program, s));
    if (s.operands.size() != 2) {
      out += fmt::format("  copy of {} elements\n", program.elements(s.result.tensor));
      continue;
    }
    const tcec::ir::MacroIndexGemm g = tcec::ir::macro_index_gemm(program, s);
    out += fmt::format("  {}\n  |I| = {}, |J| = {}, |K| = {}{}\n", tcec::ir::format_macro_gemm(program, s, g),
                       g.extent_I, g.extent_J, g.extent_K, g.symmetric ? "; symmetric" : "");
  }
  return out;
}

// Prints --plan errors clang-style (with the source line) to stderr.
void print_pin_errors(const tcec::ir::Program& program, const std::vector<tcec::costmodel::PinError>& errors) {
  tcec::frontend::DiagnosticList list;
  std::ifstream in(program.file, std::ios::binary);
  std::ostringstream source;
  source << in.rdbuf();
  list.add_source(program.file, source.str());
  for (const tcec::costmodel::PinError& e : errors)
    list.add({tcec::frontend::Severity::Error, "err_plan_pin", e.loc.line ? program.file : "", e.loc, e.message});
  std::fputs(list.render().c_str(), stderr);
}

// The plan options of the command line; prints an error and returns nullopt when invalid.
std::optional<tcec::costmodel::PlanOptions> plan_options(const Args& a) {
  tcec::costmodel::PlanOptions options;
  options.handoff = !a.no_handoff;
  options.overlap = !a.no_overlap;
  options.symmetry = !a.no_symmetry;
  options.max_writes = a.max_writes;
  options.resident = a.resident == "on"    ? tcec::costmodel::ResidentMode::On
                     : a.resident == "all" ? tcec::costmodel::ResidentMode::All
                     : a.resident == "off" ? tcec::costmodel::ResidentMode::Off
                                           : tcec::costmodel::ResidentMode::Auto;
  options.split =
      a.memory_split == "thirds" ? tcec::costmodel::MemorySplit::Thirds : tcec::costmodel::MemorySplit::Optimal;
  if (!a.force_method.empty() && !tcec::costmodel::parse_method(a.force_method, &options)) {
    tcec::tools::report("tcec", ToolDiag::err_unknown_forced_method, a.force_method, tcec::costmodel::method_names());
    return std::nullopt;
  }
  for (const std::string& name : a.exclude_methods)
    if (!tcec::costmodel::parse_excluded_method(name, &options)) {
      tcec::tools::report("tcec", ToolDiag::err_unknown_excluded_method, name, tcec::costmodel::method_names());
      return std::nullopt;
    }
  if (!a.force_order.empty() && !tcec::costmodel::parse_order(a.force_order, &options)) {
    tcec::tools::report("tcec", ToolDiag::err_unknown_order, a.force_order);
    return std::nullopt;
  }
  return options;
}

// Parses the input and the machine; prints diagnostics; nullopt on error. Prints the program
// after parse and split when --print-after asks.
std::optional<tcec::ir::Program> load(const Args& a) {
  tcec::frontend::Options options;
  if (a.print_after == "parse" || a.print_after == "split")
    options.observe = [&a](std::string_view stage, const tcec::ir::Program& program) {
      if (stage == a.print_after) std::cout << tcec::ir::format_program(program) << std::flush;
    };
  options.defines = a.defines;
  options.format = a.from == "tccg"     ? tcec::frontend::InputFormat::Tccg
                   : a.from == "nwchem" ? tcec::frontend::InputFormat::Nwchem
                   : a.from == "tamm"   ? tcec::frontend::InputFormat::Tamm
                                        : tcec::frontend::InputFormat::Tce;
  options.section = a.section;
  options.function = a.function;
  options.point_group = a.point_group;
  options.restricted = a.restricted;
  options.irreps = a.irreps;
  if (!a.machine_file.empty()) {
    tcec::frontend::DiagnosticList diagnostics;
    options.machine = tcec::frontend::parse_machine_file(a.machine_file, diagnostics);
    std::fputs(diagnostics.render().c_str(), stderr);
    if (!options.machine) return std::nullopt;
  }
  auto result = tcec::frontend::parse_file(a.file, options);
  std::fputs(result.diagnostics.render().c_str(), stderr);
  if (!result.ok()) return std::nullopt;
  return result.program;
}

// `tcec compare TRACE.json`: its own small command line.
int compare_main(int argc, char** argv) {
  CLI::App app{
      "tcec compare: compares the volumes a generated program measured (its --trace file) "
      "with the cost model's prediction, rank by rank; exit status 1 on any difference"};
  app.name("tcec compare");
  std::string trace;
  app.add_option("trace", trace, "trace file written by a generated program (--trace FILE)")->required();
  std::optional<double> slack_mb, device_slack_mb;
  app.add_option("--resident-slack", slack_mb,
                 "also fail when a rank's peak resident memory (VmHWM) exceeds the program's tile memory per "
                 "rank plus MB megabytes (2^20 bytes): what MPI, BLAS and the program itself may take beyond "
                 "the tile buffers")
      ->type_name("MB")
      ->check(CLI::NonNegativeNumber);
  bool device = false;
  app.add_flag("--device", device,
               "also fail when a rank's process made the storage device read (or write) more than the predicted "
               "disk read (or write) plus a slack, over a contraction's compute phase or over the run "
               "(/proc/self/io; meaningful out of core, where the page cache cannot hold the tensors: "
               "docs/out-of-core.md)");
  app.add_option("--device-slack", device_slack_mb,
                 "the slack of --device per rank and check, in MB (2^20 bytes; default 32): page rounding, file "
                 "metadata, readahead past a transfer's end, the program's own code paged in")
      ->type_name("MB")
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  tcec::tools::CompareLimits limits;
  if (slack_mb) limits.resident_slack_bytes = static_cast<std::uint64_t>(*slack_mb * 1048576.0);
  if (device || device_slack_mb)
    limits.device_slack_bytes = static_cast<std::uint64_t>(device_slack_mb.value_or(32.0) * 1048576.0);
  return tcec::tools::run_compare(trace, limits);
}

/// --plan: pins each LINE=PLAN into `options`; false (the errors printed) when there is no
/// machine or a pin is refused.
bool pin(const Args& args, const tcec::ir::Program& program, const std::optional<tcec::costmodel::Machine>& machine,
         tcec::costmodel::PlanOptions& options) {
  if (!machine) {
    tcec::tools::report("tcec", ToolDiag::err_plan_needs_machine);
    return false;
  }
  const auto errors = tcec::costmodel::pin_plans(program, *machine, args.plans, &options);
  if (errors.empty()) return true;
  print_pin_errors(program, errors);
  return false;
}

/// --dry-run: the report of `plan` as text or JSON on stdout, and the SVG picture with --svg (which
/// needs a machine). Returns the exit status.
int print_dry_run(const Args& args, const tcec::costmodel::ProgramPlan& plan) {
  if (!args.svg.empty()) {
    if (!plan.machine) {
      tcec::tools::report("tcec", ToolDiag::err_svg_needs_machine);
      return 1;
    }
    std::string error;
    if (!tcec::tools::write_atomically(args.svg, tcec::costmodel::dry_run_svg(plan), &error)) {
      tcec::tools::report("tcec", ToolDiag::err_formed, error);
      return 1;
    }
  }
  if (args.json) {
    std::cout << tcec::costmodel::dry_run_json(plan).dump(2) << "\n";
  } else {
    std::cout << tcec::costmodel::dry_run_text(plan);
  }
  return 0;
}

/// -o DIR: writes (and with --build compiles) the program or library of `plan`, named after the
/// input file, or after the section or function taken from it. Returns the exit status.
int emit_program(const Args& args, const tcec::costmodel::ProgramPlan& plan) {
  const std::string stem = !args.section.empty()    ? args.section
                           : !args.function.empty() ? args.function
                                                    : std::filesystem::path(args.file).stem().string();
  const auto form = args.emit == "library" ? tcec::codegen::EmitForm::Library : tcec::codegen::EmitForm::Program;
  if (form == tcec::codegen::EmitForm::Library && args.build) {
    tcec::tools::report("tcec", ToolDiag::err_build_library);
    return 1;
  }
  return tcec::tools::generate_program(plan, stem, args.output_dir, args.build, form);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "compare") == 0) return compare_main(argc - 1, argv + 1);
  CLI::App app{
      "tcec: compiles tensor contractions into out-of-core parallel C++/MPI programs "
      "(Gao et al. cost model)"};
  app.set_version_flag("--version", std::string("tcec ") + TCEC_VERSION);
  app.footer(
      "Subcommand:\n  tcec compare TRACE.json   compare a generated program's measured volumes with the "
      "prediction (tcec compare --help)");
  Args args;
  add_options(app, args);
  CLI11_PARSE(app, argc, argv);
  try {
    auto options = plan_options(args);
    if (!options) return 1;
    auto program = load(args);
    if (!program) return 1;
    if (args.print_after == "ir") std::cout << ir_text(*program) << std::flush;
    std::optional<tcec::costmodel::Machine> machine;
    if (program->machine) machine = tcec::costmodel::machine_from(*program->machine);
    if (!args.plans.empty() && !pin(args, *program, machine, *options)) return 1;
    tcec::costmodel::ReportOptions report{args.all, *options};
    // The one plan of the program: the dry-run renders it, -o emits it.
    std::optional<tcec::costmodel::ProgramPlan> plan;
    if (args.dry_run || !args.output_dir.empty() || args.print_after == "plan")
      plan = tcec::costmodel::make_plan(*program, machine, report);
    if (args.print_after == "plan")
      std::cout << (machine ? tcec::costmodel::plan_lines(*plan)
                            : tcec::tools::message_text(ToolDiag::note_no_plan_without_machine) + "\n")
                << std::flush;
    if (args.dry_run) return print_dry_run(args, *plan);
    if (!args.output_dir.empty()) return emit_program(args, *plan);
    tcec::tools::report_plain("tcec", ToolDiag::note_no_errors, args.file);
    return 0;
  } catch (const std::exception& e) {
    tcec::tools::report_plain("tcec", ToolDiag::err_internal, e.what());
    return 2;
  }
}

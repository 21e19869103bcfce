// frontend/frontend.h — from source text to a checked ir::Program.
//
// Inputs: a .tce file (grammar/Tce.g4), a TCCG benchmark file, an NWChem TCE
// equation tree (frontend/nwchem.h), a function of a TAMM C++ program (frontend/tamm/tamm.h,
// read with Clang), or a machine file; command-line range
// overrides (-D NAME=VALUE). Output: an ir::Program
// that satisfies every invariant documented in ir/ir.h (a .tce product of three
// or more operands comes out as binary statements through new intermediates,
// frontend/split_terms.h), or diagnostics in the
// form FILE:LINE:COL: error: MESSAGE (clang style, with the source line and a
// caret). The frontend never throws for bad input and never asserts on it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "diag/diag.h"
#include "ir/ir.h"

namespace tcec::frontend {

/// The diagnostics engine's types (diag/diag.h), under the frontend's names: a Diagnostic's
/// `id` names it in frontend/diagnostics.def (or diag/diagnostics.def); `loc` is {0,0} for
/// diagnostics about the command line; `file` is the path as given.
using Severity = diag::Severity;
using Diagnostic = diag::Diagnostic;
using DiagnosticList = diag::DiagnosticList;

/// Input formats `tcec --from` accepts.
enum class InputFormat { Tce, Tccg, Nwchem, Tamm };

/// What the frontend needs besides the source text.
struct Options {
  /// -D NAME=VALUE range overrides, as written on the command line.
  std::vector<std::string> defines;
  InputFormat format = InputFormat::Tce;
  /// --section NAME (Nwchem only): import the equation tree under the header
  /// `### file: .../NAME.F`; empty: the file is one tree (or holds exactly one section).
  std::string section = {};
  /// --function NAME (Tamm only): import this function of the C++ file; empty: the file
  /// defines exactly one.
  std::string function = {};
  /// --point-group GROUP, --restricted, --irreps NAME=n0,n1,... (any format): symmetry blocks
  /// (ir.h PointGroup, Range::irreps), replacing the input's point group; checked as a .tce
  /// file's declarations are. Empty / false: the input's.
  std::string point_group = {};
  bool restricted = false;
  std::vector<std::string> irreps = {};
  /// --machine FILE (parse_machine_file): replaces the input's machine block, if any.
  std::optional<ir::MachineDesc> machine = {};
  /// Called, when the input has no errors, with the program after each stage (tcec
  /// --print-after): "parse" (a .tce product of three or more operands still one statement) and
  /// "split" (after term splitting, split_terms.h: the program parse_source() returns). Other
  /// input formats import binary statements: both see the imported program.
  std::function<void(std::string_view stage, const ir::Program& program)> observe = {};
};

/// A program, if the input had no errors, plus everything that was reported.
struct Result {
  std::optional<ir::Program> program;
  DiagnosticList diagnostics;
  bool ok() const { return program.has_value() && !diagnostics.has_errors(); }
};

/// Parses and checks `source` (named `file` in diagnostics) in `options.format`; then sets
/// options.machine, when given, as the program's machine and checks the declared
/// distributions against it (check_distributions).
Result parse_source(const std::string& file, std::string source, const Options& options);

/// Reads `path` and parses it; an unreadable file is an err_cannot_read_file diagnostic.
Result parse_file(const std::string& path, const Options& options);

/// Checks each declared distribution (ir::Distribution) against the program's machine: the grid (Distribution::grid_for)
/// has exactly P ranks and each grid dimension is at most the extent it splits. Errors
/// (err_distribute_grid_product, err_distribute_extent) go to `diagnostics` at the
/// declaration, in `program.file`. True when there is no machine or every check passes.
bool check_distributions(const ir::Program& program, DiagnosticList& diagnostics);

/// Reads a machine file: a file holding one machine block in .tce syntax.
/// Returns the machine, or nullopt with errors in `diagnostics`.
std::optional<ir::MachineDesc> parse_machine_file(const std::string& path, DiagnosticList& diagnostics);

/// parse_machine_file() on text already read: `source` is the whole machine file, named `file`
/// in diagnostics. Returns the machine, or nullopt with located errors in `diagnostics`.
std::optional<ir::MachineDesc> parse_machine_source(const std::string& file, const std::string& source,
                                                    DiagnosticList& diagnostics);

}  // namespace tcec::frontend

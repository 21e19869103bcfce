// diag/diag.h — the one diagnostics engine of the compiler's stages and its tools.
//
// Every user-facing message is an entry of a catalogue, a .def file of lines
//   TCEC_DIAG(id, severity, "fmt text")
// kept by the stage or tool that reports it (frontend/diagnostics.def, codegen/diagnostics.def,
// costmodel/reasons.def, tools/diagnostics.def; diag/diagnostics.def holds the engine's own).
// Messages start lower-case, have no trailing period and name the actual values: the {} are fmt
// placeholders, filled in order. A catalogue turns its lines into an enum of ids and a table of
// Message; this header formats a Message (format()), places it in a file (Diagnostic, Reporter),
// keeps a run's diagnostics (DiagnosticList) and renders them clang-style:
//   FILE:LINE:COL: error: MESSAGE        (then the source line and a caret under the column)
//   PROGRAM: error: MESSAGE              (location-less: the command line, the whole program)
// The engine sits just above ir (for ir::SourceLocation) and below every other stage.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "ir/ir.h"

namespace tcec::diag {

enum class Severity { Error, Warning, Note };

/// "error", "warning" or "note": the word rendered after the location.
const char* severity_name(Severity s);

/// One catalogue entry: its id's name (e.g. "err_undeclared_index"), its severity and its fmt
/// format string.
struct Message {
  const char* name;
  Severity severity;
  const char* text;
};

/// The text of `m` with `args` in its {} placeholders, in order. Throws fmt::format_error when
/// the arguments do not match the placeholders (a programming error, never bad input).
template <typename... Args>
std::string format(const Message& m, const Args&... args) {
  return fmt::vformat(m.text, fmt::make_format_args(args...));
}

/// One diagnostic. `id` is its name in its catalogue; `loc` is {0,0} for diagnostics about the
/// command line or the whole program (rendered "tcec: error: ..."). `file` is the path as given.
struct Diagnostic {
  Severity severity = Severity::Error;
  std::string id;
  std::string file;
  ir::SourceLocation loc;
  std::string message;
};

/// The diagnostic `m` in `file` at `loc` with the values of its {} placeholders, in order.
template <typename... Args>
Diagnostic make(const Message& m, std::string file, ir::SourceLocation loc, const Args&... args) {
  return {m.severity, m.name, std::move(file), loc, format(m, args...)};
}

/// Diagnostics of one run, in the order they were found, with the source
/// texts needed to render them. At most kMaxErrors errors are kept; the
/// next one is replaced by fatal_too_many_errors (diag/diagnostics.def).
class DiagnosticList {
 public:
  static constexpr int kMaxErrors = 20;

  const std::vector<Diagnostic>& all() const { return diagnostics_; }
  int error_count() const { return errors_; }
  bool has_errors() const { return errors_ > 0; }
  bool full() const { return errors_ >= kMaxErrors; }
  /// Past the limit: fatal_too_many_errors was added and every later diagnostic is dropped, so
  /// a front end may stop reading its input.
  bool stopped() const { return stopped_; }

  /// Adds `d`; past kMaxErrors errors, adds fatal_too_many_errors once and drops the rest.
  void add(Diagnostic d);
  /// Keeps `source` (the whole text of `file`) so render() can show its lines.
  void add_source(const std::string& file, std::string source);
  /// Adds the diagnostics and sources of `other`, in order.
  void append(const DiagnosticList& other);

  /// "FILE:LINE:COL: error: MESSAGE\n<source line>\n<caret>\n" for each (the source line only
  /// when add_source() gave the file's text; bytes outside printable ASCII shown as '?');
  /// "tcec: error: MESSAGE\n" for location-less ones.
  std::string render() const;

 private:
  std::vector<Diagnostic> diagnostics_;
  std::vector<std::pair<std::string, std::string>> sources_;
  int errors_ = 0;
  bool stopped_ = false;
};

/// Formats diagnostics for one file into a DiagnosticList.
class Reporter {
 public:
  Reporter(DiagnosticList& list, std::string file) : list_(list), file_(std::move(file)) {}

  /// Reports `m` at `loc` with the values of its {} placeholders, in order.
  template <typename... Args>
  void report(const Message& m, ir::SourceLocation loc, const Args&... args) {
    list_.add(make(m, file_, loc, args...));
  }

  const std::string& file() const { return file_; }
  bool full() const { return list_.full(); }
  /// DiagnosticList::stopped(): nothing more will be reported.
  bool stopped() const { return list_.stopped(); }
  bool has_errors() const { return list_.has_errors(); }
  int error_count() const { return list_.error_count(); }

 private:
  DiagnosticList& list_;
  std::string file_;
};

/// A tool's location-less line "PROGRAM: SEVERITY: MESSAGE\n", e.g.
/// "tcec: error: cannot create directory 'out': Permission denied\n".
template <typename... Args>
std::string tool_line(std::string_view program, const Message& m, const Args&... args) {
  return fmt::format("{}: {}: {}\n", program, severity_name(m.severity), format(m, args...));
}

/// tool_line() written to `stream` (the tools' stderr).
template <typename... Args>
void print(std::FILE* stream, std::string_view program, const Message& m, const Args&... args) {
  std::fputs(tool_line(program, m, args...).c_str(), stream);
}

}  // namespace tcec::diag

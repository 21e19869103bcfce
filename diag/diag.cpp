// diag/diag.cpp — the engine's own messages and clang-style rendering.
#include "diag/diag.h"

#include <algorithm>

namespace tcec::diag {

namespace {

enum class EngineId {
#define TCEC_DIAG(id, severity, text) id,
#include "diag/diagnostics.def"
};

constexpr Message kEngineTable[] = {
#define TCEC_DIAG(id, severity, text) {#id, Severity::severity, text},
#include "diag/diagnostics.def"
};

const Message& engine_message(EngineId id) { return kEngineTable[static_cast<int>(id)]; }

// Line `line` (1-based) of `text`, without its newline; empty if out of range.
std::string source_line(const std::string& text, int line) {
  std::size_t start = 0;
  for (int l = 1; l < line; ++l) {
    start = text.find('\n', start);
    if (start == std::string::npos) return {};
    ++start;
  }
  std::size_t end = text.find('\n', start);
  std::string out = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (!out.empty() && out.back() == '\r') out.pop_back();
  return out;
}

// Printable copy of a source line: bytes outside printable ASCII become '?'
// so that binary input cannot garble the terminal.
std::string printable(std::string line) {
  for (char& ch : line) {
    auto c = static_cast<unsigned char>(ch);
    if (c != '\t' && (c < 0x20 || c >= 0x7f)) ch = '?';
  }
  return line;
}

// Spaces (tabs where the line has tabs) up to `column`, then '^'.
std::string caret(const std::string& line, int column) {
  std::string out;
  for (int i = 0; i + 1 < column; ++i) {
    out += (i < static_cast<int>(line.size()) && line[i] == '\t') ? '\t' : ' ';
  }
  return out + "^";
}

}  // namespace

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

void DiagnosticList::add(Diagnostic d) {
  if (stopped_) return;
  if (d.severity == Severity::Error && errors_ >= kMaxErrors) {
    diagnostics_.push_back(make(engine_message(EngineId::fatal_too_many_errors), d.file, {}));
    stopped_ = true;
    return;
  }
  if (d.severity == Severity::Error) ++errors_;
  diagnostics_.push_back(std::move(d));
}

void DiagnosticList::add_source(const std::string& file, std::string source) {
  sources_.emplace_back(file, std::move(source));
}

void DiagnosticList::append(const DiagnosticList& other) {
  for (const auto& s : other.sources_) sources_.push_back(s);
  for (const auto& d : other.diagnostics_) add(d);
}

std::string DiagnosticList::render() const {
  std::string out;
  for (const Diagnostic& d : diagnostics_) {
    if (d.loc.line == 0) {
      out += fmt::format("tcec: {}: {}\n", severity_name(d.severity), d.message);
      continue;
    }
    out += fmt::format("{}:{}:{}: {}: {}\n", d.file, d.loc.line, d.loc.column, severity_name(d.severity), d.message);
    auto src = std::find_if(sources_.begin(), sources_.end(), [&](const auto& s) { return s.first == d.file; });
    if (src == sources_.end()) continue;
    std::string line = printable(source_line(src->second, d.loc.line));
    out += line + "\n" + caret(line, d.loc.column) + "\n";
  }
  return out;
}

}  // namespace tcec::diag

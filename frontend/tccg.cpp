// frontend/tccg.cpp — TCCG benchmark import: sections of `indices` and
// `extents` lines become one two-operand statement each (written as .tce
// text and checked by the same parser and semantic checks as any .tce file;
// their diagnostics point back at the TCCG lines each .tce line came from).
#include "frontend/tccg.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "frontend/diagnostics.h"

namespace tcec::frontend {

namespace {

struct Section {
  std::string name;    // "tccg_01"
  std::string suffix;  // "01"
  int line = 0;
  std::vector<std::string> indices;     // A, B, C index strings
  std::map<char, std::string> extents;  // letter -> decimal extent
  std::string indices_line;
  ir::SourceLocation indices_loc;                  // the value of `indices =`
  std::map<char, ir::SourceLocation> extent_locs;  // letter -> its `x:N` item
  bool broken = false;                             // a line of it was reported; compile nothing
};

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

bool is_letters(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isalpha(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool is_extent(const std::string& v) {
  if (v.empty() || v.size() > 13 || v.find_first_not_of("0123456789") != std::string::npos) return false;
  auto n = std::stoull(v);
  return n >= 1 && n <= ir::kMaxRangeExtent;
}

// Reads one `key = value` line into `s`. False after reporting.
bool read_line(Section& s, const std::string& line, int lineno, Reporter& r) {
  auto eq = line.find('=');
  const std::string key = eq == std::string::npos ? "" : trim(line.substr(0, eq));
  const std::string value = eq == std::string::npos ? "" : trim(line.substr(eq + 1));
  const int value_col = eq == std::string::npos ? 1 : static_cast<int>(line.find(value, eq)) + 1;
  if (key == "indices") {
    s.indices = split(value, '-');
    s.indices_line = value;
    s.indices_loc = {lineno, value_col};
    if (s.indices.size() == 3 && is_letters(s.indices[0]) && is_letters(s.indices[1]) && is_letters(s.indices[2]))
      return true;
    r.report(DiagId::err_tccg_bad_indices, {lineno, value_col}, value);
    return false;
  }
  if (key == "repeats") return true;  // a benchmark setting; nothing to compile
  if (key != "extents") {
    r.report(DiagId::err_tccg_bad_line, {lineno, 1});
    return false;
  }
  std::istringstream in(value);
  std::string item;
  while (in >> item) {
    const int col = static_cast<int>(line.find(item, eq)) + 1;
    if (item.size() < 3 || !std::isalpha(static_cast<unsigned char>(item[0])) || item[1] != ':' ||
        !is_extent(item.substr(2))) {
      r.report(DiagId::err_tccg_bad_extent, {lineno, col}, item);
      return false;
    }
    s.extents[item[0]] = item.substr(2);
    s.extent_locs[item[0]] = {lineno, col};
  }
  return true;
}

std::string ref(const std::string& tensor, const std::string& letters, const std::string& suffix) {
  std::string out = tensor + "_" + suffix + "[";
  for (std::size_t i = 0; i < letters.size(); ++i) out += fmt::format("{}{}_{}", i ? "," : "", letters[i], suffix);
  return out + "]";
}

// Appends the .tce text of one section to `out`, one line at a time, and for each line where in
// the TCCG file it comes from to `origins`; false after reporting a missing piece.
bool to_tce(const Section& s, Reporter& r, std::string& out, std::vector<ir::SourceLocation>& origins) {
  if (s.indices.empty()) {
    r.report(DiagId::err_tccg_incomplete, {s.line, 1}, s.name, "indices");
    return false;
  }
  std::string letters = s.indices[0] + s.indices[1] + s.indices[2];
  std::string declared;
  for (char c : letters) {
    if (declared.find(c) != std::string::npos) continue;
    declared += c;
    auto e = s.extents.find(c);
    if (e == s.extents.end()) {
      r.report(DiagId::err_tccg_missing_extent, {s.line, 1}, std::string(1, c), s.name);
      return false;
    }
    out += fmt::format("range {0}_{1} = {2}; index {0}_{1} : {0}_{1};\n", c, s.suffix, e->second);
    origins.push_back(s.extent_locs.at(c));
  }
  const char* names[] = {"A", "B", "C"};
  for (int t = 0; t < 3; ++t) {
    std::string dims;
    for (char c : s.indices[t]) dims += fmt::format("{}{}_{}", dims.empty() ? "" : ",", c, s.suffix);
    out += fmt::format("tensor {}_{}[{}] {};\n", names[t], s.suffix, dims, t == 2 ? "output" : "input");
    origins.push_back(s.indices_loc);
  }
  out += fmt::format("{} = {} * {};\n", ref("C", s.indices[2], s.suffix), ref("A", s.indices[0], s.suffix),
                     ref("B", s.indices[1], s.suffix));
  origins.push_back(s.indices_loc);
  return true;
}

// A section name becomes part of .tce identifiers: letters, digits and '_' only.
bool is_name(const std::string& name) {
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// The sections of `source`: each `[NAME]` header (checked: a name of letters, digits and '_',
// a suffix after the last '_' no other section has) and the `key = value` lines under it.
// Errors are reported; a section with one is marked broken.
std::vector<Section> read_sections(const std::string& source, Reporter& reporter) {
  std::vector<Section> sections;
  std::istringstream in(source);
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    if (t.front() == '[' && t.back() == ']') {
      Section s;
      s.name = t.substr(1, t.size() - 2);
      auto us = s.name.rfind('_');
      s.suffix = us == std::string::npos ? s.name : s.name.substr(us + 1);
      s.line = lineno;
      const ir::SourceLocation name_loc{lineno, static_cast<int>(line.find('[')) + 2};
      const auto same = std::find_if(sections.begin(), sections.end(),
                                     [&](const Section& other) { return other.suffix == s.suffix; });
      if (!is_name(s.name)) {
        reporter.report(DiagId::err_tccg_bad_section_name, name_loc, s.name);
        s.broken = true;
      } else if (same != sections.end()) {
        reporter.report(DiagId::err_tccg_duplicate_suffix, name_loc, s.name, s.suffix, same->name, same->line);
        s.broken = true;
      }
      sections.push_back(s);
      continue;
    }
    if (sections.empty()) {
      reporter.report(DiagId::err_tccg_expected_section, {lineno, 1});
      continue;
    }
    Section& s = sections.back();
    if (!read_line(s, line, lineno, reporter)) s.broken = true;
  }
  return sections;
}

}  // namespace

Result import_tccg(const std::string& file, std::string source, const Options& options) {
  Result result;
  result.diagnostics.add_source(file, source);
  Reporter reporter(result.diagnostics, file);
  const std::vector<Section> sections = read_sections(source, reporter);
  std::string tce;
  std::vector<ir::SourceLocation> origins;  // of each line of `tce`
  for (const Section& s : sections) {
    if (!s.broken) to_tce(s, reporter, tce, origins);
  }
  if (reporter.has_errors()) return result;
  Options tce_options = options;
  tce_options.format = InputFormat::Tce;
  const std::string tce_file = file + " (as .tce)";
  Result imported = parse_source(tce_file, tce, tce_options);
  // What the .tce checks report (a repeated or batch index, a tensor too large, two sections of
  // one name, ...) is an error in the TCCG file, at the text the .tce line came from.
  for (Diagnostic d : imported.diagnostics.all()) {
    if (d.file == tce_file) {
      d.file = file;
      if (d.loc.line >= 1 && !origins.empty()) d.loc = origins[std::min<std::size_t>(d.loc.line, origins.size()) - 1];
    }
    result.diagnostics.add(std::move(d));
  }
  if (imported.program) {
    auto& statements = imported.program->statements;
    for (std::size_t i = 0; i < statements.size() && i < sections.size(); ++i) {
      statements[i].source_text = fmt::format("[{}] indices = {}", sections[i].name, sections[i].indices_line);
      statements[i].loc = {sections[i].line, 1};
    }
    imported.program->file = file;
  }
  result.program = std::move(imported.program);
  return result;
}

}  // namespace tcec::frontend

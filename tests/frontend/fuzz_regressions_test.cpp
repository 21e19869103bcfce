// Inputs that probe the front ends' edges, and the inputs the fuzz targets (tests/fuzz/,
// bench/fuzz.sh) found (tests/frontend/fuzz_regressions/): each front end (.tce, --from tccg,
// --from nwchem, machine files) accepts each file or rejects it with errors located inside it,
// without crashing, as the fuzz targets require (tests/fuzz/fuzz_check.h).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "frontend/frontend.h"

namespace {

using tcec::frontend::DiagnosticList;

// Every diagnostic is in "fuzz.in" at a line and column of `source` (column up to one past the end
// of the line); a rejection has an error. fatal_too_many_errors follows 20 located errors.
void expect_located(const DiagnosticList& diagnostics, const std::string& source, bool accepted,
                    const std::string& what) {
  std::vector<int> lengths{0};
  for (char ch : source) {
    if (ch == '\n')
      lengths.push_back(0);
    else
      ++lengths.back();
  }
  for (const tcec::frontend::Diagnostic& d : diagnostics.all()) {
    EXPECT_EQ(d.file, "fuzz.in") << what << ": " << d.message;
    if (d.id == "fatal_too_many_errors") continue;
    EXPECT_GE(d.loc.line, 1) << what << ": " << d.message;
    EXPECT_LE(d.loc.line, static_cast<int>(lengths.size())) << what << ": " << d.message;
    if (d.loc.line < 1 || d.loc.line > static_cast<int>(lengths.size())) continue;
    EXPECT_GE(d.loc.column, 1) << what << ": " << d.message;
    EXPECT_LE(d.loc.column, lengths[d.loc.line - 1] + 1) << what << ": " << d.message;
  }
  EXPECT_EQ(accepted, !diagnostics.has_errors()) << what << ":\n" << diagnostics.render();
  EXPECT_EQ(diagnostics.render().empty(), diagnostics.all().empty()) << what;
}

TEST(FuzzRegressions, EveryFrontEndRejectsWithLocatedErrors) {
  const std::filesystem::path dir = std::filesystem::path(TCEC_SOURCE_DIR) / "tests/frontend/fuzz_regressions";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    ++files;
    for (auto format :
         {tcec::frontend::InputFormat::Tce, tcec::frontend::InputFormat::Tccg, tcec::frontend::InputFormat::Nwchem}) {
      tcec::frontend::Options options;
      options.format = format;
      if (format == tcec::frontend::InputFormat::Nwchem) options.defines = {"O=4", "V=6"};  // else a command-line error
      const tcec::frontend::Result r = tcec::frontend::parse_source("fuzz.in", source, options);
      expect_located(r.diagnostics, source, r.program.has_value(),
                     entry.path().filename().string() + " (format " + std::to_string(static_cast<int>(format)) + ")");
    }
    DiagnosticList diagnostics;
    const auto machine = tcec::frontend::parse_machine_source("fuzz.in", source, diagnostics);
    expect_located(diagnostics, source, machine.has_value(), entry.path().filename().string() + " (machine file)");
  }
  EXPECT_GE(files, 1);
}

}  // namespace

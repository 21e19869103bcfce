// Inputs that probe the front ends' edges, and the inputs the fuzz targets (tests/fuzz/,
// bench/fuzz.sh) found (tests/frontend/fuzz_regressions/): each front end (.tce, --from tccg,
// --from nwchem, machine files) accepts each file or rejects it with errors located inside it,
// without crashing, as the fuzz targets require (tests/fuzz/fuzz_check.h).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "frontend/frontend.h"
#include "fuzz_check.h"

namespace {

using tcec::frontend::DiagnosticList;

// The fuzz targets' requirements (tests/fuzz/fuzz_check.h diagnostics_problem()): every
// diagnostic in "fuzz.in" inside `source`, a rejection with an error, an acceptance without.
void expect_located(const DiagnosticList& diagnostics, const std::string& source, bool accepted,
                    const std::string& what) {
  EXPECT_EQ(tcec::fuzz::diagnostics_problem(diagnostics, tcec::fuzz::kFile, source, accepted), "")
      << what << ":\n"
      << diagnostics.render();
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

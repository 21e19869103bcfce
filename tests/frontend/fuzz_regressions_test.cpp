// Inputs that probe the front ends' edges, and where inputs a fuzzer finds belong
// (tests/frontend/fuzz_regressions/):
// each front end accepts each file or rejects it with located errors, without crashing.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "frontend/frontend.h"

namespace {

TEST(FuzzRegressions, EveryFrontEndRejectsWithLocatedErrors) {
  const std::filesystem::path dir = std::filesystem::path(TCEC_SOURCE_DIR) / "tests/frontend/fuzz_regressions";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    ++files;
    for (auto format :
         {tcec::frontend::InputFormat::Tce, tcec::frontend::InputFormat::Tccg, tcec::frontend::InputFormat::Nwchem}) {
      tcec::frontend::Options options;
      options.format = format;
      if (format == tcec::frontend::InputFormat::Nwchem) options.defines = {"O=4", "V=6"};  // else a command-line error
      const tcec::frontend::Result r = tcec::frontend::parse_source("fuzz.tce", text.str(), options);
      if (r.ok()) continue;
      for (const tcec::frontend::Diagnostic& d : r.diagnostics.all()) {
        if (d.severity != tcec::frontend::Severity::Error) continue;
        EXPECT_EQ(d.file, "fuzz.tce") << entry.path() << ": " << d.message;
        EXPECT_GE(d.loc.line, 1) << entry.path() << ": " << d.message;
        EXPECT_GE(d.loc.column, 1) << entry.path() << ": " << d.message;
      }
    }
  }
  EXPECT_GE(files, 1);
}

}  // namespace

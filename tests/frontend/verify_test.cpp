// tests/frontend/verify_test.cpp — clang -verify style diagnostics tests.
//
// Each file in tests/frontend/verify/ states the diagnostics it must produce
// in comments: `expected-error:COL {{message}}` (same line) or
// `expected-note@-2:COL {{message}}` (relative line). The test parses the
// file and requires exactly those diagnostics: same severity, line, column
// and message, none missing and none extra. A .cpp file is a TAMM program
// (--from tamm -D O=4 -D V=8, its one function).
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "frontend/frontend.h"

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> expectations(const std::string& text) {
  static const std::regex kExpect(R"(expected-(error|note)(@([+-]\d+))?:(\d+) \{\{(.*?)\}\})");
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    for (std::sregex_iterator it(line.begin(), line.end(), kExpect), end; it != end; ++it) {
      const auto& m = *it;
      int target = lineno + (m[3].matched ? std::stoi(m[3].str()) : 0);
      out.push_back(m[1].str() + " " + std::to_string(target) + ":" + m[4].str() + " " + m[5].str());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> produced(const tcec::frontend::DiagnosticList& list) {
  std::vector<std::string> out;
  for (const auto& d : list.all()) {
    const char* sev = d.severity == tcec::frontend::Severity::Note ? "note" : "error";
    out.push_back(std::string(sev) + " " + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.column) + " " +
                  d.message);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> verify_files() {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(TCEC_SOURCE_DIR) / "tests/frontend/verify")) {
    if (e.path().extension() == ".tce" || e.path().extension() == ".cpp") files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class Verify : public ::testing::TestWithParam<std::string> {};

TEST_P(Verify, DiagnosticsAreExactlyTheExpectedOnes) {
  fs::path path = fs::path(TCEC_SOURCE_DIR) / "tests/frontend/verify" / GetParam();
  std::string text = read(path);
  tcec::frontend::Options options;
  if (path.extension() == ".cpp") {
    options.format = tcec::frontend::InputFormat::Tamm;
    options.defines = {"O=4", "V=8"};
  }
  auto result = tcec::frontend::parse_source(GetParam(), text, options);
  auto want = expectations(text);
  ASSERT_FALSE(want.empty()) << "a verify file must expect at least one diagnostic";
  EXPECT_EQ(produced(result.diagnostics), want) << result.diagnostics.render();
  EXPECT_FALSE(result.ok());
}

INSTANTIATE_TEST_SUITE_P(Files, Verify, ::testing::ValuesIn(verify_files()), [](const auto& info) {
  std::string name = info.param.substr(0, info.param.find('.'));
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

}  // namespace

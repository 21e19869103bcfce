// Golden dry-runs: the report (text and JSON) of every example and of NWChem's CCSD sections,
// checked with LLVM's FileCheck against tests/tools/golden/NAME.txt.check and NAME.json.check.
// A check file holds, in report order, one `CHECK:` line for each line of the report that matters
// (check_lines below: each statement's header, the chosen line, every plan, the per-rank volumes,
// memory, wall time and redistribution, copy steps, the program's totals, hand-off and resident
// lines; in the JSON the plans' "text", the per-rank volume arrays, "memory_bytes_per_rank",
// "choice" and the top-level totals), so a line the report gains or loses elsewhere changes no
// check file, while every plan, exact volume and predicted time stays pinned. After an intended
// change, `TCEC_UPDATE_GOLDEN=1 ctest --test-dir build -R Golden` regenerates the check files from
// tcec's output by the same rule; review their diff.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>

namespace {

struct Golden {
  const char* name;  ///< check file stem
  const char* args;  ///< tcec arguments, run from the source directory
};

// The NWChem trees are the repository's copy in data/.
const Golden kGoldens[] = {
    {"matmul", "examples/matmul.tce"},
    {"four_index", "examples/four_index.tce"},
    {"ccsd_term", "examples/ccsd_term.tce"},
    {"ccd_terms", "examples/ccd_terms.tce --machine examples/osc.machine"},
    {"distributed", "examples/distributed.tce"},
    {"matmul_all", "examples/matmul.tce --all"},
    {"matmul_thirds", "examples/matmul.tce --memory-split thirds"},
    {"ccsd_e",
     "data/nwchem_tce_equation_trees.txt --from nwchem --section ccsd_e -D O=20 -D V=80 --machine "
     "examples/osc.machine"},
    {"ccsd_t1",
     "data/nwchem_tce_equation_trees.txt --from nwchem --section ccsd_t1 -D O=20 -D V=80 --machine "
     "examples/osc.machine"},
    {"ccsd_t2",
     "data/nwchem_tce_equation_trees.txt --from nwchem --section ccsd_t2 -D O=20 -D V=80 --machine "
     "examples/osc.machine"},
    {"ccd_t2",
     "data/nwchem_tce_equation_trees.txt --from nwchem --section ccd_t2 -D O=20 -D V=80 --machine "
     "examples/osc.machine"},
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A file name in the temporary directory, unique to this process: NAME becomes tcec_golden_PID_NAME.
std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tcec_golden_" + std::to_string(getpid()) + "_" + name)).string();
}

/// stdout of `tcec ARGS --dry-run` run from the source directory; exit status in *status.
std::string dry_run(const std::string& args, int* status) {
  const std::string out = temp_path("dry_run.out");
  const std::string cmd =
      std::string("cd ") + TCEC_SOURCE_DIR + " && " + TCEC_BINARY_DIR + "/bin/tcec " + args + " --dry-run >" + out;
  *status = WEXITSTATUS(std::system(cmd.c_str()));
  std::string text = slurp(out);
  std::filesystem::remove(out);
  return text;
}

/// S without its leading and trailing blanks.
std::string trim(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

/// LINE as a FileCheck pattern that matches it literally: FileCheck reads `[[` as a variable and
/// `{{` as a regular expression, so the first character of each such pair becomes a one-character
/// regular expression ({{[[]}} or {{[{]}}).
std::string escape(const std::string& line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if ((c == '[' || c == '{') && i + 1 < line.size() && line[i + 1] == c)
      out += c == '[' ? "{{[[]}}" : "{{[{]}}";
    else
      out += c;
  }
  return out;
}

// The text report's lines that matter, by their first words (after the indentation).
const char* const kTextPrefixes[] = {
    "machine:",  // the machine the plans are for
    "declared distributions",
    "chosen:",               // the method chosen and its total against the runner-up
    "plan:",                 // the plan, in --plan syntax
    "integer plan:",         // --all: each method's rounded plan
    "memory per rank:",      // each part of the plan's memory, in bytes
    "per rank (bytes,",      // disk read/write, sent, received, disk requests
    "wall time ",            // the predicted time of the compute stage
    "redistribution (",      // stages 1 and 3: volumes, time, total with the compute stage
    "copy step:",            // a copy statement's volumes and time
    "total predicted time",  // the program's total, and with hand-off
    "I/O lower bound:",      // the program's bound
    "writes per rank over the program",
    "line ",  // a step hand-off changes; a statement of a resident group
    "(",      // hand-off: "(N other steps ...)", "(the greedy pass ...)"
};

/// Whether LINE of a text dry-run report is one the check file pins (kTextPrefixes, a statement's
/// header `file:line: source`, a resident group's `tensor, lines a-b (n statements): ...`).
bool text_line_matters(const std::string& line) {
  static const std::regex header(R"(^\S+:[0-9]+: .*)");
  static const std::regex resident(R"(^\s+\S+, lines [0-9]+-[0-9]+ \([0-9]+ statements\): .*)");
  if (std::regex_match(line, header) || std::regex_match(line, resident)) return true;
  const std::string t = trim(line);
  for (const char* p : kTextPrefixes)
    if (t.rfind(p, 0) == 0) return true;
  return false;
}

// JSON keys whose line is pinned (an object or array value: the opening line only, an anchor).
const std::set<std::string> kJsonLineKeys = {"statement",
                                             "choice",
                                             "plan",
                                             "text",
                                             "chosen",
                                             "wall_s",
                                             "memory_bytes_per_rank",
                                             "memory_bytes",
                                             "peak_bytes",
                                             "handoffs",
                                             "io_lower_bound_s",
                                             "total_predicted_time_s",
                                             "store_total_predicted_time_s",
                                             "rejected_total_predicted_time_s"};
// JSON keys whose whole value is pinned, line by line (the per-rank arrays, the write totals).
const std::set<std::string> kJsonBlockKeys = {"disk_read_bytes",        "disk_write_bytes", "comm_sent_bytes",
                                              "comm_recv_bytes",        "disk_requests",    "program_writes",
                                              "resident_program_writes"};

/// The check file of REPORT (tcec's dry-run output; JSON when JSON): a `CHECK:` line for each line
/// that matters, in order, and `CHECK-NEXT:` for the lines of a block (kJsonBlockKeys) after its
/// first. One rule for the test and for TCEC_UPDATE_GOLDEN.
std::string check_lines(const std::string& report, bool json, const std::string& args) {
  std::string out = std::string("; tcec ") + args + " --dry-run" + (json ? " --json" : "") +
                    "\n; the lines that matter, in order (tests/tools/golden_test.cpp, check_lines); regenerate "
                    "with TCEC_UPDATE_GOLDEN=1\n";
  std::istringstream in(report);
  std::string line;
  int depth = 0;  // > 0: inside a pinned JSON block, this many brackets open
  static const std::regex key(R"re(^\s*"([A-Za-z0-9_]+)": (.*)$)re");
  while (std::getline(in, line)) {
    if (depth > 0) {
      out += "CHECK-NEXT: " + escape(trim(line)) + "\n";
      const std::string t = trim(line);
      if (!t.empty() && (t.back() == '[' || t.back() == '{')) ++depth;
      if (!t.empty() && (t[0] == ']' || t[0] == '}')) --depth;
      continue;
    }
    if (!json) {
      if (text_line_matters(line)) out += "CHECK: " + escape(trim(line)) + "\n";
      continue;
    }
    std::smatch m;
    if (!std::regex_match(line, m, key)) continue;
    const std::string k = m[1], value = m[2];
    if (kJsonBlockKeys.count(k)) {
      out += "CHECK: " + escape(trim(line)) + "\n";
      if (value == "[" || value == "{") depth = 1;
    } else if (kJsonLineKeys.count(k)) {
      out += "CHECK: " + escape(trim(line)) + "\n";
    }
  }
  return out;
}

/// Runs `FileCheck --match-full-lines CHECK_PATH` on INPUT (tcec's output, written to a temporary
/// file named after NAME); returns FileCheck's exit status (0: every check line matched) and its
/// messages (stderr, naming the check file's line) in *messages.
int file_check(const std::string& check_path, const std::string& input, const std::string& name,
               std::string* messages) {
  const std::string input_path = temp_path(name), err = temp_path(name + ".err");
  std::ofstream(input_path) << input;
  const std::string cmd =
      std::string(TCEC_FILECHECK) + " --match-full-lines " + check_path + " --input-file " + input_path + " 2>" + err;
  const int status = WEXITSTATUS(std::system(cmd.c_str()));
  *messages = slurp(err);
  std::filesystem::remove(input_path);
  std::filesystem::remove(err);
  return status;
}

/// file_check on CHECK, the contents of a check file (written to a temporary file).
int file_check_text(const std::string& check, const std::string& input, std::string* messages) {
  const std::string check_path = temp_path("self_test.check");
  std::ofstream(check_path) << check;
  const int status = file_check(check_path, input, "self_test.out", messages);
  std::filesystem::remove(check_path);
  return status;
}

class GoldenDryRun : public ::testing::TestWithParam<Golden> {};

TEST_P(GoldenDryRun, PinnedLinesAreUnchanged) {
  const Golden& g = GetParam();
  for (const bool json : {false, true}) {
    int status = 0;
    const std::string args = std::string(g.args) + (json ? " --json" : "");
    const std::string got = dry_run(args, &status);
    ASSERT_EQ(status, 0) << g.args;
    const std::string path =
        std::string(TCEC_SOURCE_DIR) + "/tests/tools/golden/" + g.name + (json ? ".json" : ".txt") + ".check";
    if (std::getenv("TCEC_UPDATE_GOLDEN")) {
      const std::string tmp = path + ".tmp";
      std::ofstream(tmp) << check_lines(got, json, g.args);
      std::filesystem::rename(tmp, path);
      continue;
    }
    ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing; run with TCEC_UPDATE_GOLDEN=1";
    std::string messages;
    EXPECT_EQ(file_check(path, got, std::string(g.name) + (json ? ".json.out" : ".txt.out"), &messages), 0)
        << "tcec " << args << " --dry-run does not match " << path << ":\n"
        << messages;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, GoldenDryRun, ::testing::ValuesIn(kGoldens),
                         [](const ::testing::TestParamInfo<Golden>& info) { return std::string(info.param.name); });

// The check cannot pass vacuously: matmul's check lines with a wrong plan (order ABC for CAB)
// make FileCheck fail and name the line, while the lines as generated pass.
TEST(GoldenCheck, WrongPlanLineFails) {
  int status = 0;
  const std::string got = dry_run("examples/matmul.tce", &status);
  ASSERT_EQ(status, 0);
  const std::string check = check_lines(got, false, "examples/matmul.tce");
  const std::string right = "CHECK: plan: inside-replication order=CAB ";
  const std::size_t at = check.find(right);
  ASSERT_NE(at, std::string::npos) << check;
  std::string wrong = check;
  wrong.replace(at, right.size(), "CHECK: plan: inside-replication order=ABC ");
  std::string messages;
  EXPECT_EQ(file_check_text(check, got, &messages), 0) << messages;
  EXPECT_NE(file_check_text(wrong, got, &messages), 0);
  EXPECT_NE(messages.find("error: CHECK: expected string not found in input"), std::string::npos) << messages;
  EXPECT_NE(messages.find("order=ABC"), std::string::npos) << messages;
}

// FileCheck's `[[` and `{{` in a report line are matched literally.
TEST(GoldenCheck, SpecialSequencesAreEscaped) {
  const std::string input = "machine: x[[y]] {{z}} [[[ {{{\n";
  std::string messages;
  EXPECT_EQ(file_check_text("CHECK: " + escape(trim(input)) + "\n", input, &messages), 0) << messages;
  EXPECT_NE(file_check_text("CHECK: " + escape("machine: x[[y]] {{z}} [[[ {{") + "\n", "machine: x[[y]] {{z}} [[[ {\n",
                            &messages),
            0);
}

}  // namespace

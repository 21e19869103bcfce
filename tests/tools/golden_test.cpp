// Golden dry-runs: the report (text and JSON) of every example and of NWChem's CCSD sections,
// byte for byte against tests/tools/golden/. They pin what users read, so a refactoring that
// changes none of it (the methods-as-modules work) can prove so. After an intended change,
// regenerate with `TCEC_UPDATE_GOLDEN=1 ctest -R golden` and review the diff.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <gtest/gtest.h>

namespace {

struct Golden {
  const char* name;  ///< golden file stem
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

/// stdout of `tcec ARGS` run from the source directory; exit status in *status.
std::string dry_run(const std::string& args, int* status) {
  const std::string out =
      (std::filesystem::temp_directory_path() / ("tcec_golden_" + std::to_string(getpid()) + ".out")).string();
  const std::string cmd =
      std::string("cd ") + TCEC_SOURCE_DIR + " && " + TCEC_BINARY_DIR + "/bin/tcec " + args + " --dry-run >" + out;
  *status = WEXITSTATUS(std::system(cmd.c_str()));
  std::string text = slurp(out);
  std::filesystem::remove(out);
  return text;
}

class GoldenDryRun : public ::testing::TestWithParam<Golden> {};

TEST_P(GoldenDryRun, TextAndJsonAreUnchanged) {
  const Golden& g = GetParam();
  for (const char* format : {"txt", "json"}) {
    int status = 0;
    const std::string got = dry_run(std::string(g.args) + (std::string(format) == "json" ? " --json" : ""), &status);
    ASSERT_EQ(status, 0) << g.args;
    const std::string path = std::string(TCEC_SOURCE_DIR) + "/tests/tools/golden/" + g.name + "." + format;
    if (std::getenv("TCEC_UPDATE_GOLDEN")) {
      std::ofstream(path) << got;
      continue;
    }
    ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing; run with TCEC_UPDATE_GOLDEN=1";
    EXPECT_EQ(got, slurp(path)) << "tcec " << g.args << " --dry-run" << (std::string(format) == "json" ? " --json" : "")
                                << " differs from " << path;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, GoldenDryRun, ::testing::ValuesIn(kGoldens),
                         [](const ::testing::TestParamInfo<Golden>& info) { return std::string(info.param.name); });

}  // namespace

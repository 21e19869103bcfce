// tests/tools/tcec_cli_test.cpp — the tcec driver as users run it: exit codes,
// --help/--version, dry-run text and JSON, diagnostics on stderr, -D, --machine, --from.
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

struct CliRun {
  int exit_code;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs build/bin/tcec with `args` (shell words), capturing stdout and stderr.
CliRun tcec(const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path();
  static int calls = 0;  // ctest runs tests in parallel processes: names unique per process and call
  const std::string stem = "tcec_cli_" + std::to_string(getpid()) + "_" + std::to_string(++calls);
  const std::string out = (dir / (stem + ".out")).string(), err = (dir / (stem + ".err")).string();
  std::string cmd = std::string(TCEC_BINARY_DIR) + "/bin/tcec " + args + " >" + out + " 2>" + err;
  int status = std::system(cmd.c_str());
  CliRun r{WEXITSTATUS(status), slurp(out), slurp(err)};
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

std::string example(const std::string& name) { return std::string(TCEC_SOURCE_DIR) + "/examples/" + name; }

TEST(Cli, HelpAndVersion) {
  CliRun help = tcec("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--dry-run"), std::string::npos);
  EXPECT_NE(help.out.find("--machine"), std::string::npos);
  CliRun version = tcec("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, "tcec 0.1.0\n");
}

TEST(Cli, MissingFileArgument) {
  CliRun r = tcec("");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("file is required"), std::string::npos);
}

TEST(Cli, DryRunOnEveryExample) {
  for (const char* name : {"matmul.tce", "four_index.tce", "ccsd_term.tce", "ccd_terms.tce"}) {
    CliRun r = tcec("--dry-run " + example(name));
    EXPECT_EQ(r.exit_code, 0) << name << r.err;
    EXPECT_EQ(r.err, "") << name;
    EXPECT_NE(r.out.find("A(I,K) * B(J,K)"), std::string::npos) << name;
  }
}

TEST(Cli, DryRunTextOfTheMatrixProduct) {
  CliRun r = tcec("--dry-run " + example("matmul.tce"));
  EXPECT_NE(r.out.find("matmul.tce:8: C[i,j] += A[i,k] * B[j,k];"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("C(I,J) += A(I,K) * B(J,K) with A = A, B = B; I = {i}, J = {j}, K = {k}"), std::string::npos);
  EXPECT_NE(r.out.find("|I| = 4000, |J| = 4000, |K| = 4000"), std::string::npos);
  EXPECT_NE(r.out.find("flops = 2·|I|·|J|·|K| = 1.28e+11"), std::string::npos);
}

TEST(Cli, DryRunJson) {
  CliRun r = tcec("--dry-run --json " + example("four_index.tce"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["machine"]["processors"], 4);
  EXPECT_EQ(j["machine"]["memory_bytes"], 64e6);
  ASSERT_EQ(j["contractions"].size(), 1u);
  const auto& c = j["contractions"][0];
  EXPECT_EQ(c["statement"], "T1[a,b,c,d] += A[a,b,c,p] * B[p,d];");
  EXPECT_EQ(c["line"], 7);
  EXPECT_EQ(c["I"], (nlohmann::json{"a", "b", "c"}));
  EXPECT_EQ(c["J"], (nlohmann::json{"d"}));
  EXPECT_EQ(c["K"], (nlohmann::json{"p"}));
  EXPECT_EQ(c["bytes"]["A"], 8ull * 800 * 800 * 800 * 800);
  EXPECT_EQ(c["bytes"]["B"], 8ull * 800 * 800);
  EXPECT_EQ(c["flops"], 2.0 * 800 * 800 * 800 * 800 * 800);
  EXPECT_EQ(c["permutation"]["B"], (nlohmann::json{1, 0}));
}

TEST(Cli, DefinesAndMachineFile) {
  CliRun r = tcec("--dry-run --json -D N=100 --machine " + example("osc.machine") + " " + example("matmul.tce"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["contractions"][0]["extents"]["I"], 100);
  EXPECT_EQ(j["machine"]["network_bytes_per_s"], 200e6);
}

TEST(Cli, ErrorsGoToStderrWithExitCodeOne) {
  const auto path = std::filesystem::temp_directory_path() / ("tcec_cli_bad_" + std::to_string(getpid()) + ".tce");
  std::ofstream(path) << "range N = 4;\nindex i : M;\n";
  CliRun r = tcec("--dry-run " + path.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, path.string() + ":2:11: error: use of undeclared range 'M'\nindex i : M;\n          ^\n");
  CliRun d = tcec("--dry-run -D Q=3 " + example("matmul.tce"));
  EXPECT_EQ(d.exit_code, 1);
  EXPECT_EQ(d.err, "tcec: error: -D Q=3: no range named 'Q'\n");
}

// Gao et al. Table 9: the three cells its own formulas reproduce (notes/gao-model.md):
// extents 4000, P = 4, M = 8e6 bytes per array, f_rep = sqrt(2), f_red = 1.4.
TEST(Cli, DryRunReproducesTable9) {
  const auto path = std::filesystem::temp_directory_path() / ("tcec_t9_" + std::to_string(getpid()) + ".machine");
  std::ofstream(path) << "machine t9 { processors 4; memory 24 MB; network 200 MB/s; disk 8 MB/s;\n"
                         "  replication_factor 1.4142135623730951; reduction_factor 1.4; }\n";
  CliRun r = tcec("--dry-run --json --machine " + path.string() + " " + example("matmul.tce"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["machine"]["array_memory_bytes"], 8e6);
  const auto& methods = j["contractions"][0]["methods"];
  auto find = [&](const std::string& comm, const std::string& algorithm) {
    for (const auto& m : methods) {
      if (m["comm"] == comm && m["algorithm"] == algorithm) return m;
    }
    return nlohmann::json();
  };
  struct Cell { const char* comm; const char* algorithm; double seconds; const char* order; };
  for (const Cell& c : {Cell{"inside", "rotation", 25.28, "CAB"}, Cell{"inside", "accumulation", 53.792, "ABC"},
                        Cell{"outside", "replication", 56.9, "CAB"}}) {
    auto m = find(c.comm, c.algorithm);
    ASSERT_FALSE(m.is_null()) << c.comm << " " << c.algorithm;
    EXPECT_NEAR(m["model_time_s"].get<double>(), c.seconds, 0.005 * c.seconds) << c.comm << " " << c.algorithm;
    EXPECT_EQ(m["order"], c.order);
  }
  EXPECT_EQ(find("inside", "accumulation")["case"], 3);
  EXPECT_EQ(j["contractions"][0]["chosen"]["algorithm"], "rotation");
  EXPECT_EQ(methods.size(), 6u);
}

TEST(Cli, DryRunJsonPlanHasExactPerRankVolumes) {
  // Table 9's problem with the paper's memory split, inside rotation forced in CAB: every rank
  // reads A Jt1 times, B It1 times and C once, writes C once, and receives (A·Jt1·Jt2 +
  // B·It1)/√P (notes' per-pass table; 4000 divides evenly, so all ranks agree exactly).
  const auto path = std::filesystem::temp_directory_path() / ("tcec_plan_" + std::to_string(getpid()) + ".machine");
  std::ofstream(path) << "machine t9 { processors 4; memory 24 MB; network 200 MB/s; disk 8 MB/s; }\n";
  CliRun r = tcec("--dry-run --json --memory-split thirds --force-method inside-rotation --force-order CAB --machine " +
                  path.string() + " " + example("matmul.tce"));
  std::filesystem::remove(path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto plan = nlohmann::json::parse(r.out)["contractions"][0]["plan"];
  ASSERT_TRUE(plan.is_object()) << r.out;
  EXPECT_EQ(plan["comm"], "inside");
  EXPECT_EQ(plan["algorithm"], "rotation");
  EXPECT_EQ(plan["order"], "CAB");
  EXPECT_EQ(plan["distribution"], (nlohmann::json{{"I", "i"}, {"J", "j"}, {"K", "k"}}));
  const double It1 = plan["tiles"]["It1"], Jt1 = plan["tiles"]["Jt1"], Jt2 = plan["tiles"]["Jt2"];
  const double A = 4000.0 * 4000 * 8, P = 4;
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(plan["disk_read_bytes"][rank].get<double>(), A / P * (Jt1 + It1 + 1));
    EXPECT_EQ(plan["disk_write_bytes"][rank].get<double>(), A / P);
    EXPECT_EQ(plan["comm_recv_bytes"][rank].get<double>(), (A * Jt1 * Jt2 + A * It1) / 2);
    EXPECT_EQ(plan["comm_sent_bytes"][rank], plan["comm_recv_bytes"][rank]);
  }
  EXPECT_LE(plan["time_s"].get<double>(), 1.05 * 25.28);
  EXPECT_GE(plan["time_s"].get<double>(), 25.28 * (1 - 1e-9));
  EXPECT_EQ(plan["text"].get<std::string>().rfind("inside-rotation order=CAB P=4 ", 0), 0u);
}

TEST(Cli, UnknownForcedMethodIsAnError) {
  CliRun r = tcec("--dry-run --force-method sideways " + example("matmul.tce"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "tcec: error: unknown method 'sideways' for --force-method (expected inside-rotation, "
                   "inside-replication, inside-accumulation, outside-rotation, outside-replication or "
                   "outside-accumulation)\n");
}

TEST(Cli, RotationNeedsASquareProcessorCount) {
  const auto path = std::filesystem::temp_directory_path() / ("tcec_p6_" + std::to_string(getpid()) + ".machine");
  std::ofstream(path) << "machine p6 { processors 6; memory 64 MB; network 200 MB/s; disk 8 MB/s; }\n";
  CliRun six = tcec("--dry-run --json --machine " + path.string() + " " + example("matmul.tce"));
  ASSERT_EQ(six.exit_code, 0) << six.err;
  auto j = nlohmann::json::parse(six.out);
  int rotations = 0;
  for (const auto& m : j["contractions"][0]["methods"]) {
    if (m["algorithm"] != "rotation") continue;
    ++rotations;
    EXPECT_EQ(m["feasible"], false);
    EXPECT_EQ(m["reason"], "P = 6 is not a perfect square");
  }
  EXPECT_EQ(rotations, 2);
}

TEST(Cli, TccgImport) {
  CliRun r = tcec("--dry-run --json --from tccg " + std::string(TCEC_SHARED_INPUTS) + "/tccg_benchmark_48_TAPP.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["contractions"].size(), 48u);
  EXPECT_EQ(j["machine"], nullptr);
}

}  // namespace

// tests/tools/tcec_cli_test.cpp — the tcec driver as users run it: exit codes,
// --help/--version, dry-run text and JSON, diagnostics on stderr, -D, --machine, --from,
// code generation (-o DIR [--build]) and `tcec compare TRACE.json`.
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
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

/// A file of the temporary directory named `prefix` + this process's id + `suffix`, removed when
/// the test ends, passed or failed.
class TempFile {
 public:
  TempFile(const std::string& prefix, const std::string& suffix)
      : path_(std::filesystem::temp_directory_path() / (prefix + std::to_string(getpid()) + suffix)) {}
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string string() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

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

// --svg: one bar per feasible candidate (the JSON's --all candidates), one of them chosen, the
// bound and the axis; rsvg-convert renders it (Debian librsvg2-bin, installed by the set-up).
TEST(Cli, SvgDrawsEveryCandidate) {
  const std::string svg =
      (std::filesystem::temp_directory_path() / ("tcec_" + std::to_string(getpid()) + ".svg")).string();
  const std::string args = std::string(TCEC_SOURCE_DIR) + "/examples/four_index.tce -D N=64 --machine " +
                           TCEC_SOURCE_DIR + "/examples/small.machine --dry-run";
  CliRun r = tcec(args + " --svg " + svg);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = slurp(svg);
  EXPECT_EQ(text.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  CliRun j = tcec(args + " --json --all");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  std::size_t feasible = 0;
  const nlohmann::json report = nlohmann::json::parse(j.out);
  for (const auto& c : report["contractions"][0]["candidates"])
    feasible += c["integer_plan"]["feasible"].get<bool>() ? 1 : 0;
  EXPECT_GT(feasible, 30u);
  EXPECT_EQ(count("<g class=\"bar"), feasible);
  EXPECT_EQ(count("<g class=\"bar chosen\""), 1u);
  EXPECT_EQ(count("class=\"bound\""), 1u);
  EXPECT_EQ(count(">predicted time (s)</text>"), 1u);
  EXPECT_NE(text.find("chosen: inside-replication"), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.substr(text.size() - 7), "</svg>\n");
  const std::string png = svg + ".png";
  if (std::system("command -v rsvg-convert > /dev/null") == 0) {
    ASSERT_EQ(std::system(("rsvg-convert -o " + png + " " + svg).c_str()), 0);
    EXPECT_EQ(slurp(png).substr(1, 3), "PNG");
    std::filesystem::remove(png);
  }
  std::filesystem::remove(svg);
  CliRun none = tcec(std::string(TCEC_SOURCE_DIR) + "/tests/package/square.tce --dry-run --svg " + svg);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.err, "tcec: error: --svg needs a machine (a machine block or --machine FILE)\n");
  EXPECT_FALSE(std::filesystem::exists(svg));
}

TEST(Cli, DefinesAndMachineFile) {
  CliRun r = tcec("--dry-run --json -D N=100 --machine " + example("osc.machine") + " " + example("matmul.tce"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["contractions"][0]["extents"]["I"], 100);
  EXPECT_EQ(j["machine"]["network_bytes_per_s"], 200e6);
}

TEST(Cli, DeclaredDistributions) {
  CliRun r = tcec("--dry-run --json " + example("distributed.tce"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tensors"]["A"]["distribution"], (nlohmann::json{{"dims", {0}}, {"grid", {4}}}));
  const auto redistribution = j["contractions"][0]["plan"]["redistribution"];
  EXPECT_EQ(redistribution["declared"], "A, B, C");
  // Replication of B keeps A's and C's row blocks; B moves from row blocks to K pieces: each
  // rank keeps a quarter of its 32 MB block and sends the rest.
  EXPECT_EQ(j["contractions"][0]["plan"]["algorithm"], "replication");
  EXPECT_EQ(redistribution["comm_sent_bytes"], (nlohmann::json{24000000, 24000000, 24000000, 24000000}));
  // The declared grid (4) does not fit a 9-processor machine; the error points at the declaration.
  const TempFile path("tcec_cli_p9_", ".machine");
  std::ofstream(path.path()) << "machine nine { processors 9; memory 256 MB; network 1 GB/s; disk 500 MB/s; }\n";
  CliRun nine = tcec("--dry-run --machine " + path.string() + " " + example("distributed.tce"));
  EXPECT_EQ(nine.exit_code, 1);
  EXPECT_EQ(
      nine.err,
      example("distributed.tce") +
          ":12:1: error: the grid of 'C' has 4 ranks, but the machine has 9 "
          "processors\ndistribute C[i,j] over (i) grid (4); # the grid may also be given; its product must be P\n^\n");
}

TEST(Cli, ErrorsGoToStderrWithExitCodeOne) {
  const TempFile path("tcec_cli_bad_", ".tce");
  std::ofstream(path.path()) << "range N = 4;\nindex i : M;\n";
  CliRun r = tcec("--dry-run " + path.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, path.string() + ":2:11: error: use of undeclared range 'M'\nindex i : M;\n          ^\n");
  CliRun d = tcec("--dry-run -D Q=3 " + example("matmul.tce"));
  EXPECT_EQ(d.exit_code, 1);
  EXPECT_EQ(d.err, "tcec: error: -D Q=3: no range named 'Q'\n");
}

// Gao et al. Table 9: the three cells its own formulas reproduce (docs/model.md "Reproducing Table 9"):
// extents 4000, P = 4, M = 8e6 bytes per array, f_rep = sqrt(2), f_red = 1.4.
TEST(Cli, DryRunReproducesTable9) {
  const TempFile path("tcec_t9_", ".machine");
  std::ofstream(path.path()) << "machine t9 { processors 4; memory 24 MB; network 200 MB/s; disk 8 MB/s;\n"
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
  struct Cell {
    const char* comm;
    const char* algorithm;
    double seconds;
    const char* order;
  };
  for (const Cell& c : {Cell{"inside", "rotation", 25.28, "CAB"}, Cell{"inside", "accumulation", 53.792, "ABC"},
                        Cell{"outside", "replication", 56.9, "CAB"}}) {
    auto m = find(c.comm, c.algorithm);
    ASSERT_FALSE(m.is_null()) << c.comm << " " << c.algorithm;
    EXPECT_NEAR(m["model_time_s"].get<double>(), c.seconds, 0.005 * c.seconds) << c.comm << " " << c.algorithm;
    EXPECT_EQ(m["order"], c.order);
  }
  EXPECT_EQ(find("inside", "accumulation")["case"], 3);
  // The methods table's fastest row (model, compute stage only) is rotation's; the chosen plan,
  // by total time with stages 1 and 3, is the "plan" the program runs.
  EXPECT_EQ(j["contractions"][0]["fastest_row"]["algorithm"], "rotation");
  EXPECT_EQ(j["contractions"][0]["chosen"]["algorithm"], j["contractions"][0]["plan"]["algorithm"]);
  EXPECT_EQ(methods.size(), 8u);  // the six Gao methods, then cosma and sfc
}

TEST(Cli, DryRunJsonPlanHasExactPerRankVolumes) {
  // Table 9's problem with the paper's memory split, inside rotation forced in CAB: every rank
  // reads A Jt1 times and B It1 times, writes C once (C starts from zero: its one pass reads
  // nothing, where the paper's model reads it once), and receives (A·Jt1·Jt2 + B·It1)/√P
  // (notes' per-pass table; 4000 divides evenly, so all ranks agree exactly).
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
    EXPECT_EQ(plan["disk_read_bytes"][rank].get<double>(), A / P * (Jt1 + It1));
    EXPECT_EQ(plan["disk_write_bytes"][rank].get<double>(), A / P);
    EXPECT_EQ(plan["comm_recv_bytes"][rank].get<double>(), (A * Jt1 * Jt2 + A * It1) / 2);
    EXPECT_EQ(plan["comm_sent_bytes"][rank], plan["comm_recv_bytes"][rank]);
  }
  // The model optimum, 25.28 s, less the read of C at 8 MB/s the plan skips.
  const double model = 25.28 - A / P / 8e6;
  EXPECT_LE(plan["time_s"].get<double>(), 1.05 * model);
  EXPECT_GE(plan["time_s"].get<double>(), model * (1 - 1e-9));
  EXPECT_EQ(plan["text"].get<std::string>().rfind("inside-rotation order=CAB P=4 ", 0), 0u);
}

TEST(Cli, UnknownForcedMethodIsAnError) {
  CliRun r = tcec("--dry-run --force-method sideways " + example("matmul.tce"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "tcec: error: unknown method 'sideways' for --force-method (expected inside-rotation, "
            "inside-replication, inside-accumulation, outside-rotation, outside-replication, "
            "outside-accumulation, cosma, tbs or sfc)\n");
}

TEST(Cli, ExcludedMethodsDoNotPlanAndUnknownOnesAreAnError) {
  CliRun r = tcec("--dry-run --exclude-method sideways " + example("matmul.tce"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("tcec: error: unknown method 'sideways' for --exclude-method (expected inside-rotation, ", 0),
            0u)
      << r.err;
  CliRun ok = tcec("--dry-run --exclude-method cosma --exclude-method sfc " + example("matmul.tce"));
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out.find("    cosma "), std::string::npos) << ok.out;
  EXPECT_EQ(ok.out.find("    sfc "), std::string::npos);
  EXPECT_NE(ok.out.find("    inside rotation "), std::string::npos);
}

TEST(Cli, RotationNeedsASquareProcessorCount) {
  const TempFile path("tcec_p6_", ".machine");
  std::ofstream(path.path()) << "machine p6 { processors 6; memory 64 MB; network 200 MB/s; disk 8 MB/s; }\n";
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
  CliRun r = tcec("--dry-run --json --from tccg " + std::string(TCEC_DATA_DIR) + "/tccg_benchmark_48_TAPP.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["contractions"].size(), 48u);
  EXPECT_EQ(j["machine"], nullptr);
}

// --- code generation: tcec FILE -o DIR [--emit program|library] [--build] ---

// A fresh, empty directory name under the temporary directory (not created).
std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("tcec_cli_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

std::filesystem::path write_tce(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(getpid()) + ".tce");
  std::ofstream(path) << text;
  return path;
}

const char* kTwoMatrices =
    "range N = 40;\nindex i, j, k : N;\ntensor A[N,N] input;\ntensor B[N,N] input;\n"
    "tensor C[N,N] output;\ntensor E[N,N] output;\n";

TEST(Cli, GenerateWritesTheProgram) {
  const auto dir = fresh_dir("gen") / "nested";
  CliRun r = tcec(example("matmul.tce") + " -o " + dir.string() + " --force-method inside-rotation --force-order CAB");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "tcec: wrote " + (dir / "matmul.cpp").string() + " (1 contraction)\n");
  EXPECT_EQ(r.err, "");
  const std::string text = slurp((dir / "matmul.cpp").string());
  EXPECT_EQ(text.rfind("// Generated by tcec 0.1.0 from " + example("matmul.tce") + " — do not edit.\n", 0), 0u);
  EXPECT_NE(text.find("#include \"runtime/tcert.h\""), std::string::npos);
  EXPECT_NE(text.find("// Plan: inside-rotation order=CAB P=4 "), std::string::npos);
  EXPECT_NE(text.find("x.cannon_multiply("), std::string::npos);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1);  // no temporary left
  std::filesystem::remove_all(dir.parent_path());
}

TEST(Cli, GenerateNeedsAMachine) {
  const auto path = write_tce("tcec_nomachine", std::string(kTwoMatrices) + "C[i,j] = A[i,k] * B[j,k];\n");
  const auto dir = fresh_dir("nomachine");
  CliRun r = tcec(path.string() + " -o " + dir.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "tcec: error: no machine to plan for: give --machine FILE or add a machine block to '" +
                       path.string() + "'\n");
  EXPECT_FALSE(std::filesystem::exists(dir));
  CliRun with = tcec(path.string() + " -o " + dir.string() + " --machine " + example("osc.machine"));
  EXPECT_EQ(with.exit_code, 0) << with.err;
  EXPECT_TRUE(std::filesystem::exists(dir / (path.stem().string() + ".cpp")));
  std::filesystem::remove_all(dir);
  std::filesystem::remove(path);
}

// Copies and chains of statements generate (code generation runs whole programs).
TEST(Cli, GenerateAcceptsCopiesAndChainedStatements) {
  const auto path =
      write_tce("tcec_chain", std::string(kTwoMatrices) +
                                  "C[i,j] = A[i,k] * B[j,k];\nE[i,j] = C[i,k] * B[k,j];\n  E[i,j] += A[j,i];\n");
  const auto dir = fresh_dir("chain");
  CliRun r = tcec(path.string() + " -o " + dir.string() + " --machine " + example("osc.machine"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(std::filesystem::exists(dir / (path.stem().string() + ".cpp")));
  std::filesystem::remove_all(dir);
  std::filesystem::remove(path);
}

// On a machine of several nodes with node-local scratch (ranks_per_node), the program is
// generated with no warning, and the dry-run notes the steps that go through the store (one
// directory per node, each version copied to every node).
TEST(Cli, GenerateNotesWhereANodeLocalScratchGoesThroughTheStore) {
  const auto path = write_tce("tcec_nodes",
                              "range N = 40;\nindex i, j, k : N;\ntensor A[N,N] input;\n"
                              "tensor B[N,N] input;\ntensor X[N,N];\ntensor Y[N,N];\n"
                              "tensor Z[N,N] output;\nX[i,j] = A[i,k] * B[k,j];\nY[i,j] = X[j,i];\n"
                              "Z[i,j] = Y[i,k] * B[k,j];\n"
                              "machine nodes { processors 4; memory 8 MB; network 1 GB/s; "
                              "disk 500 MB/s; ranks_per_node 2; }\n");
  const auto dir = fresh_dir("nodes");
  CliRun r = tcec(path.string() + " -o " + dir.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(std::filesystem::exists(dir / (path.stem().string() + ".cpp")));
  CliRun dry = tcec(path.string() + " --dry-run");
  EXPECT_NE(dry.out.find("  line 9: note: through the store, copied to every node: its operand X, kept on the "
                         "ranks, is flushed to the store for a copy step\n"),
            std::string::npos)
      << dry.out;
  EXPECT_NE(dry.out.find(", 2 nodes of 2 processors, each with node-local scratch\n"), std::string::npos) << dry.out;
  std::filesystem::remove_all(dir);
  std::filesystem::remove(path);
}

// --emit library: the header and the source, named after the function; no --build.
TEST(Cli, EmitLibraryWritesHeaderAndSource) {
  const auto dir = fresh_dir("library");
  CliRun r = tcec(example("matmul.tce") + " -o " + dir.string() + " --emit library");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "tcec: wrote " + (dir / "matmul.h").string() + " and " + (dir / "matmul.cpp").string() +
                       " (1 contraction): tcec_gen::matmul()\n");
  EXPECT_EQ(r.err, "");
  EXPECT_NE(slurp((dir / "matmul.h").string()).find("tcert::Status matmul(MPI_Comm comm, "), std::string::npos);
  const std::string source = slurp((dir / "matmul.cpp").string());
  EXPECT_NE(source.find("#include \"matmul.h\"\n"), std::string::npos);
  EXPECT_EQ(source.find("int main("), std::string::npos);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files += entry.is_regular_file();
  EXPECT_EQ(files, 2);  // no temporary left
  CliRun build = tcec(example("matmul.tce") + " -o " + dir.string() + " --emit library --build");
  EXPECT_EQ(build.exit_code, 1);
  EXPECT_EQ(build.err,
            "tcec: error: --build compiles programs; compile the library form into your own project "
            "(CMake: tcec_add_library)\n");
  CliRun bad = tcec(example("matmul.tce") + " -o " + dir.string() + " --emit header");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--emit"), std::string::npos) << bad.err;
  CliRun alone = tcec(example("matmul.tce") + " --emit library");
  EXPECT_NE(alone.exit_code, 0);
  EXPECT_NE(alone.err.find("--emit requires --output-dir"), std::string::npos) << alone.err;
  std::filesystem::remove_all(dir);
}

TEST(Cli, BuildNeedsAnOutputDirectory) {
  CliRun r = tcec(example("matmul.tce") + " --build");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--build requires --output-dir"), std::string::npos) << r.err;
}

// TCEC_CXX replaces the compiler; a failing compiler's output is shown and nothing is left.
TEST(Cli, FailedBuildIsReported) {
  const auto dir = fresh_dir("badbuild");
  std::filesystem::create_directories(dir);
  const auto compiler = dir / "broken-cxx";
  std::ofstream(compiler) << "#!/bin/sh\necho \"broken-cxx: cannot compile $4\" >&2\nexit 1\n";
  std::filesystem::permissions(compiler, std::filesystem::perms::owner_all);
  setenv("TCEC_CXX", compiler.c_str(), 1);
  CliRun r = tcec(example("matmul.tce") + " -o " + dir.string() + " --build");
  unsetenv("TCEC_CXX");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "tcec: wrote " + (dir / "matmul.cpp").string() + " (1 contraction)\n");
  EXPECT_EQ(r.err, "broken-cxx: cannot compile " + (dir / "matmul.cpp").string() + "\n" + "tcec: error: building " +
                       (dir / "matmul").string() + " failed\n");
  EXPECT_FALSE(std::filesystem::exists(dir / "matmul"));
  EXPECT_FALSE(std::filesystem::exists(dir / "matmul.tmp"));
  std::filesystem::remove_all(dir);
}

// The real tool chain: mpicxx against libtcert.a (built with tcec).
TEST(Cli, BuildMakesAnExecutable) {
  const auto dir = fresh_dir("build");
  CliRun r = tcec(example("matmul.tce") + " -D N=64 -o " + dir.string() + " --build");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "tcec: wrote " + (dir / "matmul.cpp").string() + " (1 contraction)\ntcec: built " +
                       (dir / "matmul").string() + "\n");
  EXPECT_EQ(access((dir / "matmul").c_str(), X_OK), 0);
  EXPECT_FALSE(std::filesystem::exists(dir / "matmul.tmp"));
  std::filesystem::remove_all(dir);
}

// --- tcec compare TRACE.json ---

// A trace of one contraction on two ranks whose measured disk writes are `writes`.
std::filesystem::path write_trace(const std::string& name, const std::string& writes, bool verify_passed = true,
                                  const std::string& planned_memory = "") {
  const auto path = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << R"({"program": "matmul", "processors": 2, "contractions": [{
  "statement": "C[i,j] += A[i,k] * B[j,k]", "plan": "inside-replication order=ABC P=2 bcast=A I=i:1x1 J=j:1x1 K=k:1x1 dist=-,j,k split=optimal",
  "comm": "inside", "algorithm": "replication", "order": "ABC",
  "predicted": {"disk_read_bytes": [300, 300], "disk_write_bytes": [100, 100], "comm_sent_bytes": [50, 60], "comm_recv_bytes": [60, 50],
                "seconds": 0.75},
  "measured": {"disk_read_bytes": [300, 300], "disk_write_bytes": )" +
                             writes + R"(, "comm_sent_bytes": [50, 60], "comm_recv_bytes": [60, 50],
               "seconds": [0.5, 0.25], "disk_seconds": [0.25, 0.125], "comm_seconds": [0.125, 0.0625], "kernel_seconds": [0.0625, 0.03125]},
  "peak_tile_memory_bytes": [4096, 2048])" +
                             planned_memory + R"(}],
  "verify": {"checked": 2000, "max_rel_error": 1e-15, "passed": )" +
                             (verify_passed ? "true" : "false") + "}}\n";
  return path;
}

TEST(Cli, CompareMatchingTrace) {
  const auto path = write_trace("tcec_trace_ok", "[100, 100]");
  CliRun r = tcec("compare " + path.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "trace " + path.string() +
                ": program matmul, P = 2, 1 contraction\n"
                "contraction 1: C[i,j] += A[i,k] * B[j,k]\n"
                "  plan: inside-replication order=ABC P=2 bcast=A I=i:1x1 J=j:1x1 K=k:1x1 dist=-,j,k split=optimal\n"
                "  volume      predicted total  measured total  predicted max  measured max  per rank\n"
                "  disk read               600             600            300           300  equal\n"
                "  disk write              200             200            100           100  equal\n"
                "  sent                    110             110             60            60  equal\n"
                "  received                110             110             60            60  equal\n"
                "  time (s): predicted 0.75 (the model's wall time of the compute stage: disk, network and kernel)\n"
                "  time (s): measured 0.25 .. 0.5 over ranks; slowest rank 0 busy in disk 0.25, network 0.125, kernel "
                "0.0625\n"
                "  wall time: predicted / measured (slowest rank) = 1.500 (+50%)\n"
                "  peak tile memory: 4096 bytes (largest rank)\n"
                "verify: 2000 elements checked, max relative error 1e-15: passed\n"
                "all measured volumes equal the prediction\n");
  std::filesystem::remove(path);
}

TEST(Cli, CompareShowsTheTimeOfStagesOneAndThree) {
  const auto path =
      write_trace("tcec_trace_stages", "[100, 100]", true,
                  R"(, "redistribution": {"predicted": {"disk_read_bytes": [10, 10], "disk_write_bytes": [5, 5],
                                    "seconds": 0.5}, "measured": {"disk_read_bytes": [10, 10], "disk_write_bytes": [5, 5],
                                    "seconds": [0.25, 0.375]}})");
  CliRun r = tcec("compare " + path.string());
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("  stages 1 and 3 (s): predicted 0.5, measured 0.375 (slowest rank)\n"), std::string::npos)
      << r.out;
  std::filesystem::remove(path);
}

TEST(Cli, CompareHoldsThePeakMemoryToThePlan) {
  const auto within = write_trace("tcec_trace_memory_ok", "[100, 100]", true, R"(, "planned_memory_bytes": 4096)");
  CliRun ok = tcec("compare " + within.string());
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_NE(ok.out.find("  peak tile memory: 4096 bytes (largest rank); planned 4096 bytes: within\n"),
            std::string::npos)
      << ok.out;
  const auto over = write_trace("tcec_trace_memory_over", "[100, 100]", true, R"(, "planned_memory_bytes": 4000)");
  CliRun bad = tcec("compare " + over.string());
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("  peak tile memory: 4096 bytes (largest rank); planned 4000 bytes: EXCEEDED\n"),
            std::string::npos)
      << bad.out;
  EXPECT_EQ(bad.out.substr(bad.out.rfind('\n', bad.out.size() - 2) + 1), "1 mismatch\n");
  std::filesystem::remove(within);
  std::filesystem::remove(over);
}

TEST(Cli, CompareShowsThePeakResidentMemory) {
  const auto path = std::filesystem::temp_directory_path() / ("tcec_trace_rss_" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << R"({"program": "p", "processors": 2, "memory_bytes": 8000000, "contractions": [],
  "peak_resident_bytes": [52000000, 61000000]})"
                      << "\n";
  CliRun r = tcec("compare " + path.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("peak resident memory: 61000000 bytes (largest rank; MPI, the program and touched mapped files "
                       "included), tile memory 8000000 bytes per rank\n"),
            std::string::npos)
      << r.out;
  std::ofstream(path) << R"({"program": "p", "processors": 2, "contractions": [], "peak_resident_bytes": [1]})"
                      << "\n";
  r = tcec("compare " + path.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("peak_resident_bytes: expected 2 non-negative integers (one per rank)"), std::string::npos)
      << r.err;
  std::filesystem::remove(path);
}

// The import of HDF5 inputs and the export of outputs: shown, outside the contractions.
TEST(Cli, CompareShowsTheFileTransfers) {
  const auto path = std::filesystem::temp_directory_path() / ("tcec_trace_files_" + std::to_string(getpid()) + ".json");
  std::ofstream(path) << R"({"program": "p", "processors": 2, "contractions": [], "files": {
  "import": {"disk_read_bytes": [100, 60], "disk_write_bytes": [100, 60], "seconds": [0.25, 0.5]},
  "export": {"disk_read_bytes": [40, 40], "disk_write_bytes": [40, 40], "seconds": [0.125, 0.0]}}})"
                      << "\n";
  CliRun r = tcec("compare " + path.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("files (outside the contractions, all ranks): HDF5 inputs imported 160 B read + 160 B written "
                       "(0.500 s), outputs exported 80 B read + 80 B written (0.125 s)\n"),
            std::string::npos)
      << r.out;
  std::ofstream(path) << R"({"program": "p", "processors": 2, "contractions": [], "files": {"import": {}}})"
                      << "\n";
  r = tcec("compare " + path.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("files.import.disk_read_bytes: missing"), std::string::npos) << r.err;
  std::filesystem::remove(path);
}

TEST(Cli, CompareMismatchingTrace) {
  const auto path = write_trace("tcec_trace_bad", "[100, 101]");
  CliRun r = tcec("compare " + path.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("  disk write              200             201            100           101  differs on 1 rank\n"
                       "    rank 1: predicted 100, measured 101\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  disk read               600             600            300           300  equal\n"),
            std::string::npos);
  EXPECT_EQ(r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1), "1 mismatch\n");
  std::filesystem::remove(path);
}

TEST(Cli, CompareFailsOnFailedVerification) {
  const auto path = write_trace("tcec_trace_verify", "[100, 100]", false);
  CliRun r = tcec("compare " + path.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("verify: 2000 elements checked, max relative error 1e-15: FAILED\n"), std::string::npos);
  std::filesystem::remove(path);
}

// --resident-slack MB: every rank's peak resident memory within the tile memory + MB (issue 21).
TEST(Cli, CompareHoldsTheResidentMemoryToALimit) {
  const auto path = write_trace("tcec_trace_resident", "[100, 100]");
  std::string text;
  {
    std::ifstream in(path);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string head = R"({"program": "matmul", "processors": 2,)";
  ASSERT_EQ(text.rfind(head, 0), 0u);
  // 1 MiB of tile memory; rank 1 peaks at 1 MiB + 66 MiB.
  std::ofstream(path) << head << R"( "memory_bytes": 1048576, "peak_resident_bytes": [2097152, 70254592],)"
                      << text.substr(head.size());
  CliRun plain = tcec("compare " + path.string());
  EXPECT_EQ(plain.exit_code, 0) << plain.out;
  EXPECT_NE(plain.out.find("peak resident memory: 70254592 bytes (largest rank; MPI, the program and touched mapped "
                           "files included), tile memory 1048576 bytes per rank\n"),
            std::string::npos)
      << plain.out;
  CliRun within = tcec("compare --resident-slack 66 " + path.string());
  EXPECT_EQ(within.exit_code, 0) << within.out;
  EXPECT_NE(within.out.find("tile memory 1048576 bytes per rank; limit 70254592 bytes (tile memory + 69206016): "
                            "within\n"),
            std::string::npos)
      << within.out;
  CliRun above = tcec("compare --resident-slack 64 " + path.string());
  EXPECT_EQ(above.exit_code, 1);
  EXPECT_NE(above.out.find("; limit 68157440 bytes (tile memory + 67108864): ABOVE on rank 1 70254592 bytes\n"),
            std::string::npos)
      << above.out;
  CliRun negative = tcec("compare --resident-slack -1 " + path.string());
  EXPECT_NE(negative.exit_code, 0);
  std::filesystem::remove(path);
}

// Device bytes (/proc/self/io, issue 51): shown beside the predicted disk bytes; with --device held
// to them plus a slack, per contraction's compute phase and over the run.
std::filesystem::path write_device_trace(const std::string& name, const std::string& device_read) {
  const auto path =
      write_trace(name, "[100, 100]", true,
                  R"(, "redistribution": {"predicted": {"disk_read_bytes": [10, 10], "disk_write_bytes": [5, 5],
                                    "seconds": 0.5}, "measured": {"disk_read_bytes": [10, 10], "disk_write_bytes": [5, 5],
                                    "seconds": [0.25, 0.375], "device_read_bytes": [0, 4096], "device_write_bytes": [0, 0]}})");
  std::string text;
  {
    std::ifstream in(path);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string at = R"("seconds": [0.5, 0.25],)";
  text.insert(text.find(at) + at.size(),
              R"( "device_read_bytes": )" + device_read + R"(, "device_write_bytes": [100, 96],)");
  text.insert(text.rfind('}'),
              R"(, "device": {"read_bytes": [300, 4196], "write_bytes": [108, 100], "cancelled_write_bytes": [0, 8],
    "phases": {"compute": {"read_bytes": [300, 100], "write_bytes": [100, 96]}, "load": {"read_bytes": [0, 0], "write_bytes": [8, 4]},
               "write-out": {"read_bytes": [99999999, 0], "write_bytes": [0, 0]}}})");
  std::ofstream(path) << text;
  return path;
}

TEST(Cli, CompareShowsTheDeviceBytes) {
  const auto path = write_device_trace("tcec_trace_device", "[300, 100]");
  CliRun r = tcec("compare " + path.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(
                "  device read (compute): 400 total, 300 max; predicted disk read 600 total, 300 max: not checked "
                "(--device)\n"
                "  device write (compute): 196 total, 100 max; predicted disk write 200 total, 100 max: not checked "
                "(--device)\n"
                "  redistribution device read: 4096 total, 4096 max; predicted disk read 20 total, 10 max: shown only"),
            std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find("device bytes of the run (/proc/self/io; every phase but write-out: --verify's reads and copy "
                 "steps), cancelled writes 8 total:\n"
                 "  read: 400 total, 300 max; predicted disk read 620 total, 310 max: not checked (--device)\n"
                 "  write: 208 total, 108 max; predicted disk write 210 total, 105 max: not checked (--device)\n"),
      std::string::npos)
      << r.out;
  CliRun within = tcec("compare --device " + path.string());
  EXPECT_EQ(within.exit_code, 0) << within.out;
  EXPECT_NE(within.out.find("predicted disk read 600 total, 300 max: within (+33554432 per rank)\n"), std::string::npos)
      << within.out;
  std::filesystem::remove(path);
}

TEST(Cli, CompareDeviceListsTheRanksAbove) {
  const auto path = write_device_trace("tcec_trace_device_above", "[300, 100]");
  CliRun tight = tcec("compare --device-slack 0 " + path.string());  // --device-slack alone turns --device on
  EXPECT_EQ(tight.exit_code, 1);
  EXPECT_NE(
      tight.out.find("  device read (compute): 400 total, 300 max; predicted disk read 600 total, 300 max: within "
                     "(+0 per rank)\n"),
      std::string::npos)
      << tight.out;
  EXPECT_NE(
      tight.out.find("  read: 400 total, 300 max; predicted disk read 620 total, 310 max: within (+0 per rank)\n"
                     "  write: 208 total, 108 max; predicted disk write 210 total, 105 max: ABOVE on 1 rank (+0 per "
                     "rank)\n"
                     "    rank 0: predicted 105 + slack 0, device 108\n"
                     "1 mismatch\n"),
      std::string::npos)
      << tight.out;
  std::filesystem::remove(path);
  const auto over = write_device_trace("tcec_trace_device_over", "[300, 50000000]");
  CliRun above = tcec("compare --device " + over.string());
  EXPECT_EQ(above.exit_code, 1);
  EXPECT_NE(above.out.find("predicted disk read 600 total, 300 max: ABOVE on 1 rank (+33554432 per rank)\n"
                           "    rank 1: predicted 300 + slack 33554432, device 50000000\n"),
            std::string::npos)
      << above.out;
  EXPECT_EQ(above.out.substr(above.out.rfind('\n', above.out.size() - 2) + 1), "1 mismatch\n");
  std::filesystem::remove(over);
  const auto old = write_trace("tcec_trace_no_device", "[100, 100]");
  CliRun none = tcec("compare --device " + old.string());
  EXPECT_EQ(none.exit_code, 0) << none.out;
  EXPECT_NE(none.out.find("device bytes: not in the trace (a program built before they were traced), so not checked\n"),
            std::string::npos)
      << none.out;
  std::filesystem::remove(old);
}

TEST(Cli, CompareRejectsBadTraces) {
  CliRun missing = tcec("compare /nonexistent/trace.json");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "tcec: error: cannot read '/nonexistent/trace.json': No such file or directory\n");
  const auto short_list = write_trace("tcec_trace_short", "[100]");
  CliRun schema = tcec("compare " + short_list.string());
  EXPECT_EQ(schema.exit_code, 1);
  EXPECT_EQ(schema.out, "");
  EXPECT_EQ(schema.err,
            "tcec: error: '" + short_list.string() +
                "': contractions[0].measured.disk_write_bytes: expected 2 non-negative integers (one per rank)\n");
  std::ofstream(short_list) << "{\"processors\": 2, ";
  CliRun json = tcec("compare " + short_list.string());
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_EQ(json.err.rfind("tcec: error: '" + short_list.string() + "' is not JSON: ", 0), 0u) << json.err;
  std::ofstream(short_list) << "{\"processors\": 2}";
  CliRun no_list = tcec("compare " + short_list.string());
  EXPECT_EQ(no_list.err, "tcec: error: '" + short_list.string() + "': contractions: missing\n");
  std::filesystem::remove(short_list);
}

TEST(Cli, CompareHelp) {
  CliRun main_help = tcec("--help");
  EXPECT_NE(main_help.out.find("tcec compare TRACE.json"), std::string::npos);
  EXPECT_NE(main_help.out.find("--build"), std::string::npos);
  CliRun help = tcec("compare --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("tcec compare"), std::string::npos);
  CliRun none = tcec("compare");
  EXPECT_NE(none.exit_code, 0);
  EXPECT_NE(none.err.find("trace is required"), std::string::npos) << none.err;
}

// NWChem TCE import (--from nwchem --section NAME): the CCSD T2 residual at O = 100,
// V = 500 planned on 64 processors, with the total of the chosen plans' times. (Its wall
// time, the issue's goal of under 1 s, is measured by hand, not asserted here.)
TEST(Cli, NwchemCcsdT2DryRunOn64Processors) {
  const TempFile machine("tcec_nwchem_", ".machine");
  std::ofstream(machine.path())
      << "machine m64 {\n  processors 64;\n  memory 4 GB;\n  network 1 GB/s;\n  disk 500 MB/s;\n}\n";
  const std::string args = "--from nwchem --section ccsd_t2 -D O=100 -D V=500 --machine " + machine.string() + " " +
                           std::string(TCEC_DATA_DIR) + "/nwchem_tce_equation_trees.txt";
  CliRun r = tcec("--dry-run " + args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("machine: P = 64, memory 4 GB per processor", 0), 0u) << r.out.substr(0, 200);
  // The last line: the total over the 30 contractions and 34 copy steps (64 statements; each
  // P( n ) product is one contraction into X_L<line> and n permuted additions).
  const std::string prefix = "\ntotal predicted time: ";
  const auto at = r.out.rfind(prefix);
  ASSERT_NE(at, std::string::npos) << r.out.substr(r.out.size() > 400 ? r.out.size() - 400 : 0);
  const std::string last = r.out.substr(at + 1, r.out.find('\n', at + 1) - at);
  EXPECT_NE(last.find(" s over 30 contractions (compute stages and redistribution) and 34 copy steps\n"),
            std::string::npos)
      << last;
  const double text_total = std::stod(last.substr(prefix.size() - 1));
  // Then the whole-program I/O lower bound, and the hand-off section, ending with its total:
  // with 4 GB per rank cosma wins every contraction and reads the store, so nothing is kept
  // and the totals agree.
  const std::string rest = r.out.substr(at + 1 + last.size());
  EXPECT_EQ(rest.rfind("I/O lower bound: ", 0), 0u) << rest.substr(0, 200);
  EXPECT_NE(rest.find(" s, the sum of the contractions' (copy steps count 0; each contraction's operands read from "
                      "and result written to files); total / bound "),
            std::string::npos);
  const std::string writes = rest.substr(rest.find('\n') + 1);
  EXPECT_EQ(writes.rfind("writes per rank over the program (through the store): ", 0), 0u) << writes.substr(0, 200);
  const std::string handoff = writes.substr(writes.find('\n') + 1);
  EXPECT_EQ(handoff.rfind("\nsequence with rank-to-rank hand-off (the generated program runs it; --no-handoff passes "
                          "every tensor through the store;\n",
                          0),
            0u)
      << handoff;
  EXPECT_NE(handoff.find("the steps it changes:\n  (64 other steps as through the store)\ntotal predicted time with "
                         "hand-off: "),
            std::string::npos)
      << handoff;
  EXPECT_NE(handoff.find(" s, 0 contractions planned with kept tensors (through the store: "), std::string::npos);
  EXPECT_EQ(handoff.back(), '\n');
  // Statements name their tensors: the imported intermediates, inputs by index types, P terms.
  EXPECT_NE(r.out.find(": X_L39[p3,p4,h1,h2] = -1 * t_ph[p3,h10] * i1_L40[h10,p4,h1,h2]   [P( 2 ) product]\n"),
            std::string::npos);
  EXPECT_NE(r.out.find(": i0[p3,p4,h1,h2] += X_L39[p3,p4,h1,h2]   [P( 2 ) term 1 of 2]\n"), std::string::npos);
  EXPECT_NE(r.out.find(": i0[p4,p3,h1,h2] += -1 * X_L39[p3,p4,h1,h2]   [P( 2 ) term 2 of 2]\n"), std::string::npos);

  // JSON: the same total, the sum of every contraction's chosen plan time.
  CliRun j = tcec("--dry-run --json " + args);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto json = nlohmann::json::parse(j.out);
  ASSERT_EQ(json["contractions"].size(), 30u);
  EXPECT_EQ(json["copies"].size(), 34u);
  double sum = 0;
  for (const auto& c : json["contractions"]) {
    sum += c["plan"]["total_time_s"].get<double>();
    EXPECT_DOUBLE_EQ(c["plan"]["total_time_s"].get<double>(),
                     c["plan"]["wall_s"].get<double>() + c["plan"]["redistribution"]["time_s"].get<double>());
  }
  for (const auto& c : json["copies"]) sum += c["time_s"].get<double>();
  EXPECT_DOUBLE_EQ(json["total_predicted_time_s"].get<double>(), sum);
  double bound = 0;
  for (const auto& c : json["contractions"]) bound += c["plan"]["io_bound"]["time_s"].get<double>();
  EXPECT_DOUBLE_EQ(json["io_lower_bound_s"].get<double>(), bound);
  EXPECT_NEAR(text_total, sum, 1e-4 * sum);
  EXPECT_EQ(json["handoff"]["model_only"], false);
  EXPECT_EQ(json["handoff"]["steps"].size(), 64u);
  EXPECT_EQ(json["handoff"]["handoffs"], 0);
  EXPECT_DOUBLE_EQ(json["handoff"]["store_total_predicted_time_s"].get<double>(), sum);
  EXPECT_DOUBLE_EQ(json["handoff"]["total_predicted_time_s"].get<double>(), sum);
  // With --no-handoff the section stays, as a prediction the program does not run.
  CliRun n = tcec("--dry-run --no-handoff " + args);
  ASSERT_EQ(n.exit_code, 0) << n.err;
  EXPECT_NE(n.out.find("\nsequence with rank-to-rank hand-off (MODEL ONLY with --no-handoff: the generated program "
                       "passes every tensor through the store;\n"),
            std::string::npos);
}

TEST(Cli, DryRunTotalOnlyWithSeveralPlannedStatements) {
  CliRun one = tcec("--dry-run " + example("matmul.tce"));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out.find("total predicted time"), std::string::npos);
  CliRun json = tcec("--dry-run --json " + example("matmul.tce"));
  auto j = nlohmann::json::parse(json.out);
  EXPECT_DOUBLE_EQ(j["total_predicted_time_s"].get<double>(),
                   j["contractions"][0]["plan"]["total_time_s"].get<double>());
  CliRun none = tcec("--dry-run --from nwchem -D O=4 -D V=8 --section ccd_t2 " + std::string(TCEC_DATA_DIR) +
                     "/nwchem_tce_equation_trees.txt");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.out.rfind("machine: none", 0), 0u);
  EXPECT_EQ(none.out.find("total predicted time"), std::string::npos);
}

// Symmetry blocks from the command line (--point-group, --restricted, --irreps), for any input
// format: NWChem's CCSD T2 equations for water in cc-pVDZ; and each mistake's message.
TEST(Cli, SymmetryBlocksFromTheCommandLine) {
  const std::string input = std::string(TCEC_DATA_DIR) + "/nwchem_tce_equation_trees.txt";
  const std::string water = "--dry-run --from nwchem --section ccsd_t2 -D O=10 -D V=38 " + input;
  CliRun r = tcec(water + " --point-group c2v --restricted --irreps O=3,0,1,1 --irreps V=8,2,3,6");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nsymmetry blocks (c2v, restricted): 5.05738e+06 flops over 30 contractions, of 9.85497e+08 "
                       "dense (195x fewer)\n"),
            std::string::npos)
      << r.out;
  const std::pair<const char*, const char*> mistakes[] = {
      {" --point-group c3v",
       "tcec: error: --point-group c3v: unknown point group; expected an abelian one: c1, cs, "
       "ci, c2, d2, c2v, c2h or d2h\n"},
      {" --restricted",
       "tcec: error: --restricted needs a point group: give --point-group NAME, or declare one in the "
       "input (symmetry NAME;)\n"},
      {" --point-group c2v --irreps O=3,0,1 --irreps V=8,2,3,6",
       "tcec: error: --irreps O=3,0,1: 3 numbers, but point group c2v has 4 irreps\n"},
      {" --point-group c2v --irreps O=3,0,1,2 --irreps V=8,2,3,6",
       "tcec: error: --irreps O=3,0,1,2: 2 x 6 = 12 spin orbitals, but range 'O' has 10 (-D or the input sets it)\n"},
      {" --point-group c2v --irreps O=3,0,1,1",
       "tcec: error: tensor 'i0' is symmetry-blocked (point group c2v), but range 'V' has no orbitals per irrep; give "
       "--irreps V=...\n"},
      {" --point-group c2v --irreps O3,0",
       "tcec: error: --irreps expects NAME=n0,n1,... (spatial orbitals per irrep), "
       "got 'O3,0'\n"},
      {" --point-group c2v --irreps Q=1,2,3,4", "tcec: error: --irreps Q=1,2,3,4: no range named 'Q'\n"},
  };
  for (const auto& [options, message] : mistakes) {
    CliRun bad = tcec(water + options);
    EXPECT_EQ(bad.exit_code, 1) << options;
    EXPECT_EQ(bad.out, "") << options;
    EXPECT_EQ(bad.err, message) << options;
  }
}

TEST(Cli, NwchemErrors) {
  const std::string input = std::string(TCEC_DATA_DIR) + "/nwchem_tce_equation_trees.txt";
  CliRun unknown = tcec("--dry-run --from nwchem --section ccsdtq_t4 -D O=4 -D V=8 " + input);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.out, "");
  EXPECT_EQ(unknown.err, "tcec: error: no section 'ccsdtq_t4' in '" + input +
                             "'; available sections: ccsd_e, ccsd_t1, ccsd_t2, ccd_t2, ccsd_t_singles, ccsd_t_doubles, "
                             "ccsdt_e, ccsdt_t1, ccsdt_t2, ccsdt_t3, eomccsd_x1, eomccsd_x2, eomccsd_y1, eomccsd_y2, "
                             "mbpt2_e, mbpt2_t2\n");
  CliRun sizes = tcec("--dry-run --from nwchem --section ccsd_t2 -D V=8 " + input);
  EXPECT_EQ(sizes.exit_code, 1);
  EXPECT_EQ(sizes.err,
            "tcec: error: range 'O' has no extent: NWChem equations do not give sizes; pass -D O=N (the "
            "number of occupied orbitals, indices 'h...')\n");
  CliRun tce = tcec("--dry-run --section ccsd_t2 " + example("matmul.tce"));
  EXPECT_EQ(tce.exit_code, 1);
  EXPECT_EQ(tce.err, "tcec: error: --section ccsd_t2 applies to --from nwchem only\n");
  const TempFile bad("tcec_nwchem_bad_", ".txt");
  std::ofstream(bad.path())
      << "C     i0 ( p3 p4 h1 h2 ) + = -1 * P( 4 ) * Sum ( h10 ) * t ( p3 h10 ) * v ( h10 p4 h1 h2 )\n";
  CliRun p = tcec("--dry-run --from nwchem -D O=4 -D V=8 " + bad.string());
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.err.rfind(bad.string() + ":1:35: error: P( 4 ) announces 4 terms, but antisymmetrising", 0), 0u) << p.err;
}

// TAMM import (--from tamm --function NAME): the program is named after the function; an error
// is FILE:LINE:COL with the source line and a caret, exit status 1, and nothing is written.
TEST(Cli, TammImportAndGenerate) {
  const std::string input = std::string(TCEC_DATA_DIR) + "/tamm_ccsd_canonical_e_t1_t2.hpp.txt";
  const auto dir = fresh_dir("tamm");
  CliRun r = tcec(input + " --from tamm --function ccsd_t2 -D O=4 -D V=8 --machine " + std::string(TCEC_SOURCE_DIR) +
                  "/tests/e2e/tiny.machine -o " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "tcec: wrote " + (dir / "ccsd_t2.cpp").string() + " (30 contractions, 51 copies)\n");
  EXPECT_EQ(r.err, "");
  const std::string text = slurp((dir / "ccsd_t2.cpp").string());
  EXPECT_NE(text.find("// Copy 11 (" + input + ":175): t2[p1,p2,h3,h4] = t2_pphh[p1,p2,h3,h4]\n"), std::string::npos);
  std::filesystem::remove_all(dir);
  CliRun several = tcec(input + " --from tamm -D O=4 -D V=8 --dry-run");
  EXPECT_EQ(several.exit_code, 1);
  EXPECT_EQ(several.err, "tcec: error: '" + input +
                             "' defines 3 functions; choose one with --function NAME: ccsd_e, ccsd_t1, ccsd_t2\n");
  CliRun other = tcec(example("matmul.tce") + " --function ccsd_e --dry-run");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_EQ(other.err, "tcec: error: --function ccsd_e applies to --from tamm only\n");
}

TEST(Cli, TammErrorsWriteNothing) {
  const TempFile path("tcec_tamm_loop_", ".cpp");
  std::ofstream(path.path())
      << "#include \"tamm/tamm.hpp\"\nusing namespace tamm;\n"
         "void f(Scheduler& sch, const TiledIndexSpace& MO, Tensor<double>& r, const Tensor<double>& a) {\n"
         "  auto [i, j] = MO.labels<2>(\"occ\");\n"
         "  for (int k = 0; k < 3; ++k) sch(r(i, j) += a(i, j));\n"
         "  sch(r(i, j) = a(i, j) * undeclared);\n"
         "}\n";
  const auto dir = fresh_dir("tamm_errors");
  CliRun r = tcec(path.string() + " --from tamm -D O=4 -D V=8 --machine " + std::string(TCEC_SOURCE_DIR) +
                  "/tests/e2e/tiny.machine -o " + dir.string() + " --build");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, path.string() +
                       ":6:27: error: use of undeclared identifier 'undeclared'\n"
                       "  sch(r(i, j) = a(i, j) * undeclared);\n"
                       "                          ^\n");
  EXPECT_FALSE(std::filesystem::exists(dir));
  std::ofstream(path.path())
      << "using namespace tamm;\n"
         "void f(Scheduler& sch, const TiledIndexSpace& MO, Tensor<double>& r, const Tensor<double>& a) {\n"
         "  auto [i, j] = MO.labels<2>(\"occ\");\n"
         "  for (int k = 0; k < 3; ++k) sch(r(i, j) += a(i, j));\n"
         "}\n";
  CliRun loop = tcec(path.string() + " --from tamm -D O=4 -D V=8 -o " + dir.string());
  EXPECT_EQ(loop.exit_code, 1);
  EXPECT_EQ(loop.err, path.string() +
                          ":4:3: error: a loop is not supported: tcec imports the straight-line "
                          "operations of a Scheduler chain\n"
                          "  for (int k = 0; k < 3; ++k) sch(r(i, j) += a(i, j));\n"
                          "  ^\n");
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace

// --- --plan LINE=PLAN and --print-after STAGE ---

namespace {

// The plan the planner chooses for examples/matmul.tce (the "plan:" line of
// tests/tools/golden/matmul.txt.check) and a valid other one (cosma's grid, which the methods
// table shows fastest).
const char* kMatmulChoice = "inside-replication order=CAB P=4 bcast=B I=i:1x1 J=j:1x1 K=k:5x1 dist=i,-,k split=optimal";
const char* kMatmulCosma = "cosma grid=2x2x1 rounds=8 P=4 split=optimal";

TEST(Cli, PlanAndPrintAfterAreInTheHelp) {
  const CliRun help = tcec("--help");
  EXPECT_NE(help.out.find("--plan LINE=PLAN"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--print-after STAGE"), std::string::npos) << help.out;
}

TEST(Cli, PinnedPlanChangesTheReportAndTheProgram) {
  const std::string pin = std::string(" --plan '8=") + kMatmulCosma + "'";
  const CliRun base = tcec(example("matmul.tce") + " --dry-run");
  ASSERT_EQ(base.exit_code, 0) << base.err;
  EXPECT_NE(base.out.find(std::string("  plan: ") + kMatmulChoice + "\n"), std::string::npos) << base.out;
  const CliRun pinned = tcec(example("matmul.tce") + " --dry-run" + pin);
  ASSERT_EQ(pinned.exit_code, 0) << pinned.err;
  EXPECT_NE(pinned.out.find(std::string("  plan: ") + kMatmulCosma + "\n"), std::string::npos) << pinned.out;
  EXPECT_NE(pinned.out.find("  chosen: cosma, grid 2x2x1 (0 idle), 8 rounds: 24.942 s predicted in all (compute "
                            "stage and redistribution), pinned by --plan; the planner's choice inside replication-B, "
                            "order CAB: 13.115 s in all\n"),
            std::string::npos)
      << pinned.out;
  const nlohmann::json j = nlohmann::json::parse(tcec(example("matmul.tce") + " --dry-run --json" + pin).out);
  EXPECT_EQ(j["contractions"][0]["plan"]["algorithm"], "cosma");
  EXPECT_EQ(j["contractions"][0]["chosen"]["algorithm"], "cosma");
  EXPECT_EQ(j["contractions"][0]["chosen"]["pinned"], true);

  const auto dir = fresh_dir("pin");
  const CliRun generated = tcec(example("matmul.tce") + " -o " + dir.string() + pin);
  ASSERT_EQ(generated.exit_code, 0) << generated.err;
  const std::string text = slurp((dir / "matmul.cpp").string());
  EXPECT_NE(text.find(std::string("// Plan: ") + kMatmulCosma), std::string::npos);
  EXPECT_EQ(text.find(std::string("// Plan: ") + kMatmulChoice), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Cli, InvalidPinnedPlanIsRefusedWithTheRule) {
  const std::string file = example("matmul.tce");
  CliRun r = tcec(file + " --dry-run --plan '8=cosma grid=2x2x1 rounds=8 P=3 split=optimal'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, file + ":8:1: error: --plan 8: the plan is for P = 3 but the machine has P = 4\n" +
                       "C[i,j] += A[i,k] * B[j,k];\n^\n");
  r = tcec(file + " --dry-run --plan '8=cosma grid=2x2x1 rounds=1 P=4 split=optimal'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, file +
                       ":8:1: error: --plan 8: tiles of A, B and C need 64000000 + 64000000 + 32000000 = 160000000 "
                       "bytes per rank but the memory is 64000000 bytes\nC[i,j] += A[i,k] * B[j,k];\n^\n");
  r = tcec(file + " --dry-run --plan '5=cosma grid=2x2x1 rounds=8 P=4 split=optimal'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind(file + ":5:1: error: --plan 5: no contraction (two-operand statement) at line 5\n", 0), 0u)
      << r.err;
  r = tcec(file + " --dry-run --plan '8=cosma grid=2x2 P=4'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind(file + ":8:1: error: --plan 8: expected grid=PMxPNxPK with positive integers, got '2x2'\n", 0),
            0u)
      << r.err;
  r = tcec(file + " --dry-run --plan 'cosma'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "tcec: error: --plan expects LINE=PLAN (a source line and a plan's text), got 'cosma'\n");
}

TEST(Cli, PrintAfterEachStage) {
  const TempFile tce("tcec_print_after_", ".tce");
  {
    std::ofstream out(tce.path());
    out << "range N = 10;\nindex i, j, k, l : N;\ntensor A[N,N] input;\ntensor B[N,N] input;\n"
           "tensor D[N,N] input;\ntensor C[N,N] output;\nC[i,l] += A[i,j] * B[j,k] * D[k,l];\n";
  }
  const std::string declarations =
      "range N = 10;\nindex i : N;\nindex j : N;\nindex k : N;\nindex l : N;\ntensor A[N,N] input;\n"
      "tensor B[N,N] input;\ntensor D[N,N] input;\ntensor C[N,N] output;\n";
  CliRun r = tcec(tce.string() + " --print-after parse");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, declarations + "C[i,l] += A[i,j] * B[j,k] * D[k,l];  # line 7\n");
  r = tcec(tce.string() + " --print-after split");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, declarations +
                       "tensor _t1[N,N] intermediate;\n"
                       "_t1[i,k] = A[i,j] * B[j,k];  # line 7\n"
                       "C[i,l] += _t1[i,k] * D[k,l];  # line 7\n");
  r = tcec(example("matmul.tce") + " --print-after ir");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "line 8: C[i,j] += A[i,k] * B[j,k]\n"
            "  C(I,J) += A(I,K) * B(J,K) with A = A, B = B; I = {i}, J = {j}, K = {k}\n"
            "  |I| = 4000, |J| = 4000, |K| = 4000\n");
  r = tcec(example("matmul.tce") + " --print-after plan");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::string("8=") + kMatmulChoice + "\n");
  // The printed line pins the same plan, and the stage's output comes before the report.
  r = tcec(example("matmul.tce") + " --print-after plan --dry-run --plan '8=" + kMatmulChoice + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(std::string("8=") + kMatmulChoice + "\nmachine: ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(", pinned by --plan; the planner's choice too\n"), std::string::npos) << r.out;
  EXPECT_NE(tcec(example("matmul.tce") + " --print-after codegen").exit_code, 0);
}

}  // namespace

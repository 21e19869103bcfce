// tests/codegen/compile_test.cpp — generated programs compile against the runtime's headers
// (all 6 methods × 6 orders), and the build helpers: run_command, build_command, build_program.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unistd.h>

#include <gtest/gtest.h>

#include "codegen/codegen.h"
#include "costmodel/costmodel.h"
#include "frontend/frontend.h"

namespace {

using namespace tcec;
namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("tcec_codegen_" + name + "_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

constexpr const char* kMethods[] = {"inside-rotation",  "inside-replication",  "inside-accumulation",
                                    "outside-rotation", "outside-replication", "outside-accumulation"};

// One compiler call per method: a program whose six contraction functions are the matrix
// product planned in each of the six orders (-fsyntax-only: the runtime need not be linked).
TEST(Compile, EveryMethodAndOrderCompiles) {
  frontend::Result r = frontend::parse_file(std::string(TCEC_SOURCE_DIR) + "/examples/matmul.tce", {});
  ASSERT_TRUE(r.ok());
  const costmodel::Machine machine = costmodel::machine_from(*r.program->machine);
  ASSERT_EQ(machine.processors, 4);
  const fs::path dir = temp_dir("compile");
  const codegen::Toolchain tools = codegen::toolchain();
  for (const char* method : kMethods) {
    std::vector<costmodel::StatementPlan> plans;
    for (costmodel::PlacementOrder order : costmodel::kAllOrders) {
      costmodel::PlanOptions options;
      ASSERT_TRUE(costmodel::parse_method(method, &options));
      options.force_order = order;
      plans.push_back(costmodel::plan_program(*r.program, machine, options).at(0));
      ASSERT_TRUE(plans.back().feasible) << method << " " << costmodel::to_string(order) << ": " << plans.back().reason;
    }
    const std::string text = codegen::emit_program(*r.program, machine, plans, {"matmul"});
    const fs::path source = dir / (std::string(method) + ".cpp");
    std::ofstream(source) << text;
    std::string output;
    const int status =
        codegen::run_command({tools.compiler, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                              "-DOMPI_SKIP_MPICXX=1",  // Open MPI's deprecated C++ bindings warn under -Wextra
                              "-I" + tools.source_root, source.string()},
                             &output);
    EXPECT_EQ(status, 0) << method << ":\n" << output;
    EXPECT_EQ(output, "") << method;
  }
  fs::remove_all(dir);
}

TEST(Compile, RunCommandCapturesOutputAndStatus) {
  std::string output;
  EXPECT_EQ(codegen::run_command({"sh", "-c", "echo out; echo err >&2; exit 3"}, &output), 3);
  EXPECT_EQ(output, "out\nerr\n");
  EXPECT_EQ(codegen::run_command({"/nonexistent/tcec-compiler", "x"}, &output), -1);
  EXPECT_EQ(output, "cannot run '/nonexistent/tcec-compiler': No such file or directory");
  EXPECT_EQ(codegen::run_command({"sh", "-c", "kill -9 $$"}, &output), 128 + 9);
}

// The compiler, the source, libtcert and libtcert_spec, then the libraries they need: OpenBLAS, fmt and HDF5
// (the paths CMake found, between -lfmt and -o).
TEST(Compile, BuildCommand) {
  const codegen::Toolchain tools{"mpicxx", "/src", "/build/lib/libtcert.a", "/build/lib/libtcert_spec.a"};
  const std::vector<std::string> command = codegen::build_command(tools, "out/m.cpp", "out/m.tmp");
  const std::vector<std::string> head = {
      "mpicxx",     "-std=c++20", "-O2", "-I/src", "out/m.cpp", "/build/lib/libtcert.a", "/build/lib/libtcert_spec.a",
      "-lopenblas", "-lfmt"};
  ASSERT_GT(command.size(), head.size() + 2);
  EXPECT_EQ(std::vector<std::string>(command.begin(), command.begin() + static_cast<std::ptrdiff_t>(head.size())),
            head);
  EXPECT_EQ(std::vector<std::string>(command.end() - 2, command.end()), (std::vector<std::string>{"-o", "out/m.tmp"}));
  const std::vector<std::string> libraries(command.begin() + static_cast<std::ptrdiff_t>(head.size()),
                                           command.end() - 2);
  EXPECT_TRUE(std::any_of(libraries.begin(), libraries.end(), [](const std::string& l) {
    return fs::path(l).filename().string().starts_with("libhdf5");
  })) << fmt::format("{}", fmt::join(libraries, " "));
  for (const std::string& library : libraries) EXPECT_FALSE(library.empty());
}

// With a launcher (a compiler cache), the compile step runs through it and stops at the object;
// the libraries come at the link.
TEST(Compile, CompileCommandRunsThroughTheLauncher) {
  const codegen::Toolchain tools{"mpicxx", "/src", "/build/lib/libtcert.a", "/build/lib/libtcert_spec.a",
                                 "/usr/bin/ccache"};
  const std::vector<std::string> command = codegen::compile_command(tools, "out/m.cpp", "out/m.tmp.o");
  const std::vector<std::string> head = {"/usr/bin/ccache", "mpicxx", "-std=c++20", "-O2", "-I/src", "out/m.cpp", "-c"};
  ASSERT_GE(command.size(), head.size() + 2);
  EXPECT_EQ(std::vector<std::string>(command.begin(), command.begin() + static_cast<std::ptrdiff_t>(head.size())),
            head);
  EXPECT_EQ(std::vector<std::string>(command.end() - 2, command.end()),
            (std::vector<std::string>{"-o", "out/m.tmp.o"}));
  EXPECT_EQ(std::count(command.begin(), command.end(), "-lopenblas"), 0);
}

// The library form: the header alone and the source (which includes it) compile.
TEST(Compile, LibraryFormCompiles) {
  frontend::Result r = frontend::parse_file(std::string(TCEC_SOURCE_DIR) + "/examples/ccd_terms.tce", {});
  ASSERT_TRUE(r.ok());
  costmodel::PlanOptions options;
  const codegen::Generated generated =
      codegen::generate(*r.program, options, {"ccd-terms", codegen::EmitForm::Library});
  ASSERT_TRUE(generated.ok());
  const fs::path dir = temp_dir("library");
  std::ofstream(dir / "ccd_terms.h") << generated.header;
  std::ofstream(dir / "ccd_terms.cpp") << generated.source;
  std::ofstream(dir / "user.cpp") << "#include \"ccd_terms.h\"\n"
                                     "int f(MPI_Comm c) { return tcec_gen::ccd_terms(c, {}, {}).ok() ? 0 : 1; }\n";
  const codegen::Toolchain tools = codegen::toolchain();
  for (const char* file : {"user.cpp", "ccd_terms.cpp"}) {
    std::string output;
    const int status = codegen::run_command(
        {tools.compiler, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-DOMPI_SKIP_MPICXX=1",
         "-I" + tools.source_root, "-I" + dir.string(), (dir / file).string()},
        &output);
    EXPECT_EQ(status, 0) << file << ":\n" << output;
  }
  fs::remove_all(dir);
}

TEST(Compile, ToolchainComesFromTheBuildTreeOrTcecCxx) {
  unsetenv("TCEC_CXX");
  const codegen::Toolchain tools = codegen::toolchain();
  EXPECT_TRUE(fs::exists(tools.compiler)) << tools.compiler;
  EXPECT_EQ(fs::path(tools.source_root), fs::path(TCEC_SOURCE_DIR));
  EXPECT_EQ(fs::path(tools.runtime_library).filename(), "libtcert.a");
  EXPECT_EQ(fs::path(tools.spec_library).filename(), "libtcert_spec.a");
  setenv("TCEC_CXX", "/opt/other/c++", 1);
  EXPECT_EQ(codegen::toolchain().compiler, "/opt/other/c++");
  unsetenv("TCEC_CXX");
}

// A failing compiler: its output is returned, and neither the program nor the .tmp is left.
TEST(Compile, FailedBuildLeavesNothingBehind) {
  const fs::path dir = temp_dir("fail");
  const fs::path compiler = dir / "fake-cxx";
  std::ofstream(compiler) << "#!/bin/sh\n"
                             "for a; do last=$a; done\n"
                             "echo partial > \"$last\"\n"
                             "echo 'm.cpp:1:1: error: fake failure' >&2\n"
                             "exit 1\n";
  fs::permissions(compiler, fs::perms::owner_all);
  std::ofstream(dir / "m") << "an older program\n";
  std::string output;
  EXPECT_FALSE(codegen::build_program({compiler.string(), "/src", "/lib/libtcert.a", "/lib/libtcert_spec.a"},
                                      (dir / "m.cpp").string(), (dir / "m").string(), &output));
  EXPECT_EQ(output, "m.cpp:1:1: error: fake failure\n");
  EXPECT_FALSE(fs::exists(dir / "m"));
  EXPECT_FALSE(fs::exists(dir / "m.tmp"));
  fs::remove_all(dir);
}

TEST(Compile, SuccessfulBuildRenamesTheTemporary) {
  const fs::path dir = temp_dir("ok");
  const fs::path compiler = dir / "fake-cxx";
  std::ofstream(compiler) << "#!/bin/sh\nfor a; do last=$a; done\necho built > \"$last\"\n";
  fs::permissions(compiler, fs::perms::owner_all);
  std::string output;
  EXPECT_TRUE(codegen::build_program({compiler.string(), "/src", "/lib/libtcert.a", "/lib/libtcert_spec.a"},
                                     (dir / "m.cpp").string(), (dir / "m").string(), &output))
      << output;
  EXPECT_TRUE(fs::exists(dir / "m"));
  EXPECT_FALSE(fs::exists(dir / "m.tmp"));
  fs::remove_all(dir);
}

}  // namespace

// tests/runtime/program/options_test.cpp — the command line of generated programs into RunOptions and
// TensorLocations (no MPI_Init needed).
#include "runtime/program/options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/base/error.h"

namespace {

tcert::ProgramArguments parse(std::vector<std::string> args) {
  args.insert(args.begin(), "prog");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return tcert::parse_program_arguments(static_cast<int>(argv.size()), argv.data(), "test program", {"A", "B"}, {"C"});
}

std::string message_of(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const tcert::Error& e) {
    return e.what();
  }
  return "no error";
}

bool same(const tcert::TensorFile& a, const tcert::TensorFile& b) { return a.path == b.path && a.dataset == b.dataset; }

TEST(Options, DefaultsToRandomSeedOne) {
  const tcert::ProgramArguments a = parse({});
  const tcert::RunOptions& o = a.options;
  EXPECT_EQ(o.random_seed, std::optional<std::uint64_t>(1));
  EXPECT_EQ(o.scratch, "");
  EXPECT_FALSE(o.keep);
  EXPECT_FALSE(o.verify);
  EXPECT_FALSE(o.quiet);
  EXPECT_FALSE(o.no_overlap);
  EXPECT_EQ(o.trace, "");
  EXPECT_TRUE(a.tensors.inputs.empty());
  EXPECT_TRUE(a.tensors.outputs.empty());
}

TEST(Options, EveryOption) {
  const tcert::ProgramArguments a =
      parse({"--scratch", "/s", "--keep", "--output-dir", "/o", "--init", "random:18446744073709551615", "--verify",
             "--trace", "t.json", "--quiet", "--no-overlap"});
  const tcert::RunOptions& o = a.options;
  EXPECT_EQ(o.scratch, "/s");
  EXPECT_TRUE(o.keep);
  EXPECT_EQ(o.random_seed, std::optional<std::uint64_t>(18446744073709551615ULL));
  EXPECT_TRUE(o.verify);
  EXPECT_EQ(o.trace, "t.json");
  EXPECT_TRUE(o.quiet);
  EXPECT_TRUE(o.no_overlap);
  EXPECT_TRUE(a.tensors.inputs.empty());
  ASSERT_EQ(a.tensors.outputs.size(), 1u);
  EXPECT_TRUE(same(a.tensors.outputs.at("C"), {"/o/C.npy", ""}));
}

TEST(Options, InputDirGivesNpyFilesAndNoRandomSeed) {
  const tcert::ProgramArguments a = parse({"--input-dir", "/in"});
  EXPECT_FALSE(a.options.random_seed.has_value());
  ASSERT_EQ(a.tensors.inputs.size(), 2u);
  EXPECT_TRUE(same(a.tensors.inputs.at("A"), {"/in/A.npy", ""}));
  EXPECT_TRUE(same(a.tensors.inputs.at("B"), {"/in/B.npy", ""}));
}

TEST(Options, Hdf5InputAndOutputGiveADatasetPerTensor) {
  const tcert::ProgramArguments a = parse({"--input", "d/in.h5", "--output", "out.hdf5"});
  EXPECT_FALSE(a.options.random_seed.has_value());
  ASSERT_EQ(a.tensors.inputs.size(), 2u);
  EXPECT_TRUE(same(a.tensors.inputs.at("A"), {"d/in.h5", "A"}));
  EXPECT_TRUE(same(a.tensors.inputs.at("B"), {"d/in.h5", "B"}));
  ASSERT_EQ(a.tensors.outputs.size(), 1u);
  EXPECT_TRUE(same(a.tensors.outputs.at("C"), {"out.hdf5", "C"}));
}

TEST(Options, FileFormatsByExtension) {
  EXPECT_EQ(tcert::file_format("a/b.npy"), tcert::FileFormat::Npy);
  EXPECT_EQ(tcert::file_format("b.h5"), tcert::FileFormat::Hdf5);
  EXPECT_EQ(tcert::file_format("b.hdf5"), tcert::FileFormat::Hdf5);
  EXPECT_EQ(tcert::file_format("b.txt"), std::nullopt);
  EXPECT_EQ(tcert::file_format("npy"), std::nullopt);
}

TEST(Options, Hdf5OptionsNeedHdf5Files) {
  EXPECT_EQ(
      message_of({"--input", "in.npy"}),
      "invalid command line: --input expects an HDF5 file (.h5 or .hdf5), got 'in.npy'; run with --help for usage");
  EXPECT_EQ(message_of({"--output", "out"}),
            "invalid command line: --output expects an HDF5 file (.h5 or .hdf5), got 'out'; run with --help for usage");
}

TEST(Options, BadInitIsAnError) {
  for (std::string bad :
       {"random", "random:", "random:x", "random:-1", "random:18446744073709551616", "zeros", "random:1x"})
    EXPECT_EQ(message_of({"--init", bad}),
              "invalid command line: --init expects random:SEED with SEED an integer in [0, 2^64), "
              "got '" +
                  bad + "'; run with --help for usage");
}

TEST(Options, ConflictsAndUnknownOptionsAreErrors) {
  for (const std::vector<std::string>& both : {std::vector<std::string>{"--input-dir", "/in", "--init", "random:2"},
                                               {"--input", "in.h5", "--init", "random:2"},
                                               {"--input", "in.h5", "--input-dir", "/in"},
                                               {"--output", "out.h5", "--output-dir", "/out"}}) {
    const std::string message = message_of(both);
    EXPECT_EQ(message.rfind("invalid command line: ", 0), 0u) << message;
    EXPECT_NE(message.find("exclude"), std::string::npos) << message;
  }
  std::string unknown = message_of({"--bogus"});
  EXPECT_EQ(unknown.rfind("invalid command line: ", 0), 0u) << unknown;
  EXPECT_NE(unknown.find("--bogus"), std::string::npos) << unknown;
}

TEST(Options, CheckpointEveryNeedsACheckpointAndSeconds) {
  EXPECT_EQ(parse({}).options.checkpoint_every, -1.0);  // between steps only
  const tcert::RunOptions o = parse({"--checkpoint", "/ck", "--checkpoint-every", "2.5"}).options;
  EXPECT_EQ(o.checkpoint, "/ck");
  EXPECT_EQ(o.checkpoint_every, 2.5);
  EXPECT_EQ(parse({"--checkpoint", "/ck", "--checkpoint-every", "0"}).options.checkpoint_every, 0.0);
  const std::string alone = message_of({"--checkpoint-every", "10"});
  EXPECT_EQ(alone.rfind("invalid command line: --checkpoint-every requires --checkpoint", 0), 0u) << alone;
  const std::string negative = message_of({"--checkpoint", "/ck", "--checkpoint-every", "-1"});
  EXPECT_EQ(negative.rfind("invalid command line: --checkpoint-every", 0), 0u) << negative;
}

TEST(Options, HelpPrintsUsageAndRequestsExitZero) {
  testing::internal::CaptureStdout();
  int code = -1;
  try {
    parse({"--help"});
  } catch (const tcert::ExitRequest& request) {
    code = request.code;
  }
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 0);
  EXPECT_NE(out.find("test program"), std::string::npos) << out;
  for (const char* option : {"--scratch", "--keep", "--input-dir", "--input ", "--output-dir", "--output ", "--init",
                             "--verify", "--trace", "--quiet", "--no-overlap", "--checkpoint-every"})
    EXPECT_NE(out.find(option), std::string::npos) << option;
}

}  // namespace

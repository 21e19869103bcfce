// tests/runtime/options_test.cpp — the command line of generated programs (no MPI_Init needed).
#include "runtime/options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/error.h"

namespace {

tcert::ProgramOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "prog");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return tcert::parse_program_options(static_cast<int>(argv.size()), argv.data(), "test program");
}

std::string message_of(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const tcert::Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Options, DefaultsToRandomSeedOne) {
  tcert::ProgramOptions o = parse({});
  EXPECT_EQ(o.random_seed, std::optional<std::uint64_t>(1));
  EXPECT_EQ(o.scratch, "");
  EXPECT_FALSE(o.keep);
  EXPECT_FALSE(o.verify);
  EXPECT_FALSE(o.quiet);
  EXPECT_EQ(o.input_dir, "");
  EXPECT_EQ(o.output_dir, "");
  EXPECT_EQ(o.trace, "");
}

TEST(Options, EveryOption) {
  tcert::ProgramOptions o = parse({"--scratch", "/s", "--keep", "--output-dir", "/o",
                                   "--init", "random:18446744073709551615", "--verify",
                                   "--trace", "t.json", "--quiet"});
  EXPECT_EQ(o.scratch, "/s");
  EXPECT_TRUE(o.keep);
  EXPECT_EQ(o.output_dir, "/o");
  EXPECT_EQ(o.random_seed, std::optional<std::uint64_t>(18446744073709551615ULL));
  EXPECT_TRUE(o.verify);
  EXPECT_EQ(o.trace, "t.json");
  EXPECT_TRUE(o.quiet);
}

TEST(Options, InputDirMeansNoRandomSeed) {
  tcert::ProgramOptions o = parse({"--input-dir", "/in"});
  EXPECT_EQ(o.input_dir, "/in");
  EXPECT_FALSE(o.random_seed.has_value());
}

TEST(Options, BadInitIsAnError) {
  for (std::string bad : {"random", "random:", "random:x", "random:-1", "random:18446744073709551616",
                          "zeros", "random:1x"})
    EXPECT_EQ(message_of({"--init", bad}),
              "invalid command line: --init expects random:SEED with SEED an integer in [0, 2^64), "
              "got '" + bad + "'; run with --help for usage");
}

TEST(Options, ConflictsAndUnknownOptionsAreErrors) {
  std::string both = message_of({"--input-dir", "/in", "--init", "random:2"});
  EXPECT_EQ(both.rfind("invalid command line: ", 0), 0u) << both;
  EXPECT_NE(both.find("--init"), std::string::npos) << both;
  std::string unknown = message_of({"--bogus"});
  EXPECT_EQ(unknown.rfind("invalid command line: ", 0), 0u) << unknown;
  EXPECT_NE(unknown.find("--bogus"), std::string::npos) << unknown;
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
  for (const char* option : {"--scratch", "--keep", "--input-dir", "--output-dir", "--init",
                             "--verify", "--trace", "--quiet"})
    EXPECT_NE(out.find(option), std::string::npos) << option;
}

}  // namespace

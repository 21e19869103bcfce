// runtime/options.cpp — CLI11 parsing of the command line of generated programs.
#include "runtime/options.h"

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <iostream>

#include "runtime/error.h"

namespace tcert {

namespace {

bool is_rank_zero() {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) return true;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank == 0;
}

/// SEED of "random:SEED"; Error otherwise.
std::uint64_t parse_init(const std::string& text) {
  constexpr std::string_view kPrefix = "random:";
  std::uint64_t seed = 0;
  const char* digits = text.data() + kPrefix.size();
  const char* end = text.data() + text.size();
  bool ok = text.starts_with(kPrefix) && digits != end;
  if (ok) {
    auto [stop, ec] = std::from_chars(digits, end, seed);
    ok = ec == std::errc() && stop == end;
  }
  if (!ok)
    throw Error("invalid command line: --init expects random:SEED with SEED an integer in "
                "[0, 2^64), got '" + text + "'; run with --help for usage");
  return seed;
}

void add_options(CLI::App& app, ProgramOptions& options, std::string& init) {
  app.add_option("--scratch", options.scratch,
                 "Directory for the out-of-core files; each rank uses DIR/rank-N "
                 "(default: a fresh $TMPDIR/tcert-XXXXXX per rank)")
      ->type_name("DIR");
  app.add_flag("--keep", options.keep, "Keep the scratch files at the end");
  CLI::Option* input = app.add_option("--input-dir", options.input_dir,
                                      "Read each input tensor NAME from DIR/NAME.npy (float64)")
                           ->type_name("DIR");
  app.add_option("--output-dir", options.output_dir,
                 "Write each output tensor NAME to DIR/NAME.npy")
      ->type_name("DIR");
  app.add_option("--init", init,
                 "Generate the inputs: random:SEED gives uniform values in [-1, 1) "
                 "(default when --input-dir is absent: random:1)")
      ->type_name("random:SEED")
      ->excludes(input);
  app.add_flag("--verify", options.verify, "Check the results against an in-core reference");
  app.add_option("--trace", options.trace, "Write a JSON trace of the run to FILE")
      ->type_name("FILE");
  app.add_flag("--quiet", options.quiet, "No progress line and no summary");
  app.add_flag("--no-overlap", options.no_overlap,
               "Run the compute stages serially (each disk transfer waits for the multiply and the "
               "messages before it) even where the plan overlaps them; the same bytes move");
}

}  // namespace

ProgramOptions parse_program_options(int argc, char** argv, std::string_view program_description) {
  CLI::App app{std::string(program_description)};
  if (argc > 0 && argv[0] != nullptr) {
    std::string name = argv[0];
    app.name(name.substr(name.find_last_of('/') + 1));  // npos + 1 == 0: the whole name
  }
  ProgramOptions options;
  std::string init;
  add_options(app, options, init);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    if (is_rank_zero()) std::cout << app.help() << std::flush;
    throw ExitRequest{0};
  } catch (const CLI::ParseError& e) {
    throw Error(std::string("invalid command line: ") + e.what() + "; run with --help for usage");
  }
  if (!init.empty()) options.random_seed = parse_init(init);
  else if (options.input_dir.empty()) options.random_seed = 1;
  return options;
}

}  // namespace tcert

// runtime/program/options.cpp — CLI11 parsing of the command line of generated programs into RunOptions
// and TensorLocations.
#include "runtime/program/options.h"

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <iostream>

#include "runtime/base/error.h"

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

[[noreturn]] void invalid(const std::string& why) {
  throw Error("invalid command line: " + why + "; run with --help for usage");
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
  if (!ok) invalid("--init expects random:SEED with SEED an integer in [0, 2^64), got '" + text + "'");
  return seed;
}

/// The command line's strings before they become locations.
struct Raw {
  std::string input_dir, input_file, output_dir, output_file, init;
};

void add_options(CLI::App& app, RunOptions& options, Raw& raw) {
  app.add_option("--scratch", options.scratch,
                 "Directory for the out-of-core files; each rank uses DIR/rank-N "
                 "(default: a fresh $TMPDIR/tcert-XXXXXX per rank)")
      ->type_name("DIR");
  app.add_flag("--keep", options.keep, "Keep the scratch files at the end");
  CLI::Option* checkpoint =
      app.add_option("--checkpoint", options.checkpoint,
                     "Keep the tensor store in DIR (all ranks must see it) with a manifest of the completed "
                     "steps, written after each step, so that a run that is stopped can continue with --resume; "
                     "removed when the run completes")
          ->type_name("DIR");
  app.add_flag("--resume", options.resume,
               "Continue the run whose checkpoint is in the --checkpoint DIR after its last completed step "
               "(the same program and inputs; the outputs are those of an uninterrupted run)")
      ->needs(checkpoint);
  app.add_option("--checkpoint-every", options.checkpoint_every,
                 "Also save the checkpoint inside long contractions (between K passes, sfc tiles, tbs blocks "
                 "or COSMA rounds, where the partial result is complete), at most once every SECONDS (0: at every "
                 "boundary); "
                 "a resumed run then loses at most about that much work")
      ->type_name("SECONDS")
      ->check(CLI::NonNegativeNumber)
      ->needs(checkpoint);
  CLI::Option* input_dir =
      app.add_option("--input-dir", raw.input_dir, "Read each input tensor NAME from DIR/NAME.npy (float64)")
          ->type_name("DIR");
  CLI::Option* input_file = app.add_option("--input", raw.input_file,
                                           "Read each input tensor NAME from the dataset NAME of an HDF5 file "
                                           "(float64, the tensor's shape)")
                                ->type_name("FILE.h5")
                                ->excludes(input_dir);
  CLI::Option* output_dir =
      app.add_option("--output-dir", raw.output_dir, "Write each output tensor NAME to DIR/NAME.npy")->type_name("DIR");
  app.add_option("--output", raw.output_file,
                 "Write each output tensor NAME to the dataset NAME of an HDF5 file (replaced when complete)")
      ->type_name("FILE.h5")
      ->excludes(output_dir);
  app.add_option("--init", raw.init,
                 "Generate the inputs: random:SEED gives uniform values in [-1, 1) "
                 "(default when neither --input-dir nor --input is given: random:1)")
      ->type_name("random:SEED")
      ->excludes(input_dir)
      ->excludes(input_file);
  app.add_flag("--verify", options.verify, "Check the results against an in-core reference");
  app.add_option("--trace", options.trace, "Write a JSON trace of the run to FILE")->type_name("FILE");
  app.add_flag("--quiet", options.quiet, "No progress line and no summary");
  app.add_flag("--no-overlap", options.no_overlap,
               "Run the compute stages serially (each disk transfer waits for the multiply and the "
               "messages before it) even where the plan overlaps them; the same bytes move");
  app.add_flag("--buffered-reads", options.buffered_reads,
               "Read every file through the page cache, also where the machine says that large reads bypass it "
               "(direct_read_bytes); the same bytes move");
}

void check_hdf5_option(const char* option, const std::string& path) {
  if (!path.empty() && file_format(path) != FileFormat::Hdf5)
    invalid(std::string(option) + " expects an HDF5 file (.h5 or .hdf5), got '" + path + "'");
}

/// DIR/NAME.npy, or FILE (dataset NAME), per name; nothing when both are empty.
std::map<std::string, TensorFile> locations(const std::vector<std::string>& names, const std::string& dir,
                                            const std::string& file) {
  std::map<std::string, TensorFile> out;
  for (const std::string& name : names) {
    if (!dir.empty())
      out[name] = {dir + "/" + name + ".npy", ""};
    else if (!file.empty())
      out[name] = {file, name};
  }
  return out;
}

}  // namespace

std::optional<FileFormat> file_format(std::string_view path) {
  if (path.ends_with(".npy")) return FileFormat::Npy;
  if (path.ends_with(".h5") || path.ends_with(".hdf5")) return FileFormat::Hdf5;
  return std::nullopt;
}

ProgramArguments parse_program_arguments(int argc, char** argv, std::string_view program_description,
                                         const std::vector<std::string>& inputs,
                                         const std::vector<std::string>& outputs) {
  CLI::App app{std::string(program_description)};
  if (argc > 0 && argv[0] != nullptr) {
    std::string name = argv[0];
    app.name(name.substr(name.find_last_of('/') + 1));  // npos + 1 == 0: the whole name
  }
  ProgramArguments args;
  Raw raw;
  add_options(app, args.options, raw);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    if (is_rank_zero()) std::cout << app.help() << std::flush;
    throw ExitRequest{0};
  } catch (const CLI::ParseError& e) {
    invalid(e.what());
  }
  check_hdf5_option("--input", raw.input_file);
  check_hdf5_option("--output", raw.output_file);
  if (!raw.init.empty())
    args.options.random_seed = parse_init(raw.init);
  else if (raw.input_dir.empty() && raw.input_file.empty())
    args.options.random_seed = 1;
  args.tensors.inputs = locations(inputs, raw.input_dir, raw.input_file);
  args.tensors.outputs = locations(outputs, raw.output_dir, raw.output_file);
  return args;
}

}  // namespace tcert

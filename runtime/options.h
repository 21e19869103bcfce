// runtime/options.h — the command line every generated program accepts (parsed with CLI11).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tcert {

/// Options of a generated program. Paths are as given (not resolved).
struct ProgramOptions {
  std::string scratch;      ///< --scratch DIR: base of the per-rank scratch directories ("" = $TMPDIR)
  bool keep = false;        ///< --keep: leave the scratch files in place at the end
  std::string input_dir;    ///< --input-dir DIR: read each input from DIR/NAME.npy ("" = none)
  std::string output_dir;   ///< --output-dir DIR: write each output to DIR/NAME.npy ("" = none)
  /// --init random:SEED: inputs are random_element(SEED, …) (runtime/random.h). Set to 1 when
  /// neither --input-dir nor --init is given; empty when --input-dir is given.
  std::optional<std::uint64_t> random_seed;
  bool verify = false;      ///< --verify: check the results against an in-core reference
  std::string trace;        ///< --trace FILE: write a JSON trace of the run to FILE ("" = none)
  bool quiet = false;       ///< --quiet: no progress line and no summary
  /// --no-overlap: run every compute stage serially (disk, then network and kernel), even where
  /// the plan overlaps them; the same bytes move (for comparing wall times).
  bool no_overlap = false;
};

/// Thrown by parse_program_options when the program should stop at once with exit status
/// `code` without error (after --help). run_program() catches it, finalises MPI and returns
/// `code`.
struct ExitRequest {
  int code = 0;
};

/// Parses the command line: --scratch DIR, --keep, --input-dir DIR, --output-dir DIR,
/// --init random:SEED (SEED a decimal integer in [0, 2^64)), --verify, --trace FILE, --quiet,
/// --help. --input-dir and --init exclude each other.
/// --help prints the usage (headed by program_description) on stdout, on rank 0 only (the
/// rank is read from MPI when MPI is initialised; otherwise this process counts as rank 0),
/// then throws ExitRequest{0}.
/// Throws Error("invalid command line: …; run with --help for usage") on a bad command line,
/// e.g. "--init expects random:SEED with SEED an integer in [0, 2^64), got 'x'".
ProgramOptions parse_program_options(int argc, char** argv, std::string_view program_description);

}  // namespace tcert

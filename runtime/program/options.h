// runtime/program/options.h — what a run of a generated function is told: RunOptions (how to run) and
// TensorLocations (where each input comes from and each output goes), and the command line of
// generated programs that fills them (parsed with CLI11).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tcert {

/// How one call of a generated function runs. The defaults are a generated program's without
/// options, except random_seed (see there). Paths are as given (not resolved). Every rank of
/// the communicator must pass the same values.
struct RunOptions {
  /// Base directory of the per-rank scratch directories (DIR/rank-N) and of the tensor store
  /// ("" = $TMPDIR, else /tmp). --scratch DIR.
  std::string scratch;
  /// Base directory of the tensor store when not `scratch`'s (library form only; "" = the same):
  /// tcec-ccsd keeps its runs' stores, which every rank reads and writes, in its shared work
  /// directory while each rank's tile files are on a node-local `scratch`.
  std::string store_base;
  bool keep = false;  ///< leave the scratch files and the store in place at the end (--keep)
  /// A checkpoint directory (runtime/program/checkpoint.h; on a file system every rank sees): the run's
  /// tensor store lives in it, and a manifest of the completed steps is written after each step;
  /// it is removed when the run completes (unless keep). "" = none. --checkpoint DIR.
  std::string checkpoint;
  /// Continue the run whose checkpoint is in `checkpoint` (made by the same program with the
  /// same inputs) after its last completed step. --resume.
  bool resume = false;
  /// Also save checkpoints inside a contraction (at the K-pass boundaries of its loop nest,
  /// GaoGemm), at most once every this many seconds (0: at every boundary); negative =
  /// only between steps. Needs `checkpoint`. --checkpoint-every SECONDS.
  double checkpoint_every = -1;
  /// Inputs without a location in TensorLocations::inputs are random_element(SEED, …)
  /// (runtime/base/random.h); none: every input needs a location. --init random:SEED (a program's
  /// default, without --input-dir or --input, is 1).
  std::optional<std::uint64_t> random_seed;
  bool verify = false;  ///< check sampled results against an in-core reference (--verify)
  std::string trace;    ///< write a JSON trace of the call to this file ("" = none; --trace FILE)
  bool quiet = false;   ///< no progress line and no summary on stderr (--quiet)
  /// Gather every step's measured figures from all ranks (one all-gather per compute stage and
  /// one per stage 3) into RunRecords::contractions(), which the trace and the summary print. A
  /// caller that needs none of them (tcec-ccsd) sets false and saves those collectives;
  /// contractions() then stays empty unless a trace or the summary (not quiet) needs it. Not a command-line option.
  bool record_steps = true;
  /// Flush every result a step stores to disk (msync) before it is renamed into place. false
  /// (default): stored results stay in the page cache, which every process of the node reads
  /// coherently and which a killed process does not lose; only a checkpoint needs them on disk,
  /// and a checkpoint flushes the file system (sync_file_system() on every rank) before its
  /// manifest names them, once instead of once per result. Outputs (--output) are flushed as
  /// they are written either way. Not a command-line option.
  bool sync_results = false;
  /// Tensor files with more than this many bytes of data are read and written with explicit
  /// requests instead of through mappings (MappedInputs::streams()); none: the memory per rank (the
  /// program's), or none streamed where it is unlimited. Not a command-line option (tests set 0 to
  /// stream every file).
  std::optional<std::uint64_t> stream_bytes;
  /// Run every compute stage serially (disk, then network and kernel), even where the plan
  /// overlaps them; the same bytes move (for comparing wall times). --no-overlap.
  bool no_overlap = false;
  /// Read every file through the page cache even where the program was planned for a machine
  /// with direct_read_bytes (ProgramInfo::direct_read_bytes); the same bytes move.
  /// --buffered-reads.
  bool buffered_reads = false;
  /// When this rank fails alone while the others may wait for it inside a collective, how long
  /// (seconds) it waits for every rank to reach the end of the call before it calls MPI_Abort
  /// on the communicator (run_generated()). Not a command-line option.
  double error_wait_s = 10;
};

/// Where one tensor is read from or written to. The format follows the file's extension:
/// `.npy` (NumPy, float64, C order, the tensor's shape), or `.h5` / `.hdf5` (HDF5: one float64
/// dataset of the tensor's shape, C order, in that file).
struct TensorFile {
  std::string path;  ///< the file, as given
  /// HDF5 only: the dataset's path in the file ("" = the tensor's name; "a/b" is dataset b in
  /// group a, created on output when missing). Ignored for .npy.
  std::string dataset;
};

/// One rank's part of a tensor that the caller holds in memory, distributed over the ranks of
/// the call: the elements [first, first + data.size()) of its row-major order, in `data`
/// (doubles). Over the ranks the parts of one tensor cover every element exactly once; a rank
/// may hold none (an empty span). An input part is read (not changed) at the start of the call
/// and copied into the store, as an HDF5 input is (tensor_files.h import_inputs()); an output
/// part is written at the end from the output's latest version. Neither is ever a file another
/// rank or node reads: on several nodes with node-local scratch (per-node stores), a program
/// takes and gives its data this way without any shared path.
struct TensorPart {
  std::span<double> data;
  std::uint64_t first = 0;  ///< the element of the row-major order that data[0] is
};

/// The formats of TensorFile.
enum class FileFormat { Npy, Hdf5 };
/// The format of `path` by its extension (".npy"; ".h5" or ".hdf5"), or nullopt for another.
std::optional<FileFormat> file_format(std::string_view path);

/// Where each input of a call is read from and each output written to, by tensor name. An
/// input absent from `inputs` is generated from RunOptions::random_seed (an error without one);
/// an output absent from `outputs` is not written anywhere. Names that are not inputs (outputs)
/// of the program are an error. Several HDF5 outputs may share a file: it is written whole, each
/// output a dataset, and replaces any file of that name when complete.
struct TensorLocations {
  std::map<std::string, TensorFile> inputs;
  std::map<std::string, TensorFile> outputs;
  /// Inputs (outputs) held in the callers' memory instead of a file, each rank its own part
  /// (TensorPart). Every rank gives the same names; a name is in `inputs` or `input_parts`, not
  /// both (likewise for outputs).
  std::map<std::string, TensorPart> input_parts;
  std::map<std::string, TensorPart> output_parts;
};

/// The command line of a generated program, as the structures its function takes.
struct ProgramArguments {
  RunOptions options;
  TensorLocations tensors;
};

/// Thrown by parse_program_arguments when the program should stop at once with exit status
/// `code` without error (after --help). program_main() catches it, finalises MPI and returns
/// `code`.
struct ExitRequest {
  int code = 0;
};

/// Parses the command line of a generated program whose inputs and outputs are named `inputs`
/// and `outputs`: --scratch DIR, --keep, --checkpoint DIR, --resume and --checkpoint-every SECONDS (need --checkpoint), --verify, --trace FILE, --quiet, --no-overlap, and
/// where the tensors are: --input-dir DIR (input NAME from DIR/NAME.npy), --input FILE.h5
/// (input NAME from the dataset NAME of an HDF5 file), --init random:SEED (SEED a decimal integer
/// in [0, 2^64); the default, seed 1, when neither --input-dir nor --input is given; the three
/// exclude each other), --output-dir DIR (output NAME to DIR/NAME.npy), --output FILE.h5 (every
/// output a dataset NAME of one HDF5 file; excludes --output-dir). --help prints the usage
/// (headed by program_description) on stdout, on rank 0 only (the rank is read from
/// MPI_COMM_WORLD when MPI is initialised; otherwise this process counts as rank 0), then throws
/// ExitRequest{0}.
/// Throws Error("invalid command line: …; run with --help for usage") on a bad command line,
/// e.g. "--init expects random:SEED with SEED an integer in [0, 2^64), got 'x'", "--input
/// expects an HDF5 file (.h5 or .hdf5), got 'in.npy'".
ProgramArguments parse_program_arguments(int argc, char** argv, std::string_view program_description,
                                         const std::vector<std::string>& inputs,
                                         const std::vector<std::string>& outputs);

}  // namespace tcert

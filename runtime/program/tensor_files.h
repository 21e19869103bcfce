// runtime/program/tensor_files.h — a run's tensors in files: checking their locations before any work,
// importing HDF5 inputs into the store at the start, writing the outputs at the end.
//
// Inside a run tensors live in the store as .npy versions (run.h): an input given as .npy is read
// in place (memory-mapped); an input given as an HDF5 dataset is first copied into the store
// (one read of the dataset and one write of its .npy per element, Phase::Import), and an output
// with an HDF5 location is copied out of its latest version (one read and one write per element,
// Phase::Export). These copies are outside every contraction: the contractions' measured volumes
// stay equal to the predicted ones.
#pragma once

#include "runtime/program/options.h"
#include "runtime/program/run.h"

namespace tcert {

/// Checks, on the calling process alone (Run's constructor calls it on rank 0 through
/// Context::check_root), before any work:
///   - every name in tensors.inputs (outputs) is an input (output) of the program: else Error
///     "input X: the program has no input of that name (its inputs: A, B)";
///   - every input of info.inputs has a location, or options.random_seed is set: else Error
///     "input A: no location given and no random seed";
///   - a location's format is known (options.h file_format()): else Error "input A: unknown
///     format of FILE (expected .npy, .h5 or .hdf5)";
///   - a .npy input is float64, C order, of the tensor's shape (read_npy_header(), check_shape():
///     "cannot open input PATH: …", "input A has shape (3, 4) but the program expects (3, 5)");
///   - an HDF5 input's dataset exists with the tensor's shape and float64 values
///     (check_hdf5_input(): "input A: in.h5 has no dataset A", …);
///   - no two outputs share a .npy file or a dataset of one HDF5 file, and no file is both a
///     .npy and an HDF5 output ("output C: …");
///   - the directory of every output exists or can be created (it is created): else Error
///     "output C: cannot create directory DIR: …".
void check_locations(const ProgramInfo& info, const TensorLocations& tensors, const RunOptions& options);

/// Checks the parts in memory of every input and output (TensorLocations::input_parts,
/// output_parts), collectively: a tensor given as parts on one rank is on every rank ("input
/// A: given as parts in memory on some ranks but not on rank 2"), each part lies within the
/// tensor's elements, and the parts cover every element exactly once ("input A: its parts in
/// memory overlap at element 12 (every element must be in one part)", "... miss element 40
/// ..."). Error on every rank.
void check_parts(const Context& ctx, const ProgramInfo& info, const TensorLocations& tensors);

/// Copies every input given as parts in memory into run's store as its first version, each rank
/// its part, counting 8 bytes written per element and one request; then every input of
/// run.info() whose location is an HDF5 file into run's store as its
/// first version: rank r reads the r-th balanced range of the dataset's row-major elements
/// (read_hdf5_range(): contiguous hyperslabs, collective transfers) straight into its part of
/// the new .npy (a DirectResult). Counts 8 bytes read and 8 written per element, one request
/// per block each way, in Phase::Import. Collective; Error on every rank on failure.
void import_inputs(Run& run);

/// Writes the latest version of every output of run.info() that has a location: one given as
/// parts in memory is copied into each rank's part (8 bytes read per element, one request); a .npy output
/// is copied by rank 0; each HDF5 file is written by all ranks, rank r writing the r-th
/// balanced range of every dataset's elements from the mapped store version (Hdf5Output).
/// Every file is written under a temporary name (PATH.tmp-<pid of rank 0>) and rank 0 renames
/// them all once every file is complete, so a failure leaves no partial output (and removes
/// the temporary files). Counts 8 bytes read and 8 written per element in Phase::Export.
/// Collective; Error on every rank on failure.
void export_outputs(Run& run);

}  // namespace tcert

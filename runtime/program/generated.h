// runtime/program/generated.h — the two entry points of generated code: run_generated(), the body of
// every generated function `tcec_gen::<stem>(comm, tensors, options)`, and program_main(), the
// main() of a generated program, which parses its command line and calls that function.
#pragma once

#include <mpi.h>

#include "runtime/base/status.h"
#include "runtime/program/options.h"
#include "runtime/program/run.h"

namespace tcert {

/// The statements of a generated program on a Run, in program order (emitted by tcec: the
/// contraction and copy functions, releasing intermediates after their last use).
using GeneratedSteps = void (*)(Run& run);

/// A generated function, `tcec_gen::<stem>`.
using GeneratedFunction = Status (*)(MPI_Comm comm, const TensorLocations& tensors, const RunOptions& options);

/// One call of a generated function: runs `steps` (the plan is compiled into them; nothing is
/// planned at run time) on the ranks of `comm` and returns the same Status on each.
///
/// Preconditions: MPI is initialised (MPI_Init or MPI_Init_thread at any level: only the calling
/// thread calls MPI); every rank of `comm` calls with the same arguments; one call at a time per
/// process (the runtime's counters and memory budget are process-wide). The BLAS threads are the
/// caller's (a generated program gives each rank its share of the node's cores: kernel.h
/// share_cores()).
///
/// What a call does: duplicates `comm` (the caller's communicator and its error handler are left
/// alone; the copies are freed at the end), checks that it has info.processors ranks, makes the
/// scratch directories and the tensor store (RunOptions::scratch), checks every input and
/// output location before any work and imports HDF5 inputs (Run's constructor), runs the steps,
/// writes the outputs and the trace (Run::finish), and removes the scratch files and the store
/// (unless RunOptions::keep). Nothing carries over to the next call: counters, the memory budget
/// and its peak, the store's versions and the scratch files are per call, so a solver may call it
/// once per iteration. The one exception is a checkpoint (RunOptions::checkpoint): a call that
/// fails or is killed leaves it, with the store, for a later call with RunOptions::resume
/// (runtime/program/checkpoint.h); a call that completes removes it.
///
/// Errors: every exception a rank throws is caught. Failures that every rank sees alike — a
/// wrong number of ranks, a missing or malformed input, an output that cannot be written, a
/// failed verification, a plan the runtime refuses, and local failures that the runtime turns
/// into collective ones (Context::check_all: a file that cannot be created, a full disk when the
/// store's files are made) — return Status::failure with the message of the lowest failing rank
/// on every rank, and the caller's program goes on (the next call works). A failure of some
/// ranks alone that the runtime does not make collective (e.g. a disk that fills up while one
/// rank writes its tile file in a compute stage) cannot be rescued: the other ranks go on to the
/// next collective (every step and the end of the call have some) and wait there for the
/// failed rank, and MPI cannot interrupt them. A failed rank therefore waits up to
/// options.error_wait_s seconds for every rank to reach the end of the call; if they do not, it
/// prints "[rank N] NAME: error: MESSAGE (…)" on stderr and calls MPI_Abort on the
/// communicator, which ends the whole job, as a generated program always did on an error
/// (runtime.mpi.generated_abort tests this).
Status run_generated(MPI_Comm comm, const TensorLocations& tensors, const RunOptions& options, const ProgramInfo& info,
                     GeneratedSteps steps);

/// The whole main() of a generated program: `return tcert::program_main(argc, argv, info,
/// tcec_gen::<stem>);`.
/// 1. MPI_Init (unless MPI is already initialised), share_cores() over the ranks of the node.
/// 2. parse_program_arguments() with info's inputs and outputs; --help prints the usage (rank 0)
///    and returns 0; a bad command line prints "NAME: error: invalid command line: …" (rank 0)
///    and returns 1.
/// 3. function(MPI_COMM_WORLD, tensors, options): on failure rank 0 prints "NAME: error:
///    MESSAGE" on stderr and every rank returns 1 (NAME: argv[0]'s base name).
/// 4. MPI_Finalize; returns 0 on success.
int program_main(int argc, char** argv, const ProgramInfo& info, GeneratedFunction function);

}  // namespace tcert

// runtime/program/main_guard.h — run_program: MPI set-up, error reporting and exit status of the main()
// of an MPI tool on the runtime (tcec-calibrate). Generated programs use program_main()
// (generated.h), which returns errors as a Status instead of aborting.
#pragma once

#include <functional>

namespace tcert {

class Context;

/// The whole main() of a tool: `return tcert::run_program(argc, argv, body);`.
/// 1. MPI_Init (unless MPI is already initialised), then body(Context::world()).
/// 2. body returns normally, or throws ExitRequest{code} (e.g. after --help): MPI_Finalize and
///    return that code. body must return the same code on every rank (MPI_Finalize is
///    collective); a rank that fails alone must throw instead.
/// 3. body throws tcert::Error or another std::exception: the failing rank prints
///    "<program>: error: <message>" on stderr — prefixed by "[rank N] " when there is more
///    than one rank; <program> is the base name of argv[0] — and calls
///    MPI_Abort(MPI_COMM_WORLD, 1) so the other ranks do not wait for it forever. Returns 1 if
///    MPI_Abort returns.
int run_program(int argc, char** argv, std::function<int(const Context&)> body);

}  // namespace tcert

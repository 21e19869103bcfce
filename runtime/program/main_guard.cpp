// runtime/program/main_guard.cpp — MPI_Init/Finalize around a program body; errors print and abort.
#include "runtime/program/main_guard.h"

#include <mpi.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "runtime/base/error.h"
#include "runtime/comm/comm.h"
#include "runtime/kernel/kernel.h"
#include "runtime/program/options.h"  // ExitRequest

namespace tcert {

namespace {

std::string program_name(int argc, char** argv) {
  if (argc < 1 || argv[0] == nullptr) return "tcert-program";
  std::string path = argv[0];
  std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Prints the error; MPI_Abort normally ends every rank and does not return.
void report_and_abort(const std::string& program, const char* message) {
  int initialised = 0, rank = 0, size = 1;
  MPI_Initialized(&initialised);
  if (initialised) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  std::string prefix = size > 1 ? "[rank " + std::to_string(rank) + "] " : "";
  std::cout.flush();
  // One write per line, so the messages of several failing ranks do not interleave.
  const std::string line = prefix + program + ": error: " + message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
  if (initialised) MPI_Abort(MPI_COMM_WORLD, 1);
}

}  // namespace

int run_program(int argc, char** argv, std::function<int(const Context&)> body) {
  std::string program = program_name(argc, argv);
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) use_native_blas_kernels(argv);  // before MPI and threads: may execute the program again
  if (!initialised && MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    report_and_abort(program, "MPI_Init failed");
    return 1;
  }
  share_cores(ranks_on_node(MPI_COMM_WORLD));  // one BLAS thread per core of the node at most, over its ranks
  int code = 0;
  try {
    code = body(Context::world());
  } catch (const ExitRequest& request) {
    code = request.code;
  } catch (const std::exception& e) {  // tcert::Error included
    report_and_abort(program, e.what());
    return 1;
  } catch (...) {
    report_and_abort(program, "unknown exception");
    return 1;
  }
  MPI_Finalize();
  return code;
}

}  // namespace tcert

// runtime/program/generated.cpp — run_generated(): one call of a generated function, its errors agreed
// by every rank; program_main(): the command line into RunOptions and TensorLocations.
#include "runtime/program/generated.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "runtime/base/error.h"
#include "runtime/comm/comm.h"
#include "runtime/kernel/kernel.h"

namespace tcert {

namespace {

/// A duplicate of the caller's communicator with errors returned, freed at destruction.
class OwnCommunicator {
 public:
  explicit OwnCommunicator(MPI_Comm comm) {
    if (MPI_Comm_dup(comm, &comm_) != MPI_SUCCESS)
      comm_ = MPI_COMM_NULL;
    else
      MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  }
  ~OwnCommunicator() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  OwnCommunicator(const OwnCommunicator&) = delete;
  OwnCommunicator& operator=(const OwnCommunicator&) = delete;
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

/// Prints one line on stderr in one write, so the lines of several ranks do not interleave.
void print_line(const std::string& line) {
  std::cout.flush();
  const std::string text = line + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

/// The outcome every rank of `comm` (used for nothing else) returns: success when no rank has
/// an error, else the lowest failing rank's message. A rank with an error waits at most wait_s
/// seconds for the others to arrive: those that never do are waiting for it inside a
/// collective, and then it prints its error and calls MPI_Abort.
Status agree(MPI_Comm comm, const std::optional<std::string>& error, double wait_s, const std::string& name) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int mine = error ? rank : size;
  int first = size;
  MPI_Request request;
  MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, &request);
  if (!error) {
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
    for (int done = 0;;) {
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (done) break;
      if (std::chrono::steady_clock::now() >= deadline) {
        print_line(
            fmt::format("[rank {}] {}: error: {} (the other ranks did not reach the end within {} s: they wait "
                        "for this rank; aborting)",
                        rank, name, *error, wait_s));
        MPI_Abort(comm, 1);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  if (first == size) return Status::success();
  return Status::failure(Context(comm).bcast_string(error ? *error : std::string(), first));
}

std::string base_name(int argc, char** argv, const std::string& fallback) {
  if (argc < 1 || argv[0] == nullptr) return fallback;
  const std::string path = argv[0];
  return path.substr(path.find_last_of('/') + 1);  // npos + 1 == 0: the whole path
}

std::vector<std::string> names(const std::vector<TensorShape>& tensors) {
  std::vector<std::string> out;
  for (const TensorShape& t : tensors) out.push_back(t.name);
  return out;
}

}  // namespace

Status run_generated(MPI_Comm comm, const TensorLocations& tensors, const RunOptions& options, const ProgramInfo& info,
                     GeneratedSteps steps) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) return Status::failure("MPI is not initialised: call MPI_Init before " + info.name + "()");
  const OwnCommunicator work(comm), agreement(comm);
  if (work.get() == MPI_COMM_NULL || agreement.get() == MPI_COMM_NULL)
    return Status::failure("cannot duplicate the communicator " + info.name + "() was given");
  std::optional<std::string> error;
  std::unique_ptr<Run> run;
  try {
    run = std::make_unique<Run>(Context(work.get()), options, tensors, info);
    steps(*run);
    run->finish();
  } catch (const std::exception& e) {  // tcert::Error included
    error = e.what();
  } catch (...) {
    error = "unknown exception";
  }
  Status status = agree(agreement.get(), error, options.error_wait_s, info.name);
  run.reset();  // the scratch files and the store, once every rank is done with them
  return status;
}

int program_main(int argc, char** argv, const ProgramInfo& info, GeneratedFunction function) {
  const std::string program = base_name(argc, argv, info.name);
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) use_native_blas_kernels(argv);  // before MPI and threads: may execute the program again
  if (!initialised && MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    print_line(program + ": error: MPI_Init failed");
    return 1;
  }
  share_cores(ranks_on_node(MPI_COMM_WORLD));  // one BLAS thread per core of the node at most, over its ranks
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int code = 0;
  std::optional<std::string> error;
  try {
    const std::string description = fmt::format(
        "{}: out-of-core tensor contractions generated by tcec from {}, planned for P = {} processes with {} "
        "bytes of tile memory each. Run it with mpirun -np {}.",
        info.name, info.source, info.processors, info.memory_bytes, info.processors);
    const ProgramArguments args =
        parse_program_arguments(argc, argv, description, names(info.inputs), names(info.outputs));
    if (const Status status = function(MPI_COMM_WORLD, args.tensors, args.options); !status.ok())
      error = status.message();
  } catch (const ExitRequest& request) {
    code = request.code;
  } catch (const std::exception& e) {  // the command line: the same on every rank
    error = e.what();
  }
  if (error) {
    code = 1;
    if (rank == 0) print_line(program + ": error: " + *error);
  }
  MPI_Finalize();
  return code;
}

}  // namespace tcert

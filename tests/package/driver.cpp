// A user's own MPI program (tests/package) that calls the library form of square.tce,
// tcec_gen::square(comm, tensors, options), on a communicator of its own: ranks 0 and 1 of the
// world (the plan's P = 2) while rank 2 stays out. The calls, in one program:
//   1. inputs from the HDF5 file IN1 (datasets A, B), output C into OUT/c1.h5;
//   2. inputs from the .npy files IN2/A.npy, IN2/B.npy, output OUT/c2.npy, verified;
//   3. input A from a file that does not exist: an error Status, no abort, no output;
//   4. the inputs of call 1 again, output OUT/c4.npy;
//   5. on all three ranks of the world: an error Status on every rank (P is 2).
// Prints one line per call (rank 0) and exits 1 when a Status is not the expected one; the
// values are checked by package.sh with numpy.
//   driver IN1.h5 IN2 OUT
#include <mpi.h>

#include <cstdio>
#include <string>

#include "square.h"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what, const tcert::Status& status, int rank) {
  if (!ok) ++failures;
  if (rank == 0)
    std::printf("%s %s: %s\n", ok ? "ok  " : "FAIL", what.c_str(), status.ok() ? "ok" : status.message().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4 || size != 3) {
    if (rank == 0) std::fprintf(stderr, "usage: mpirun -np 3 driver IN1.h5 IN2 OUT\n");
    MPI_Finalize();
    return 2;
  }
  const std::string in1 = argv[1], in2 = argv[2], out = argv[3];
  MPI_Comm pair;  // the communicator of the calls: world ranks 0 and 1
  MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
  tcert::RunOptions options;
  options.quiet = true;
  options.scratch = out + "/scratch";
  if (pair != MPI_COMM_NULL) {
    tcert::TensorLocations first;
    first.inputs = {{"A", {in1, "A"}}, {"B", {in1, "B"}}};
    first.outputs = {{"C", {out + "/c1.h5", "C"}}};
    const tcert::Status one = tcec_gen::square(pair, first, options);
    expect(one.ok(), "call 1 (HDF5 in, HDF5 out)", one, rank);

    tcert::TensorLocations second;
    second.inputs = {{"A", {in2 + "/A.npy", ""}}, {"B", {in2 + "/B.npy", ""}}};
    second.outputs = {{"C", {out + "/c2.npy", ""}}};
    tcert::RunOptions verified = options;
    verified.verify = true;
    const tcert::Status two = tcec_gen::square(pair, second, verified);
    expect(two.ok(), "call 2 (.npy in, .npy out, verified)", two, rank);

    tcert::TensorLocations missing = first;
    missing.inputs["A"] = {out + "/missing.h5", "A"};
    missing.outputs = {{"C", {out + "/c3.h5", "C"}}};
    const tcert::Status three = tcec_gen::square(pair, missing, options);
    expect(!three.ok() && three.message() == "input A: cannot open " + out + "/missing.h5: No such file or directory",
           "call 3 (a missing input) fails without aborting", three, rank);

    tcert::TensorLocations fourth = first;
    fourth.outputs = {{"C", {out + "/c4.npy", ""}}};
    const tcert::Status four = tcec_gen::square(pair, fourth, options);
    expect(four.ok(), "call 4 (the inputs of call 1 again)", four, rank);
    MPI_Comm_free(&pair);
  }
  const tcert::Status five = tcec_gen::square(MPI_COMM_WORLD, {}, options);
  expect(five.message() == "this program was planned for P = 2 processes but runs on 3; start it with mpirun -np 2",
         "call 5 (on 3 ranks) fails on every rank", five, rank);
  int any = 0;
  MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any > 0 ? 1 : 0;
}

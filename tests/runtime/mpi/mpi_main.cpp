// tests/runtime/mpi/mpi_main.cpp — main() of the MPI test executables: GoogleTest between
// MPI_Init and MPI_Finalize; the exit status is 1 when a test failed on any rank.
#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0, any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any_failed;
}

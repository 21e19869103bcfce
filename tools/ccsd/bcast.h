// tools/ccsd/bcast.h — a string from rank 0 of a communicator to every rank.
#pragma once

#include <string>

#include <mpi.h>

namespace tcec::ccsd {

/// Rank 0's `s` on every rank of `comm` (collective; the other ranks' `s` is ignored).
inline std::string bcast_string(MPI_Comm comm, std::string s) {
  auto n = static_cast<unsigned long long>(s.size());
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  s.resize(static_cast<std::size_t>(n));
  MPI_Bcast(s.data(), static_cast<int>(n), MPI_CHAR, 0, comm);
  return s;
}

}  // namespace tcec::ccsd

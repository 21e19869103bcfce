// bench/pdgemm_counting.h — counts the MPI traffic of a code region (ScaLAPACK's pdgemm in
// cosma_bench) through the MPI profiling interface (PMPI).
//
// pdgemm_counting.cpp defines MPI_Send, MPI_Isend, MPI_Rsend, MPI_Sendrecv, MPI_Recv,
// MPI_Irecv, MPI_Bcast, MPI_Reduce and MPI_Allreduce: every data-moving MPI call that
// Debian's libscalapack-openmpi (PBLAS + BLACS) imports (`nm -D` of the library: besides
// these it imports only MPI_Barrier, MPI_Testall/Waitall, datatype, communicator, group,
// Pack/Unpack and Wtime calls, which move no data between ranks). Each wrapper forwards to
// PMPI_* and, only between start() and stop(), counts the call and its bytes:
//   * point-to-point sends (Send, Isend, Rsend, the send half of Sendrecv): count × the
//     datatype's MPI_Type_size bytes (the data, not the extent, of derived types), charged to
//     the sender and, by destination (translated to a rank of MPI_COMM_WORLD), to the
//     receiver — so a rank's received point-to-point bytes are what the senders addressed to
//     it, whatever size the receive posted;
//   * the receive side (Recv and the receive half of Sendrecv: the actual size from the
//     status; Irecv: the posted size) is counted separately as a cross-check;
//   * collectives, per call on a communicator of q ranks with B = count × type size bytes:
//     Bcast: root sends B·(q−1), every other rank receives B; Reduce: every non-root sends
//     B, the root receives B·(q−1); Allreduce: every rank sends and receives B·(q−1).
//     This "logical" count is exact for q = 2 (the only possible message is one transfer of B)
//     and for any q counts the B each non-root rank of a Bcast must receive; for q > 2 the
//     sent side (and Reduce/Allreduce) depends on Open MPI's algorithm. The largest q seen
//     per call type is reported so the reader can tell.
// The counting is per process and not thread-safe (cosma_bench is single-threaded MPI).
// Traffic outside start() … stop() — tcec's own, which tcec counts itself — is not counted.
// Units: bytes.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>

namespace pdgemm_counting {

/// The intercepted call types.
enum Call { kSend, kIsend, kRsend, kSendrecv, kRecv, kIrecv, kBcast, kReduce, kAllreduce, kCallTypes };

/// Name of call type c, e.g. "MPI_Isend".
const char* call_name(int c);

/// One call type's counts on this rank while counting was on.
struct CallStats {
  std::uint64_t calls = 0;
  std::uint64_t sent_bytes = 0;  ///< bytes this rank sent by this call type (bytes)
  std::uint64_t recv_bytes = 0;  ///< bytes received: receive side / collective rule (bytes)
  int max_comm_size = 0;         ///< largest communicator seen (collectives; 0 = none)
};

/// What this rank sent and received while counting was on (bytes).
struct Totals {
  std::array<CallStats, kCallTypes> per_call{};  ///< this rank's counts per call type
  std::uint64_t sent_bytes = 0;                  ///< all send-side bytes of this rank (p2p + collectives)
  /// Received: point-to-point bytes the other ranks' send calls addressed to this rank, plus
  /// the collective rule of the header comment (bytes).
  std::uint64_t recv_bytes = 0;
  /// Received as counted by this rank's own receive calls (Recv/Sendrecv actual size, Irecv
  /// posted size) plus the collective rule: a cross-check of recv_bytes (bytes).
  std::uint64_t recv_bytes_receive_side = 0;
};

/// Clears the counters of this rank and turns counting on.
void start();
/// Turns counting off (the counters keep their values).
void stop();
/// This rank's Totals since the last start(). Collective over `world` (MPI_COMM_WORLD): it
/// sums the per-destination matrix of point-to-point bytes over all ranks (with counting
/// off, through PMPI so nothing is counted).
Totals collect(MPI_Comm world);

}  // namespace pdgemm_counting

// bench/pdgemm_counting.cpp — the PMPI wrappers of pdgemm_counting.h (see there for what is
// counted and how). Units: bytes.
#include "bench/pdgemm_counting.h"

#include <vector>

namespace pdgemm_counting {
namespace {

bool g_on = false;  // counting between start() and stop()
std::array<CallStats, kCallTypes> g_stats{};
std::vector<std::uint64_t> g_to_world_rank;  // point-to-point bytes sent, by world destination

/// Bytes of `count` elements of `type` (MPI_Type_size: the data, not the extent).
std::uint64_t bytes_of(int count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return count > 0 && size > 0 ? static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size) : 0;
}

/// Rank of MPI_COMM_WORLD behind rank `rank` of `comm` (-1 for MPI_PROC_NULL or no translation).
int world_rank_of(MPI_Comm comm, int rank) {
  if (rank == MPI_PROC_NULL || rank < 0) return -1;
  MPI_Group group, world;
  PMPI_Comm_group(comm, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  int out = MPI_UNDEFINED;
  PMPI_Group_translate_ranks(group, 1, &rank, world, &out);
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  return out == MPI_UNDEFINED ? -1 : out;
}

/// Counts one point-to-point send of `bytes` bytes to rank `dest` of `comm` under call type c.
void count_send(int c, std::uint64_t bytes, int dest, MPI_Comm comm) {
  const int w = world_rank_of(comm, dest);
  if (w < 0) return;  // MPI_PROC_NULL: nothing moves
  ++g_stats[static_cast<std::size_t>(c)].calls;
  g_stats[static_cast<std::size_t>(c)].sent_bytes += bytes;
  if (static_cast<std::size_t>(w) >= g_to_world_rank.size()) g_to_world_rank.resize(static_cast<std::size_t>(w) + 1, 0);
  g_to_world_rank[static_cast<std::size_t>(w)] += bytes;
}

/// Counts one collective call of type c: `sent` and `recv` bytes on this rank, on `comm`.
void count_collective(int c, std::uint64_t sent, std::uint64_t recv, MPI_Comm comm) {
  CallStats& s = g_stats[static_cast<std::size_t>(c)];
  int q = 0;
  PMPI_Comm_size(comm, &q);
  ++s.calls;
  s.sent_bytes += sent;
  s.recv_bytes += recv;
  if (q > s.max_comm_size) s.max_comm_size = q;
}

/// Size of a communicator (ranks).
int size_of(MPI_Comm comm) {
  int q = 0;
  PMPI_Comm_size(comm, &q);
  return q;
}

/// Rank of this process in a communicator.
int rank_in(MPI_Comm comm) {
  int r = 0;
  PMPI_Comm_rank(comm, &r);
  return r;
}

}  // namespace

const char* call_name(int c) {
  static const char* const kNames[kCallTypes] = {"MPI_Send",  "MPI_Isend", "MPI_Rsend",  "MPI_Sendrecv", "MPI_Recv",
                                                 "MPI_Irecv", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce"};
  return c >= 0 && c < kCallTypes ? kNames[c] : "?";
}

void start() {
  g_stats = {};
  g_to_world_rank.clear();
  g_on = true;
}

void stop() { g_on = false; }

Totals collect(MPI_Comm world) {
  const bool was_on = g_on;
  g_on = false;
  const int P = size_of(world), me = rank_in(world);
  std::vector<std::uint64_t> mine(static_cast<std::size_t>(P), 0), all(static_cast<std::size_t>(P), 0);
  for (std::size_t w = 0; w < g_to_world_rank.size() && w < mine.size(); ++w) mine[w] = g_to_world_rank[w];
  PMPI_Allreduce(mine.data(), all.data(), P, MPI_UINT64_T, MPI_SUM, world);
  Totals t;
  t.per_call = g_stats;
  for (int c = 0; c < kCallTypes; ++c) {
    const CallStats& s = g_stats[static_cast<std::size_t>(c)];
    t.sent_bytes += s.sent_bytes;
    t.recv_bytes_receive_side += s.recv_bytes;
    if (c == kBcast || c == kReduce || c == kAllreduce) t.recv_bytes += s.recv_bytes;
  }
  t.recv_bytes += all[static_cast<std::size_t>(me)];
  g_on = was_on;
  return t;
}

}  // namespace pdgemm_counting

// --- the PMPI wrappers (C linkage from mpi.h's declarations) ---
using namespace pdgemm_counting;

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (g_on) count_send(kSend, bytes_of(count, type), dest, comm);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  if (g_on) count_send(kIsend, bytes_of(count, type), dest, comm);
  return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (g_on) count_send(kRsend, bytes_of(count, type), dest, comm);
  return PMPI_Rsend(buf, count, type, dest, tag, comm);
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  if (!g_on)
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, status);
  count_send(kSendrecv, bytes_of(sendcount, sendtype), dest, comm);
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                               recvtag, comm, st);
  int got = 0;
  if (source != MPI_PROC_NULL && PMPI_Get_count(st, recvtype, &got) == MPI_SUCCESS && got != MPI_UNDEFINED)
    g_stats[kSendrecv].recv_bytes += bytes_of(got, recvtype);
  return rc;
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  if (!g_on) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
  if (source != MPI_PROC_NULL) {
    int got = 0;
    ++g_stats[kRecv].calls;
    if (PMPI_Get_count(st, type, &got) == MPI_SUCCESS && got != MPI_UNDEFINED)
      g_stats[kRecv].recv_bytes += bytes_of(got, type);
  }
  return rc;
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  if (g_on && source != MPI_PROC_NULL) {
    ++g_stats[kIrecv].calls;
    g_stats[kIrecv].recv_bytes += bytes_of(count, type);  // the posted size
  }
  return PMPI_Irecv(buf, count, type, source, tag, comm, req);
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (g_on) {
    const std::uint64_t b = bytes_of(count, type);
    const int q = size_of(comm);
    if (rank_in(comm) == root)
      count_collective(kBcast, b * static_cast<std::uint64_t>(q - 1), 0, comm);
    else
      count_collective(kBcast, 0, b, comm);
  }
  return PMPI_Bcast(buffer, count, type, root, comm);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  if (g_on) {
    const std::uint64_t b = bytes_of(count, type);
    const int q = size_of(comm);
    if (rank_in(comm) == root)
      count_collective(kReduce, 0, b * static_cast<std::uint64_t>(q - 1), comm);
    else
      count_collective(kReduce, b, 0, comm);
  }
  return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (g_on) {
    const std::uint64_t b = bytes_of(count, type) * static_cast<std::uint64_t>(size_of(comm) - 1);
    count_collective(kAllreduce, b, b, comm);
  }
  return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

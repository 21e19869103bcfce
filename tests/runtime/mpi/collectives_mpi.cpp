// tests/runtime/mpi/collectives_mpi.cpp — shift, ring all-gather, all-reduce and alltoallv (in memory and on
// disk) on P ranks: exact values, bitwise agreement across ranks, and the exact byte counts that
// runtime/comm/comm.h documents. Every rank runs every test; run with mpiexec -np 1..5.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "runtime/comm/comm.h"
#include "runtime/storage/disk.h"
#include "tests/runtime/temp_dir.h"

namespace {

using tcert::Context;
using tcert::counters;
using tcert::DiskFile;
using tcert::Phase;

int mod(int a, int p) { return ((a % p) + p) % p; }

/// Counts of this rank in the Compute phase since the last reset (bytes).
struct Counted {
  std::uint64_t sent, recv, read, written;
};
Counted counted() {
  tcert::Volumes v = counters().snapshot(Phase::Compute);
  return {v.comm_sent_bytes, v.comm_recv_bytes, v.disk_read_bytes, v.disk_write_bytes};
}

/// True iff `data` is bitwise the same on every rank.
bool same_on_all_ranks(const Context& ctx, const std::vector<double>& data) {
  std::uint64_t hash = 14695981039346656037ULL;
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(data.data());
  for (std::size_t i = 0; i < data.size() * sizeof(double); ++i) hash = (hash ^ bytes[i]) * 1099511628211ULL;
  std::vector<std::uint64_t> all = ctx.gather_u64(hash);
  return std::all_of(all.begin(), all.end(), [&](std::uint64_t h) { return h == all[0]; });
}

/// Uneven piece sizes, zeros included: 3, 0, 2, 4, 1, 3, ...
std::size_t piece_elems(int q) { return static_cast<std::size_t>((q * 7 + 3) % 5); }

/// The allreduce counts of comm.h, in elements, for rank r of P with n elements.
std::uint64_t allreduce_elems(int r, int p, std::uint64_t n) {
  int p2 = 1, rounds = 0;
  while (p2 * 2 <= p) p2 *= 2, ++rounds;
  if (r >= p2) return n;
  return n * rounds + (r + p2 < p ? n : 0);
}

TEST(Collectives, ContextControlMessagesAreNotCounted) {
  Context ctx = Context::world();
  counters().reset();
  tcert::PhaseScope scope(Phase::Compute);
  EXPECT_EQ(ctx.max_over_ranks(ctx.rank() * 1.5), (ctx.size() - 1) * 1.5);
  EXPECT_TRUE(ctx.all_true(true));
  EXPECT_EQ(ctx.all_true(ctx.rank() != ctx.size() - 1), ctx.size() == 0);
  std::vector<std::uint64_t> all = ctx.gather_u64(10u * ctx.rank());
  ASSERT_EQ(all.size(), static_cast<std::size_t>(ctx.size()));
  for (int q = 0; q < ctx.size(); ++q) EXPECT_EQ(all[q], 10u * q);
  EXPECT_EQ(ctx.bcast_string(ctx.rank() == 0 ? "from root" : "ignored"), "from root");
  EXPECT_EQ(ctx.bcast_string(ctx.rank() == 0 ? "" : "x"), "");
  ctx.barrier();
  Counted c = counted();
  EXPECT_EQ(c.sent + c.recv + c.read + c.written, 0u);
}

TEST(Collectives, ShiftByEveryDistanceWithUnevenTilesAndSmallScratch) {
  Context ctx = Context::world();
  int p = ctx.size(), r = ctx.rank();
  for (int distance = 0; distance < p; ++distance) {
    int dest = mod(r + distance, p), source = mod(r - distance, p);
    std::size_t mine = piece_elems(r) * 3, theirs = piece_elems(source) * 3;
    std::vector<double> buf(std::max(mine, theirs), -1);
    for (std::size_t i = 0; i < mine; ++i) buf[i] = 1000.0 * r + i;
    std::vector<double> scratch(2);
    counters().reset();
    {
      tcert::PhaseScope scope(Phase::Compute);
      tcert::shift(ctx, buf.data(), mine, theirs, dest, source, scratch);
    }
    for (std::size_t i = 0; i < theirs; ++i) EXPECT_EQ(buf[i], 1000.0 * source + i) << i;
    Counted c = counted();
    bool self = distance == 0;  // dest == source == rank: no traffic, not counted
    EXPECT_EQ(c.sent, self ? 0 : 8 * mine) << "distance " << distance;
    EXPECT_EQ(c.recv, self ? 0 : 8 * theirs) << "distance " << distance;
  }
}

TEST(Collectives, ShiftToItselfNeedsEqualSizes) {
  Context ctx = Context::world();
  double x[2] = {1, 2};
  EXPECT_THROW(tcert::shift(ctx, x, 2, 1, ctx.rank(), ctx.rank(), {}), tcert::Error);
}

TEST(Collectives, RingAllgathervUnevenPieces) {
  Context ctx = Context::world();
  int p = ctx.size(), r = ctx.rank();
  std::vector<std::size_t> counts(p), offsets(p + 1, 0);
  for (int q = 0; q < p; ++q) counts[q] = piece_elems(q) * 11;
  std::partial_sum(counts.begin(), counts.end(), offsets.begin() + 1);
  std::size_t total = offsets[p];
  std::vector<double> buf(total, -1);
  for (std::size_t i = 0; i < counts[r]; ++i) buf[offsets[r] + i] = 100.0 * r + i;
  counters().reset();
  {
    tcert::PhaseScope scope(Phase::Compute);
    tcert::ring_allgatherv(ctx, buf.data(), counts);
  }
  for (int q = 0; q < p; ++q)
    for (std::size_t i = 0; i < counts[q]; ++i) EXPECT_EQ(buf[offsets[q] + i], 100.0 * q + i);
  Counted c = counted();
  EXPECT_EQ(c.sent, 8 * (total - counts[mod(r + 1, p)]));
  EXPECT_EQ(c.recv, 8 * (total - counts[r]));
  std::vector<std::size_t> wrong(p + 1, 1);
  EXPECT_THROW(tcert::ring_allgatherv(ctx, buf.data(), wrong), tcert::Error);
}

// Nodes of 2 ranks (rank / 2): the payload to and from ranks of another node is counted apart,
// on the world and on a communicator split from it (rank order reversed), until clear_nodes().
TEST(Collectives, BytesAcrossNodesAreCountedOnceNodesAreSet) {
  Context world = Context::world();
  const int p = world.size();
  std::vector<int> node_of(p);
  for (int q = 0; q < p; ++q) node_of[q] = q / 2;
  tcert::set_nodes(world, node_of);
  Context reversed = world.split(0, p - 1 - world.rank());
  for (const Context* ctx : {&world, &reversed}) {
    const int r = ctx->rank();
    auto node = [&](int q) { return ctx == &world ? q / 2 : (p - 1 - q) / 2; };  // of rank q of ctx
    std::vector<std::size_t> counts(p);
    for (int q = 0; q < p; ++q) counts[q] = piece_elems(q) * 5;
    std::vector<double> buf(std::accumulate(counts.begin(), counts.end(), std::size_t{0}), 1.0);
    counters().reset();
    {
      tcert::PhaseScope scope(Phase::Compute);
      tcert::RingAllgather ring(*ctx, buf.data(), counts);
      while (!ring.done()) ring.start(), ring.finish();
    }
    const tcert::Volumes v = counters().snapshot(Phase::Compute);
    const bool to_next = node(mod(r + 1, p)) != node(r), from_previous = node(mod(r - 1, p)) != node(r);
    EXPECT_EQ(v.internode_sent_bytes, to_next ? v.comm_sent_bytes : 0u) << "rank " << r;
    EXPECT_EQ(v.internode_recv_bytes, from_previous ? v.comm_recv_bytes : 0u) << "rank " << r;
    EXPECT_TRUE(tcert::crosses_nodes(*ctx, mod(r + 1, p)) == to_next);
    EXPECT_FALSE(tcert::crosses_nodes(*ctx, MPI_PROC_NULL));
  }
  Context::free_split(reversed);
  tcert::clear_nodes();
  counters().reset();
  std::vector<std::size_t> counts(p, 3);
  std::vector<double> buf(3 * static_cast<std::size_t>(p), 1.0);
  tcert::ring_allgatherv(world, buf.data(), counts);
  EXPECT_EQ(counters().total().internode_sent_bytes + counters().total().internode_recv_bytes, 0u);
  EXPECT_THROW(tcert::set_nodes(world, std::vector<int>(p + 1, 0)), tcert::Error);
}

// Rank s sends (s + 2·q) mod 4 elements to rank q (zeros included), value 1000·s + 10·q + i;
// counted bytes leave out the rank's own part.
TEST(Collectives, AlltoallvUnevenCountsAndOwnPartUncounted) {
  Context ctx = Context::world();
  const int p = ctx.size(), r = ctx.rank();
  auto elems = [](int s, int q) { return static_cast<std::size_t>((s + 2 * q) % 4); };
  std::vector<std::size_t> send_counts, recv_counts;
  std::vector<double> send;
  for (int q = 0; q < p; ++q) {
    send_counts.push_back(elems(r, q));
    recv_counts.push_back(elems(q, r));
    for (std::size_t i = 0; i < elems(r, q); ++i) send.push_back(1000.0 * r + 10.0 * q + static_cast<double>(i));
  }
  std::vector<double> recv(std::accumulate(recv_counts.begin(), recv_counts.end(), std::size_t{0}), -1);
  counters().reset();
  tcert::PhaseScope scope(Phase::Compute);
  tcert::alltoallv(ctx, send.data(), send_counts, recv.data(), recv_counts);
  std::size_t at = 0;
  for (int s = 0; s < p; ++s)
    for (std::size_t i = 0; i < elems(s, r); ++i) EXPECT_EQ(recv[at++], 1000.0 * s + 10.0 * r + static_cast<double>(i));
  const Counted c = counted();
  const std::size_t own = elems(r, r);
  EXPECT_EQ(c.sent, 8 * (send.size() - own));
  EXPECT_EQ(c.recv, 8 * (recv.size() - own));
  EXPECT_EQ(c.read + c.written, 0u);
}

TEST(Collectives, RingReduceScatterUnevenPiecesAndSplitCommunicators) {
  Context world = Context::world();
  // Twice: on the whole world, and on two halves made by split() (ranks of one color each).
  for (Context ctx : {world, world.split(world.rank() % 2, world.rank())}) {
    int p = ctx.size(), r = ctx.rank();
    std::vector<std::size_t> counts(p), offsets(p + 1, 0);
    for (int q = 0; q < p; ++q) counts[q] = piece_elems(q) * 3;
    std::partial_sum(counts.begin(), counts.end(), offsets.begin() + 1);
    std::size_t total = offsets[p];
    std::vector<double> buf(total), scratch(2);  // 2 elements: chunked
    for (std::size_t i = 0; i < total; ++i) buf[i] = (r + 1.0) * (i + 1.0);
    counters().reset();
    {
      tcert::PhaseScope scope(Phase::Compute);
      tcert::ring_reduce_scatter(ctx, buf.data(), counts, scratch);
    }
    for (std::size_t i = 0; i < counts[r]; ++i)  // Σ_ranks (rank + 1) = p (p + 1) / 2
      EXPECT_EQ(buf[offsets[r] + i], (offsets[r] + i + 1.0) * p * (p + 1) / 2);
    Counted c = counted();
    EXPECT_EQ(c.sent, p == 1 ? 0 : 8 * (total - counts[r]));
    EXPECT_EQ(c.recv, p == 1 ? 0 : 8 * (total - counts[mod(r - 1, p)]));
  }
}

TEST(Collectives, AllreduceSumExactAndBitwiseIdentical) {
  Context ctx = Context::world();
  int p = ctx.size(), r = ctx.rank();
  const std::size_t n = 37;
  std::vector<double> ints(n), reals(n), scratch(5);  // 5 < 37: chunked
  for (std::size_t j = 0; j < n; ++j) {
    ints[j] = (r + 1.0) * (j + 1.0);
    reals[j] = 1.0 / (r + 3.0) + 0.1 * j;
  }
  counters().reset();
  {
    tcert::PhaseScope scope(Phase::Compute);
    tcert::allreduce_sum(ctx, ints.data(), n, scratch);
  }
  for (std::size_t j = 0; j < n; ++j) EXPECT_EQ(ints[j], (j + 1.0) * p * (p + 1) / 2) << j;
  Counted c = counted();
  EXPECT_EQ(c.sent, 8 * allreduce_elems(r, p, n));
  EXPECT_EQ(c.recv, 8 * allreduce_elems(r, p, n));
  tcert::allreduce_sum(ctx, reals.data(), n, scratch);
  double harmonic = 0;
  for (int q = 0; q < p; ++q) harmonic += 1.0 / (q + 3.0);
  for (std::size_t j = 0; j < n; ++j) EXPECT_NEAR(reals[j], harmonic + 0.1 * j * p, 1e-12);
  EXPECT_TRUE(same_on_all_ranks(ctx, reals));
}

void fill_file(DiskFile& f, std::uint64_t offset, std::size_t n, double base) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = base + i;
  f.write(v.data(), offset, n);
}

std::vector<double> read_file(DiskFile& f, std::uint64_t offset, std::size_t n) {
  std::vector<double> v(n);
  f.read(v.data(), offset, n);
  return v;
}

TEST(Collectives, ShiftFileSeparateAndSameFile) {
  Context ctx = Context::world();
  int p = ctx.size(), r = ctx.rank();
  tcert_test::TempDir dir;
  for (bool same_file : {false, true}) {
    int dest = mod(r + 1, p), source = mod(r - 1, p);
    std::size_t mine = piece_elems(r) * 3, theirs = piece_elems(source) * 3;
    DiskFile from(dir.file("from.bin")), other(dir.file("to.bin"));
    from.resize(0);
    other.resize(0);
    fill_file(from, 0, mine, 1000.0 * r);
    DiskFile& to = same_file ? from : other;
    std::vector<double> buffer(6);  // chunks of 3
    counters().reset();
    {
      tcert::PhaseScope scope(Phase::Compute);
      tcert::shift_file(ctx, from, to, mine, theirs, dest, source, buffer);
    }
    Counted c = counted();
    std::vector<double> got = read_file(to, 0, theirs);
    for (std::size_t i = 0; i < theirs; ++i) EXPECT_EQ(got[i], 1000.0 * source + i);
    bool nothing = p == 1 && same_file;  // to itself, in place
    EXPECT_EQ(c.read, nothing ? 0 : 8 * mine) << same_file;
    EXPECT_EQ(c.written, nothing ? 0 : 8 * theirs) << same_file;
    EXPECT_EQ(c.sent, p == 1 ? 0 : 8 * mine);
    EXPECT_EQ(c.recv, p == 1 ? 0 : 8 * theirs);
  }
}

TEST(Collectives, RingAllgathervFile) {
  Context ctx = Context::world();
  int p = ctx.size(), r = ctx.rank();
  std::vector<std::size_t> counts(p), offsets(p + 1, 0);
  for (int q = 0; q < p; ++q) counts[q] = piece_elems(q) * 5;
  std::partial_sum(counts.begin(), counts.end(), offsets.begin() + 1);
  std::size_t total = offsets[p];
  tcert_test::TempDir dir;
  DiskFile f(dir.file("pieces.bin"));
  f.resize(total);
  fill_file(f, offsets[r], counts[r], 100.0 * r);
  std::vector<double> buffer(4);  // chunks of 2
  counters().reset();
  {
    tcert::PhaseScope scope(Phase::Compute);
    tcert::ring_allgatherv_file(ctx, f, counts, buffer);
  }
  Counted c = counted();
  std::vector<double> all = read_file(f, 0, total);
  for (int q = 0; q < p; ++q)
    for (std::size_t i = 0; i < counts[q]; ++i) EXPECT_EQ(all[offsets[q] + i], 100.0 * q + i);
  EXPECT_EQ(c.read, 8 * (total - counts[mod(r + 1, p)]));
  EXPECT_EQ(c.written, 8 * (total - counts[r]));
  EXPECT_EQ(c.sent, 8 * (total - counts[mod(r + 1, p)]));
  EXPECT_EQ(c.recv, 8 * (total - counts[r]));
}

TEST(Collectives, AllreduceSumFileOutputOnSomeRanks) {
  Context ctx = Context::world();
  int p = ctx.size(), r = ctx.rank();
  const std::size_t n = 29;
  tcert_test::TempDir dir;
  DiskFile in(dir.file("in.bin")), result(dir.file("out.bin"));
  std::vector<double> values(n);
  for (std::size_t j = 0; j < n; ++j) values[j] = (r + 1.0) * (j + 1.0);
  in.write(values.data(), 0, n);
  DiskFile* out = r % 2 == 1 ? nullptr : r == 0 ? &in : &result;  // rank 0 overwrites its input
  std::vector<double> buffer(8);                                  // chunks of 4
  counters().reset();
  {
    tcert::PhaseScope scope(Phase::Compute);
    tcert::allreduce_sum_file(ctx, in, out, n, buffer);
  }
  Counted c = counted();
  if (out != nullptr) {
    std::vector<double> got = read_file(*out, 0, n);
    for (std::size_t j = 0; j < n; ++j) EXPECT_EQ(got[j], (j + 1.0) * p * (p + 1) / 2);
  }
  EXPECT_EQ(c.read, 8 * n);
  EXPECT_EQ(c.written, out != nullptr ? 8 * n : 0);
  EXPECT_EQ(c.sent, 8 * allreduce_elems(r, p, n));
  EXPECT_EQ(c.recv, 8 * allreduce_elems(r, p, n));
}

}  // namespace

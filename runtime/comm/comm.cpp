// runtime/comm/comm.cpp — Context, and shift / ring all-gather / all-reduce in memory and on disk.
//
// Reader's map:
//   check(), exchange(), stream()   one counted MPI_Sendrecv, and a chunked stream of them.
//   Context                         control messages (uncounted).
//   shift, ring_allgatherv, allreduce_sum and their *_file versions, built on stream().
#include "runtime/comm/comm.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string>
#include <utility>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "runtime/spec/units.h"
#include "runtime/storage/disk.h"

namespace tcert {

namespace {

/// Largest message, in elements: MPI counts are int.
constexpr std::size_t kMaxMessageElems = std::size_t{1} << 27;
constexpr int kShiftTag = 7101, kRingTag = 7102, kAllreduceTag = 7103, kReduceScatterTag = 7104, kAlltoallTag = 7105;

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw Error(std::string(call) + " failed: " + std::string(text, length));
}

/// The nodes set_nodes() set: the communicator they are for, its group, each rank's node.
struct Nodes {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Group group = MPI_GROUP_NULL;
  std::vector<int> node_of;
  int mine = 0;  // this process's node
};
Nodes& nodes() {
  static Nodes n;
  return n;
}

/// Counts a message's payload that crosses nodes (crosses_nodes()).
void count_crossing(const Context& ctx, std::size_t send_n, int dest, std::size_t recv_n, int source) {
  if (nodes().node_of.empty()) return;
  if (send_n > 0 && crosses_nodes(ctx, dest))
    counters().add_internode_sent(bytes_of(static_cast<std::uint64_t>(send_n)));
  if (recv_n > 0 && crosses_nodes(ctx, source))
    counters().add_internode_recv(bytes_of(static_cast<std::uint64_t>(recv_n)));
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

/// Chunk size for a scratch of `scratch_elems`; Error when data must move but there is no room.
std::size_t chunk_elems(std::size_t scratch_elems, bool data_moves, const char* who) {
  if (data_moves && scratch_elems == 0)
    throw Error(std::string(who) + " needs a buffer of at least 1 element to move data");
  return std::min(scratch_elems, kMaxMessageElems);
}

/// One MPI_Sendrecv of counted payload; a side with 0 elements is MPI_PROC_NULL (no message).
void exchange(const Context& ctx, const double* send, std::size_t send_n, int dest, double* recv, std::size_t recv_n,
              int source, int tag) {
  int to = send_n > 0 ? dest : MPI_PROC_NULL;
  int from = recv_n > 0 ? source : MPI_PROC_NULL;
  MPI_Status status;
  const Stopwatch clock;
  check(MPI_Sendrecv(send, static_cast<int>(send_n), MPI_DOUBLE, to, tag, recv, static_cast<int>(recv_n), MPI_DOUBLE,
                     from, tag, ctx.comm(), &status),
        "MPI_Sendrecv");
  if (from != MPI_PROC_NULL) {
    int got = 0;
    MPI_Get_count(&status, MPI_DOUBLE, &got);
    if (static_cast<std::size_t>(got) != recv_n)
      throw Error("rank " + std::to_string(ctx.rank()) + " received " + std::to_string(got) + " elements from rank " +
                  std::to_string(source) + " but expected " + std::to_string(recv_n) +
                  " (counts and buffer sizes must agree on every rank)");
  }
  counters().add_comm_time(clock.seconds());
  counters().add_sent(bytes_of(static_cast<std::uint64_t>(send_n)));
  counters().add_recv(bytes_of(static_cast<std::uint64_t>(recv_n)));
  count_crossing(ctx, send_n, dest, recv_n, source);
}

/// Sends send_n elements to dest while receiving recv_n from source, in messages of at most
/// `chunk` elements: iteration c moves chunk c (offset c·chunk) of each side that has one.
/// send_at(off, len) gives the data to send; recv_at(off, len) where to receive it;
/// received(off, len, ptr) is called once the chunk has arrived.
template <class SendAt, class RecvAt, class Received>
void stream(const Context& ctx, std::size_t send_n, int dest, std::size_t recv_n, int source, std::size_t chunk,
            int tag, SendAt send_at, RecvAt recv_at, Received received) {
  if (send_n == 0 && recv_n == 0) return;
  std::size_t iterations = std::max(ceil_div(send_n, chunk), ceil_div(recv_n, chunk));
  for (std::size_t c = 0; c < iterations; ++c) {
    std::size_t off = c * chunk;
    std::size_t sn = off < send_n ? std::min(chunk, send_n - off) : 0;
    std::size_t rn = off < recv_n ? std::min(chunk, recv_n - off) : 0;
    const double* sp = sn > 0 ? send_at(off, sn) : nullptr;
    double* rp = rn > 0 ? recv_at(off, rn) : nullptr;
    exchange(ctx, sp, sn, dest, rp, rn, source, tag);
    if (rn > 0) received(off, rn, rp);
  }
}

void nothing(std::size_t, std::size_t, double*) {}

/// Offsets of the pieces of an all-gather buffer, in elements (prefix sums of counts).
std::vector<std::size_t> piece_offsets(const Context& ctx, std::span<const std::size_t> counts) {
  if (counts.size() != static_cast<std::size_t>(ctx.size()))
    throw Error("a collective of uneven pieces has " + std::to_string(counts.size()) + " piece counts for " +
                std::to_string(ctx.size()) + " ranks");
  std::vector<std::size_t> offsets(counts.size() + 1, 0);
  for (std::size_t q = 0; q < counts.size(); ++q) offsets[q + 1] = offsets[q] + counts[q];
  return offsets;
}

int mod(int a, int p) { return ((a % p) + p) % p; }

}  // namespace

// ---- Context -------------------------------------------------------------------------------

Context Context::split(int color, int key) const {
  MPI_Comm part = MPI_COMM_NULL;
  check(MPI_Comm_split(comm_, color, key, &part), "MPI_Comm_split");
  MPI_Comm_set_errhandler(part, MPI_ERRORS_RETURN);
  return Context(part);
}

Context Context::world() {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) throw Error("MPI is not initialised (run_program() calls MPI_Init)");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  return Context(MPI_COMM_WORLD);
}

Context::Context(MPI_Comm comm) : comm_(comm) {
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

void Context::barrier() const { check(MPI_Barrier(comm_), "MPI_Barrier"); }

double Context::max_over_ranks(double value) const {
  double result = 0;
  check(MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
  return result;
}

bool Context::all_true(bool value) const {
  int mine = value ? 1 : 0, all = 0;
  check(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm_), "MPI_Allreduce");
  return all != 0;
}

std::vector<std::uint64_t> Context::gather_u64(std::uint64_t value) const {
  std::vector<std::uint64_t> all(static_cast<std::size_t>(size_));
  check(MPI_Allgather(&value, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm_), "MPI_Allgather");
  return all;
}

std::vector<std::vector<std::uint64_t>> Context::gather_u64s(const std::vector<std::uint64_t>& values) const {
  const std::size_t n = values.size(), ranks = static_cast<std::size_t>(size_);
  std::vector<std::uint64_t> all(n * ranks);
  check(MPI_Allgather(values.data(), static_cast<int>(n), MPI_UINT64_T, all.data(), static_cast<int>(n), MPI_UINT64_T,
                      comm_),
        "MPI_Allgather");
  std::vector<std::vector<std::uint64_t>> out(n, std::vector<std::uint64_t>(ranks));
  for (std::size_t q = 0; q < ranks; ++q)
    for (std::size_t i = 0; i < n; ++i) out[i][q] = all[q * n + i];
  return out;
}

namespace {

/// Root's (failed, text), on every rank: a header (1 byte failed, 8 bytes length) and the text's
/// first bytes in one MPI_Bcast of Context::kInlineBytes, the rest (if any) in a second.
std::pair<bool, std::string> bcast_message(MPI_Comm comm, bool root, bool failed, const std::string& text, int from) {
  constexpr std::size_t kHeader = 1 + sizeof(std::uint64_t), kRoom = Context::kInlineBytes - kHeader;
  std::array<char, Context::kInlineBytes> first{};
  std::uint64_t length = text.size();
  if (root) {
    first[0] = failed ? 1 : 0;
    std::memcpy(first.data() + 1, &length, sizeof length);
    std::memcpy(first.data() + kHeader, text.data(), std::min<std::size_t>(length, kRoom));
  }
  check(MPI_Bcast(first.data(), static_cast<int>(first.size()), MPI_CHAR, from, comm), "MPI_Bcast");
  std::memcpy(&length, first.data() + 1, sizeof length);
  std::string out = root ? text : std::string(length, '\0');
  if (!root) std::memcpy(out.data(), first.data() + kHeader, std::min<std::size_t>(length, kRoom));
  if (length > kRoom)
    check(MPI_Bcast(out.data() + kRoom, static_cast<int>(length - kRoom), MPI_CHAR, from, comm), "MPI_Bcast");
  return {first[0] != 0, out};
}

}  // namespace

std::string Context::bcast_string(const std::string& value, int root) const {
  return bcast_message(comm_, rank_ == root, false, value, root).second;
}

std::string Context::root_value(const std::function<std::string()>& action, int root) const {
  bool failed = false;
  std::string text;
  if (rank_ == root) {
    try {
      text = action();
    } catch (const std::exception& e) {
      failed = true, text = e.what();
    }
  }
  auto [root_failed, value] = bcast_message(comm_, rank_ == root, failed, text, root);
  if (root_failed) throw Error(value);
  return value;
}

std::optional<std::string> Context::first_error(const std::optional<std::string>& mine) const {
  const int candidate = mine ? rank_ : size_;
  int first = size_;
  check(MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
  if (first == size_) return std::nullopt;
  return bcast_string(mine ? *mine : std::string(), first);
}

namespace {

/// The message of what `action` throws, nullopt when it returns.
std::optional<std::string> failure_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

}  // namespace

void Context::check_all(const std::function<void()>& action) const {
  if (std::optional<std::string> error = first_error(failure_of(action))) throw Error(*error);
}

void Context::check_root(const std::function<void()>& action, int root) const {
  check_all([&] {
    if (rank_ == root) action();
  });
}

void Context::free_split(Context& ctx) {
  if (ctx.comm_ != MPI_COMM_NULL && ctx.comm_ != MPI_COMM_WORLD) MPI_Comm_free(&ctx.comm_);
  ctx.comm_ = MPI_COMM_NULL;
}

int ranks_on_node(MPI_Comm comm) {
  MPI_Comm node;
  int ranks = 1;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_size(node, &ranks);
    MPI_Comm_free(&node);
  }
  return ranks;
}

void set_nodes(const Context& ctx, std::vector<int> node_of) {
  if (node_of.size() != static_cast<std::size_t>(ctx.size()))
    throw Error("set_nodes: " + std::to_string(node_of.size()) + " nodes for " + std::to_string(ctx.size()) + " ranks");
  clear_nodes();
  Nodes& n = nodes();
  check(MPI_Comm_group(ctx.comm(), &n.group), "MPI_Comm_group");
  n.comm = ctx.comm();
  n.mine = node_of[static_cast<std::size_t>(ctx.rank())];
  n.node_of = std::move(node_of);
}

void clear_nodes() {
  Nodes& n = nodes();
  if (n.group != MPI_GROUP_NULL) MPI_Group_free(&n.group);
  n = Nodes{};
}

bool crosses_nodes(const Context& ctx, int peer) {
  const Nodes& n = nodes();
  if (n.node_of.empty() || peer == MPI_PROC_NULL) return false;
  int at = peer;  // peer's rank in the communicator the nodes were set for
  if (ctx.comm() != n.comm) {
    MPI_Group group;
    check(MPI_Comm_group(ctx.comm(), &group), "MPI_Comm_group");
    const int rc = MPI_Group_translate_ranks(group, 1, &peer, n.group, &at);
    MPI_Group_free(&group);
    check(rc, "MPI_Group_translate_ranks");
  }
  if (at < 0 || at >= static_cast<int>(n.node_of.size())) return false;  // MPI_UNDEFINED: not among them
  return n.node_of[static_cast<std::size_t>(at)] != n.mine;
}

// ---- in memory -----------------------------------------------------------------------------

void shift(const Context& ctx, double* buf, std::size_t send_elems, std::size_t recv_elems, int dest, int source,
           std::span<double> scratch) {
  if (dest == ctx.rank() && source == ctx.rank()) {
    if (send_elems != recv_elems)
      throw Error("shift to itself sends " + std::to_string(send_elems) + " elements but receives " +
                  std::to_string(recv_elems));
    return;
  }
  std::size_t chunk = chunk_elems(scratch.size(), send_elems + recv_elems > 0, "shift");
  stream(
      ctx, send_elems, dest, recv_elems, source, chunk, kShiftTag,
      [&](std::size_t off, std::size_t) { return buf + off; }, [&](std::size_t, std::size_t) { return scratch.data(); },
      [&](std::size_t off, std::size_t len, double* got) { std::copy_n(got, len, buf + off); });
}

void alltoallv(const Context& ctx, const double* send, std::span<const std::size_t> send_counts, double* recv,
               std::span<const std::size_t> recv_counts) {
  const std::vector<std::size_t> sent_at = piece_offsets(ctx, send_counts), recv_at = piece_offsets(ctx, recv_counts);
  const int P = ctx.size(), r = ctx.rank();
  if (send_counts[r] != recv_counts[r])
    throw Error("alltoallv sends " + std::to_string(send_counts[r]) + " elements to its own rank but receives " +
                std::to_string(recv_counts[r]));
  std::copy_n(send + sent_at[r], send_counts[r], recv + recv_at[r]);
  for (int t = 1; t < P; ++t) {
    const int dest = mod(r + t, P), source = mod(r - t, P);
    stream(
        ctx, send_counts[dest], dest, recv_counts[source], source, kMaxMessageElems, kAlltoallTag,
        [&](std::size_t off, std::size_t) { return send + sent_at[dest] + off; },
        [&](std::size_t off, std::size_t) { return recv + recv_at[source] + off; }, nothing);
  }
}

void ring_reduce_scatter(const Context& ctx, double* buf, std::span<const std::size_t> counts,
                         std::span<double> scratch) {
  std::vector<std::size_t> offsets = piece_offsets(ctx, counts);
  int q = ctx.size(), r = ctx.rank();
  if (q == 1) return;
  std::size_t chunk = chunk_elems(scratch.size(), offsets.back() > 0, "ring_reduce_scatter");
  for (int s = 0; s + 1 < q; ++s) {
    int send_piece = mod(r - s - 1, q), recv_piece = mod(r - s - 2, q);
    stream(
        ctx, counts[send_piece], mod(r + 1, q), counts[recv_piece], mod(r - 1, q), chunk, kReduceScatterTag,
        [&](std::size_t off, std::size_t) { return buf + offsets[send_piece] + off; },
        [&](std::size_t, std::size_t) { return scratch.data(); },
        [&](std::size_t off, std::size_t len, double* got) {
          double* mine = buf + offsets[recv_piece] + off;
          for (std::size_t i = 0; i < len; ++i) mine[i] += got[i];
        });
  }
}

RingAllgather::RingAllgather(const Context& ctx, double* buf, std::span<const std::size_t> counts)
    : ctx_(ctx),
      buf_(buf),
      counts_(counts.begin(), counts.end()),
      offsets_(piece_offsets(ctx, counts)),
      size_(ctx.size()),
      rank_(ctx.rank()) {}

int RingAllgather::incoming_piece() const { return mod(rank_ - step_ - 1, size_); }

void RingAllgather::start() {
  if (done() || !requests_.empty()) throw Error("RingAllgather::start: no step to start");
  const Stopwatch clock;
  const int send_piece = mod(rank_ - step_, size_), recv_piece = incoming_piece();
  const int next = mod(rank_ + 1, size_), previous = mod(rank_ - 1, size_);
  for (std::size_t off = 0; off < counts_[recv_piece]; off += kMaxMessageElems) {
    requests_.emplace_back();
    check(MPI_Irecv(buf_ + offsets_[recv_piece] + off,
                    static_cast<int>(std::min(kMaxMessageElems, counts_[recv_piece] - off)), MPI_DOUBLE, previous,
                    kRingTag, ctx_.comm(), &requests_.back()),
          "MPI_Irecv");
  }
  for (std::size_t off = 0; off < counts_[send_piece]; off += kMaxMessageElems) {
    requests_.emplace_back();
    check(MPI_Isend(buf_ + offsets_[send_piece] + off,
                    static_cast<int>(std::min(kMaxMessageElems, counts_[send_piece] - off)), MPI_DOUBLE, next, kRingTag,
                    ctx_.comm(), &requests_.back()),
          "MPI_Isend");
  }
  posted_seconds_ = clock.seconds();
}

void RingAllgather::finish() {
  const Stopwatch clock;
  check(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  requests_.clear();
  counters().add_comm_time(posted_seconds_ + clock.seconds());
  counters().add_sent(bytes_of(static_cast<std::uint64_t>(counts_[mod(rank_ - step_, size_)])));
  counters().add_recv(bytes_of(static_cast<std::uint64_t>(counts_[incoming_piece()])));
  count_crossing(ctx_, counts_[mod(rank_ - step_, size_)], mod(rank_ + 1, size_), counts_[incoming_piece()],
                 mod(rank_ - 1, size_));
  ++step_;
}

void ring_allgatherv(const Context& ctx, double* buf, std::span<const std::size_t> counts) {
  std::vector<std::size_t> offsets = piece_offsets(ctx, counts);
  int p = ctx.size(), r = ctx.rank();
  for (int s = 0; s + 1 < p; ++s) {
    int send_piece = mod(r - s, p), recv_piece = mod(r - s - 1, p);
    stream(
        ctx, counts[send_piece], mod(r + 1, p), counts[recv_piece], mod(r - 1, p), kMaxMessageElems, kRingTag,
        [&](std::size_t off, std::size_t) { return buf + offsets[send_piece] + off; },
        [&](std::size_t off, std::size_t) { return buf + offsets[recv_piece] + off; }, nothing);
  }
}

void allreduce(const Context& ctx, double* buf, std::size_t n, std::span<double> scratch, Combine combine) {
  int p = ctx.size(), r = ctx.rank();
  if (p == 1 || n == 0) return;
  std::size_t chunk = chunk_elems(scratch.size(), true, "allreduce");
  int p2 = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
  auto at_buf = [&](std::size_t off, std::size_t) { return buf + off; };
  auto at_scratch = [&](std::size_t, std::size_t) { return scratch.data(); };
  // lower ∘ higher: a sum (in that order, so every rank forms the same value) or a bitwise OR.
  auto combined = [combine](double lower, double higher) {
    if (combine == Combine::Sum) return lower + higher;
    return std::bit_cast<double>(std::bit_cast<std::uint64_t>(lower) | std::bit_cast<std::uint64_t>(higher));
  };
  // buf is the lower rank's data, scratch the higher rank's, or the other way round.
  auto add_higher = [&](std::size_t off, std::size_t len, double* got) {
    for (std::size_t j = 0; j < len; ++j) buf[off + j] = combined(buf[off + j], got[j]);
  };
  auto add_lower = [&](std::size_t off, std::size_t len, double* got) {
    for (std::size_t j = 0; j < len; ++j) buf[off + j] = combined(got[j], buf[off + j]);
  };
  if (r >= p2) {  // (1) hand the data to r − P', (3) get the result back
    stream(ctx, n, r - p2, 0, MPI_PROC_NULL, chunk, kAllreduceTag, at_buf, at_scratch, nothing);
    stream(ctx, 0, MPI_PROC_NULL, n, r - p2, chunk, kAllreduceTag, at_buf, at_buf, nothing);
    return;
  }
  bool has_extra = r + p2 < p;
  if (has_extra) stream(ctx, 0, MPI_PROC_NULL, n, r + p2, chunk, kAllreduceTag, at_buf, at_scratch, add_higher);
  for (int mask = 1; mask < p2; mask <<= 1) {  // (2) recursive doubling among r < P'
    int partner = r ^ mask;
    if (r < partner)
      stream(ctx, n, partner, n, partner, chunk, kAllreduceTag, at_buf, at_scratch, add_higher);
    else
      stream(ctx, n, partner, n, partner, chunk, kAllreduceTag, at_buf, at_scratch, add_lower);
  }
  if (has_extra) stream(ctx, n, r + p2, 0, MPI_PROC_NULL, chunk, kAllreduceTag, at_buf, at_scratch, nothing);
}

// ---- on disk -------------------------------------------------------------------------------

void shift_file(const Context& ctx, DiskFile& from, DiskFile& to, std::size_t send_elems, std::size_t recv_elems,
                int dest, int source, std::span<double> buffer) {
  if (dest == ctx.rank() && source == ctx.rank()) {
    if (send_elems != recv_elems)
      throw Error("shift to itself sends " + std::to_string(send_elems) + " elements but receives " +
                  std::to_string(recv_elems));
    if (&from == &to) return;
    std::size_t chunk = chunk_elems(buffer.size(), send_elems > 0, "shift_file");
    for (std::size_t off = 0; off < send_elems; off += chunk) {
      std::size_t len = std::min(chunk, send_elems - off);
      from.read(buffer.data(), off, len);
      to.write(buffer.data(), off, len);
    }
    return;
  }
  std::size_t chunk = chunk_elems(buffer.size() / 2, send_elems + recv_elems > 0, "shift_file");
  double* outgoing = buffer.data();
  double* incoming = buffer.data() + chunk;
  stream(
      ctx, send_elems, dest, recv_elems, source, chunk, kShiftTag,
      [&](std::size_t off, std::size_t len) {
        from.read(outgoing, off, len);
        return outgoing;
      },
      [&](std::size_t, std::size_t) { return incoming; },
      [&](std::size_t off, std::size_t len, double* got) { to.write(got, off, len); });
}

void ring_allgatherv_file(const Context& ctx, DiskFile& f, std::span<const std::size_t> counts,
                          std::span<double> buffer) {
  std::vector<std::size_t> offsets = piece_offsets(ctx, counts);
  int p = ctx.size(), r = ctx.rank();
  if (p == 1) return;
  std::size_t chunk = chunk_elems(buffer.size() / 2, offsets[p] > 0, "ring_allgatherv_file");
  double* outgoing = buffer.data();
  double* incoming = buffer.data() + chunk;
  for (int s = 0; s + 1 < p; ++s) {
    int send_piece = mod(r - s, p), recv_piece = mod(r - s - 1, p);
    stream(
        ctx, counts[send_piece], mod(r + 1, p), counts[recv_piece], mod(r - 1, p), chunk, kRingTag,
        [&](std::size_t off, std::size_t len) {
          f.read(outgoing, offsets[send_piece] + off, len);
          return outgoing;
        },
        [&](std::size_t, std::size_t) { return incoming; },
        [&](std::size_t off, std::size_t len, double* got) { f.write(got, offsets[recv_piece] + off, len); });
  }
}

void allreduce_file(const Context& ctx, DiskFile& in, DiskFile* out, std::uint64_t first, std::size_t n,
                    std::span<double> buffer, Combine combine) {
  std::size_t chunk = chunk_elems(buffer.size() / 2, n > 0, "allreduce_file");
  std::span<double> data = buffer.first(chunk), scratch = buffer.subspan(chunk, chunk);
  for (std::size_t off = 0; off < n; off += chunk) {
    std::size_t len = std::min(chunk, n - off);
    in.read(data.data(), first + off, len);
    allreduce(ctx, data.data(), len, scratch, combine);
    if (out != nullptr) out->write(data.data(), first + off, len);
  }
}

}  // namespace tcert

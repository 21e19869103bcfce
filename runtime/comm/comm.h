// runtime/comm/comm.h — the MPI context and the counted data movement of out-of-core plans.
//
// Reader's map:
//   Context                   a communicator plus small, uncounted control messages.
//   shift()                   in-place circular shift of a tile (Cannon-style rotation).
//   ring_allgatherv()         in-place ring all-gather of uneven pieces (replication).
//   allreduce_sum()           recursive-doubling sum over ranks (accumulation).
//   *_file()                  the same three, streamed disk → network → disk.
//
// Rotation, replication and accumulation are the three ways Gao et al. §3 handle a
// macro-index; these are their communication steps. Units: every count and offset of a buffer
// is in ELEMENTS (doubles). What is added to counters() is bytes: 8 · elements. Only the
// payload of these collectives is counted; Context's control messages are not.
//
// Every rank of the communicator must call a collective with consistent arguments: the same
// counts, and scratch/buffer spans of the SAME size on every rank, because both sides of a
// message split it into the same chunks. A mismatch is detected and throws Error.
// MPI failures throw Error (Context::world() switches MPI_COMM_WORLD to MPI_ERRORS_RETURN).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tcert {

class DiskFile;

/// A communicator and this process's place in it. Cheap to copy; does not own the communicator.
class Context {
 public:
  /// MPI_COMM_WORLD. MPI must already be initialised (run_program() does it); does not call
  /// MPI_Init. Sets MPI_ERRORS_RETURN on MPI_COMM_WORLD so failures become Errors.
  /// Throws Error("MPI is not initialised ...") otherwise.
  static Context world();
  /// Wraps `comm` (e.g. a sub-communicator in tests).
  explicit Context(MPI_Comm comm);

  int rank() const { return rank_; }       ///< this process's rank, 0 ≤ rank() < size()
  int size() const { return size_; }       ///< P, the number of ranks
  MPI_Comm comm() const { return comm_; }  ///< the wrapped communicator

  /// MPI_Barrier: returns when every rank has called it.
  void barrier() const;
  /// The maximum of `value` over all ranks, on every rank.
  double max_over_ranks(double value) const;
  /// True on every rank iff `value` is true on every rank.
  bool all_true(bool value) const;
  /// Element q is rank q's `value`; every rank receives the whole vector (MPI_Allgather).
  std::vector<std::uint64_t> gather_u64(std::uint64_t value) const;
  /// gather_u64() of several values at once, in one MPI_Allgather: element i of the result holds
  /// every rank's values[i] (element q from rank q). Every rank passes as many values.
  std::vector<std::vector<std::uint64_t>> gather_u64s(const std::vector<std::uint64_t>& values) const;
  /// Root's `value`, on every rank (the argument of the other ranks is ignored). One MPI_Bcast
  /// of kInlineBytes when the value fits in it, a second one for the rest otherwise.
  std::string bcast_string(const std::string& value, int root = 0) const;
  /// Runs `action` on rank `root` only and returns its result on every rank; when it throws (an
  /// std::exception) there, every rank throws Error with its message. What check_root()
  /// followed by bcast_string() does, in one broadcast (two beyond kInlineBytes). Collective.
  std::string root_value(const std::function<std::string()>& action, int root = 0) const;
  /// Bytes of a message that bcast_string() and root_value() send in their first broadcast.
  static constexpr std::size_t kInlineBytes = 4096;
  /// The first error among the ranks: every rank passes its own (nullopt: none); all receive
  /// the message of the lowest rank that has one, or nullopt when no rank has. Collective.
  std::optional<std::string> first_error(const std::optional<std::string>& mine) const;
  /// Runs `action` on every rank and makes its failure collective: when it throws (an
  /// std::exception) on any rank, every rank throws Error with the message of the lowest rank
  /// that failed (first_error()). So a failure of some ranks in a local operation (creating a
  /// file, a directory) does not leave the others waiting in the next collective. `action`
  /// must not fail halfway through a collective of its own. Collective.
  void check_all(const std::function<void()>& action) const;
  /// Runs `action` on rank `root` only; when it throws, every rank throws Error with its
  /// message. Collective.
  void check_root(const std::function<void()>& action, int root = 0) const;
  /// MPI_Comm_split: the ranks with the same `color` form a new communicator, ordered by
  /// `key`. Collective over this communicator. The caller frees the new communicator
  /// (free_split()) when done with it. Errors set to return.
  Context split(int color, int key) const;
  /// MPI_Comm_free of a communicator made by split(); `ctx` must not be used afterwards.
  /// Errors are ignored (called from destructors).
  static void free_split(Context& ctx);

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
};

/// The number of ranks of `comm` on this process's node (MPI_Comm_split_type
/// MPI_COMM_TYPE_SHARED); 1 when MPI cannot tell. Collective over comm.
int ranks_on_node(MPI_Comm comm);

/// Which node each rank of `ctx` is on (node_of[q] for rank q; program/tensor_store.h groups the
/// ranks by their view of the scratch), so that the counted collectives below also count the
/// payload to and from ranks of other nodes (counters.h Volumes::internode_sent_bytes), on any
/// communicator whose ranks are ranks of ctx. Until set, and after clear_nodes(), nothing is
/// counted as crossing nodes. Local (not collective); ctx's communicator must outlive the
/// setting. Throws Error when node_of.size() != ctx.size().
void set_nodes(const Context& ctx, std::vector<int> node_of);
/// Forgets the nodes set_nodes() set (idempotent; called from destructors).
void clear_nodes();
/// Whether `peer` (a rank of ctx, or MPI_PROC_NULL: false) is on another node than this
/// process, by the nodes set_nodes() set (false while none are).
bool crosses_nodes(const Context& ctx, int peer);

/// In-place circular shift (one step of Cannon's rotation), rank r with dest and source:
///
///   before: buf = [ s_0 … s_{send_elems−1} | … ]   s goes to dest
///   after:  buf = [ t_0 … t_{recv_elems−1} | … ]   t came from source
///
/// Chunk c (c·ch, ch = min(scratch.size(), 2^27) elements) is sent with MPI_Sendrecv while the
/// matching chunk from source lands in scratch and is then copied to buf[c·ch …); a side with
/// no chunk c left takes part as MPI_PROC_NULL. So no second tile-sized buffer is needed, only
/// scratch. buf must hold max(send_elems, recv_elems) elements and not overlap scratch; dest's
/// recv_elems must equal our send_elems. scratch may be empty only when nothing moves.
/// Counted (bytes): sent = 8·send_elems, recv = 8·recv_elems.
/// dest == source == rank: no MPI traffic and nothing counted; buf is unchanged and
/// send_elems must equal recv_elems (Error otherwise).
void shift(const Context& ctx, double* buf, std::size_t send_elems, std::size_t recv_elems, int dest, int source,
           std::span<double> scratch);

/// In-place ring all-gather of P = ctx.size() pieces of uneven sizes counts[0..P):
///
///   buf = [ piece 0 | piece 1 | … | piece P−1 ],  piece q at offset Σ_{q'<q} counts[q']
///   before: only piece r (this rank's) is valid;  after: all pieces are valid on every rank.
///
/// P−1 steps; at step s (0-based) rank r sends piece (r−s) mod P to (r+1) mod P and receives
/// piece (r−s−1) mod P from (r−1) mod P straight into its place. With T = Σ counts:
/// counted sent = 8·(T − counts[(r+1) mod P]), recv = 8·(T − counts[r]) bytes. P = 1: nothing.
/// Throws Error when counts.size() != P.
void ring_allgatherv(const Context& ctx, double* buf, std::span<const std::size_t> counts);

/// ring_allgatherv() taken one step at a time with non-blocking MPI, so the caller can compute
/// on the pieces already present while the next one travels (Kwasniewski et al. §7.3: overlap of
/// communication and computation). Same buffer layout, same steps, same counted bytes:
///
///   RingAllgather ring(ctx, buf, counts);
///   while (!ring.done()) { ring.start();  /* compute on present pieces */  ring.finish(); }
///
/// Before step s, pieces r, r−1, …, r−s (mod P) are valid; step s receives piece r−s−1.
/// Messages larger than 2^27 elements are split. The object must outlive a started step.
class RingAllgather {
 public:
  /// Throws Error when counts.size() != ctx.size(). Copies counts.
  RingAllgather(const Context& ctx, double* buf, std::span<const std::size_t> counts);
  bool done() const { return step_ + 1 >= size_; }  ///< all P − 1 steps finished
  int step() const { return step_; }                ///< steps finished so far
  /// Piece received by the current (or next) step: (r − step − 1) mod P.
  int incoming_piece() const;
  /// Posts the step's MPI_Irecv and MPI_Isend. Error if done() or a step is in flight.
  void start();
  /// Waits for the posted step and counts its bytes (and the wait as comm time).
  void finish();

 private:
  const Context& ctx_;
  double* buf_;
  std::vector<std::size_t> counts_, offsets_;
  int size_ = 1, rank_ = 0, step_ = 0;
  std::vector<MPI_Request> requests_;
  double posted_seconds_ = 0;
};

/// In-place ring reduce-scatter of q = ctx.size() pieces of uneven sizes counts[0..q):
///
///   buf = [ piece 0 | piece 1 | … | piece q−1 ]   (every rank's own partial values)
///   after: piece r of rank r holds Σ over ranks of piece r; the other pieces are clobbered.
///
/// q−1 steps; at step s (0-based) rank r sends its partial sum of piece (r−s−1) mod q to
/// (r+1) mod q, receives piece (r−s−2) mod q from (r−1) mod q into scratch (in chunks of
/// ≤ scratch.size() elements; scratch must have the same size on every rank, which cuts the
/// messages) and adds it to its own. With T = Σ counts, counted:
/// sent = 8·(T − counts[r]), recv = 8·(T − counts[(r−1) mod q]) bytes. q = 1: nothing.
/// Throws Error when counts.size() != q, or scratch is empty while data must move.
void ring_reduce_scatter(const Context& ctx, double* buf, std::span<const std::size_t> counts,
                         std::span<double> scratch);

/// How allreduce() combines two ranks' values of an element: their sum, or the bitwise OR of
/// their bit patterns (exact: gathers values that one rank holds and every other rank holds as
/// +0.0, e.g. the parts of a file that each node wrote, TensorStore::complete()).
enum class Combine { Sum, BitwiseOr };

/// buf[0, n) ← the combination over ranks of buf[0, n) (Σ, or bitwise OR), bitwise identical
/// on every rank.
/// Recursive doubling, chunked through scratch (chunks of ≤ scratch.size() elements). With
/// P' the largest power of two ≤ P: (1) every rank r ≥ P' sends buf to r − P', which combines it with its own;
/// (2) ranks r < P' do log2 P' rounds, round i exchanging buf with r XOR 2^i and forming
/// (lower rank's data) ∘ (higher rank's data); (3) r − P' sends the result back to r ≥ P'.
/// Counted per rank, in elements (bytes = 8·elements):
///   r <  P': sent = recv = n·log2(P') + (r + P' < P ? n : 0)
///   r >= P': sent = recv = n
/// scratch must not overlap buf and may be empty only when n == 0 or P == 1.
void allreduce(const Context& ctx, double* buf, std::size_t n, std::span<double> scratch, Combine combine);
/// allreduce() with Combine::Sum.
inline void allreduce_sum(const Context& ctx, double* buf, std::size_t n, std::span<double> scratch) {
  allreduce(ctx, buf, n, scratch, Combine::Sum);
}

/// Personalised all-to-all of uneven sizes: send = [ to rank 0 | to rank 1 | … ] with
/// send_counts[q] elements for rank q, recv = [ from rank 0 | from rank 1 | … ] with
/// recv_counts[q] from rank q (each rank's recv_counts[q] must equal rank q's send_counts[r]).
/// P−1 pairwise steps (step t: send to r+t, receive from r−t, mod P) in messages of at most
/// 2^27 elements; the own part is copied. Counted (bytes): sent = 8·Σ_{q≠r} send_counts[q],
/// recv = 8·Σ_{q≠r} recv_counts[q]. Throws Error when a count vector's size is not P.
void alltoallv(const Context& ctx, const double* send, std::span<const std::size_t> send_counts, double* recv,
               std::span<const std::size_t> recv_counts);

/// shift() for a tile on disk: file elements [0, send_elems) of `from` go to dest, and the
/// recv_elems from source are written to `to` at [0, recv_elems). Chunks of ⌊buffer.size()/2⌋
/// elements: one half of buffer holds the chunk read from `from`, the other the chunk received.
/// `to` may be `from` (chunk c is read before it is overwritten). Counted: disk read =
/// 8·send_elems, disk write = 8·recv_elems, sent = 8·send_elems, recv = 8·recv_elems bytes.
/// dest == source == rank: no MPI traffic; when &to != &from the elements are copied
/// (disk read = disk write = 8·send_elems, through all of buffer), else nothing happens.
void shift_file(const Context& ctx, DiskFile& from, DiskFile& to, std::size_t send_elems, std::size_t recv_elems,
                int dest, int source, std::span<double> buffer);

/// ring_allgatherv() with the pieces in file f (same layout, offsets in elements): the piece to
/// forward is read from f, the received piece is written to f, through chunks of
/// ⌊buffer.size()/2⌋ elements. Counted (bytes, T = Σ counts): disk read = 8·(T − counts[(r+1)
/// mod P]), disk write = 8·(T − counts[r]); network as ring_allgatherv.
void ring_allgatherv_file(const Context& ctx, DiskFile& f, std::span<const std::size_t> counts,
                          std::span<double> buffer);

/// allreduce() of file elements [first, first + n) of `in`: for each chunk of ≤ ⌊buffer.size()/2⌋
/// elements (one half of buffer is the data, the other the receive scratch) every rank reads
/// the chunk from `in`, the chunk is combined over ranks, and written to `out` at the same offset
/// when out != nullptr (pass out only on the ranks that keep the result; out may be &in).
/// Counted (bytes): disk read = 8·n; disk write = 8·n where out != nullptr, else 0;
/// network as allreduce() of n elements; one read and one write request per chunk.
void allreduce_file(const Context& ctx, DiskFile& in, DiskFile* out, std::uint64_t first, std::size_t n,
                    std::span<double> buffer, Combine combine);
/// allreduce_file() of elements [0, n), summed.
inline void allreduce_sum_file(const Context& ctx, DiskFile& in, DiskFile* out, std::size_t n,
                               std::span<double> buffer) {
  allreduce_file(ctx, in, out, 0, n, buffer, Combine::Sum);
}

}  // namespace tcert

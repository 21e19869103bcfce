// runtime/methods/gao/gao.h — GaoGemm: one contraction C(I,J) += alpha·A(I,K)·B(J,K)ᵀ of a plan,
// run out of core on P ranks. Generated code calls its steps inside the plan's loop nest.
//
// Reader's map:
//   GemmSpec            the plan as constants: method, per-index tile counts, tensors, capacities
//   Tiles, TileGroup    finest-tile ranges of I, J or K (level-1 tile = a range, finest = one)
//   GaoGemm     constructor (load phase), the compute-phase steps, finish (write-out, verify)
//
// Data layout (Gao et al. §2.2, Table 1, with the tiling rule of tiled_matrix.h): each array is
// a TiledMatrix on the rank's scratch disk, split over the grid as the method needs:
//   rotation (g = √P, rank (r,c) = (rank / g, rank mod g)): A(I part r, K part (r+c) mod g),
//       B(J part c, K part (r+c) mod g) — pre-skewed for Cannon —, C(I part r, J part c);
//   replication of A: A's K split into P pieces (rank q keeps piece q, gathered before use),
//       B(J part rank, K whole), C(I whole, J part rank); replication of B: the mirror;
//   accumulation: A(I whole, K part rank), B(J whole, K part rank), C whole (inside: on rank 0
//       only; outside: a partial sum on every rank, summed into rank 0's at the end).
// Tile buffers hold the blocks of a tile range back to back; a rotated operand's blocks are
// sized for the largest K part (part 0), so Cannon's shifts run in place.
//
// Every step counts its bytes in counters() (disk by DiskFile, network by comm.h), so the
// compute phase's measured volumes equal the cost model's exact per-rank prediction
// (costmodel/plan.h plan_volumes, costmodel/simulate.cpp). Units: elements unless a name
// says bytes.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/base/counters.h"
#include "runtime/base/memory.h"
#include "runtime/base/progress.h"
#include "runtime/comm/placement.h"
#include "runtime/program/direct_result.h"
#include "runtime/program/run.h"
#include "runtime/spec/gemm_spec.h"
#include "runtime/storage/tiled_matrix.h"

namespace tcert {

/// A range of finest tiles [first, first + count) of one group.
struct Tiles {
  std::int64_t first = 0, count = 1;
};

/// Tile counts of one group, in the plan's terms (Xt1 level-1 tiles of Xt2 finest tiles each).
class TileGroup {
 public:
  TileGroup() = default;
  TileGroup(std::int64_t t1, std::int64_t t2) : t1_(t1), t2_(t2) {}
  std::int64_t t1() const { return t1_; }  ///< level-1 tiles (It1, Jt1, Kt1)
  std::int64_t t2() const { return t2_; }  ///< finest tiles per level-1 tile (It2, …)
  /// Level-1 tile x1: the finest tiles x1·t2 … x1·t2 + t2 − 1.
  Tiles level1(std::int64_t x1) const { return {x1 * t2_, t2_}; }
  /// Finest tile x2 of level-1 tile x1.
  Tiles tile(std::int64_t x1, std::int64_t x2) const { return {x1 * t2_ + x2, 1}; }

 private:
  std::int64_t t1_ = 1, t2_ = 1;
};

class GaoGemm {
 public:
  /// The load phase: flushes kept operands it does not take, lays out A and B (taken rank to
  /// rank, or from run.input()) on the scratch disk (pre-skewed for
  /// rotation, own piece only for a broadcast operand), creates C's zero file, and allocates
  /// the three tile buffers through budget() (Error when they exceed the memory per rank).
  GaoGemm(Run& run, GemmSpec spec);
  ~GaoGemm();
  GaoGemm(const GaoGemm&) = delete;
  GaoGemm& operator=(const GaoGemm&) = delete;

  const TileGroup& I() const { return I_; }
  const TileGroup& J() const { return J_; }
  const TileGroup& K() const { return K_; }
  /// Rounds of the loop nest: √P for outside rotation (one per K part), else 1.
  std::int64_t rounds() const;

  /// Runs body as the compute phase: counts its bytes in a section, drives the progress line
  /// and records the contraction in the Run when it returns. With overlap (GaoSpec::overlap,
  /// unless the program runs with --no-overlap) body's steps are first recorded, then run with
  /// an I/O thread (io_worker.h) that reads each array's next tile into its second buffer while
  /// this thread multiplies and communicates, and writes C's tiles behind; the steps, and so
  /// every byte and request counted, are the same as in the serial run.
  void compute(const std::function<void()>& body);

  // --- steps of the loop nest (compute phase) ---
  /// Reads this rank's blocks of A for I tiles i × K tiles k into A's buffer. For a broadcast
  /// A (replication): inside, the rank's own K piece only (allgather_A() completes it);
  /// outside, the whole tile from the gathered file.
  void read_A(Tiles i, Tiles k);
  void read_B(Tiles j, Tiles k);  ///< as read_A, for B
  /// Inside replication: ring all-gather of A's buffer, so every rank holds the whole tile.
  void allgather_A();
  void allgather_B();  ///< as allgather_A, for B
  /// Reads C's blocks for i × j. Accumulation: inside, rank 0 reads and the other ranks start
  /// from zero; outside, a rank other than 0 starts from zero on its first visit of the tile.
  void read_C(Tiles i, Tiles j);
  /// C(f,h) += alpha·A(f,k)·B(h,k)ᵀ for finest tiles f, h, k of this rank's parts (a broadcast
  /// operand: one GEMM per K piece).
  void multiply(std::int64_t f, std::int64_t h, std::int64_t k);
  /// Inside rotation (Cannon, Gao et al. Fig. 1): √P times multiply(), then shift A's block
  /// one rank left and B's block one rank up; after √P shifts every block is back home.
  void cannon_multiply(std::int64_t f, std::int64_t h, std::int64_t k);
  /// Inside accumulation: all-reduce (sum) C's buffer over the ranks.
  void allreduce_C();
  /// Writes C's blocks for i × j (inside accumulation: rank 0 only).
  void write_C(Tiles i, Tiles j);
  /// Outside replication, before the nest: ring all-gather of the broadcast operand's file.
  void gather_broadcast_file();
  /// Outside rotation, after each round: shift A's file left and B's file up (Fig. 2).
  void shift_operand_files();
  /// Outside accumulation, after the nest: sum the partial C files into rank 0's.
  void reduce_C_file();

  /// The write-out and verification phases: writes C to the store (or keeps it on the ranks
  /// with spec.keep_result) and, with --verify, checks up to 2000 sampled elements against a
  /// long-double reference.
  void finish();

 private:
  struct Buffered;
  struct Step;
  /// The parts (pr, pc) of A, B and C rank q holds (-1: the whole group; C lies on rank 0
  /// only under accumulation).
  struct HeldParts {
    std::array<std::int64_t, 2> A{-1, -1}, B{-1, -1}, C{-1, -1};
  };
  HeldParts held_parts(std::int64_t q) const;
  /// Where array x (A_, B_ or C_) of tensor `binding` lies on all ranks.
  Placement placement(const Buffered& x, const TensorBinding& binding) const;
  // The constructor's steps, in order (the load phase, load(), comes between the last two).
  /// The rotation grid (g_, r_, c_), each group's whole and split layouts, the tile groups I_,
  /// J_, K_ and the loop nest's steps.
  void lay_out_groups();
  /// Makes A_, B_ and C_ and sets the layout of the part of each group they hold on this rank.
  void assign_parts();
  /// Names the contraction's scratch files (cN_A.bin …) and makes the tiled files of the arrays
  /// that are not read or written in place (direct A/B/C).
  void open_files();
  /// Allocates the tile buffers through budget(), two per array with overlap (Error when they
  /// exceed the memory per rank).
  void allocate_buffers();
  void load();
  // Stage 1's copy of `tensor` (row group: its first row_count GEMM positions) from `src` into m,
  // block by block, each row's runs of adjacent elements at once; counts the disk reads and the
  // requests (runs) as an element-by-element pass would.
  void fill_from_tensor(TiledMatrix& m, const TensorBinding& tensor, std::size_t row_count, const ElementSource& src);
  /// Direct C (spec.direct_C): registers C's next version, creates it (rank 0) and maps this
  /// rank's view, copying C's current values into this rank's part when accumulating.
  void open_direct_C();
  // The steps as they run (serially, or from the overlapped schedule's thread).
  void read_operand(Buffered& x, Tiles rows, Tiles k);
  bool reads_C(Tiles i, Tiles j);  // whether read_C(i, j) reads (else zeroes); marks the tile visited
  /// Runs a recorded step (ReadC as recorded: from disk or zero).
  void run_step(const Step& s);
  void load_C(Tiles i, Tiles j, bool reads);  // read_C's work, `reads` decided
  void written_C();                           // after each write of C: fault point "write_C:N"
  /// Position i of steps_ as a point where a checkpoint inside the step can be taken: a
  /// `boundary` when a write of C just ran, C's next use is a read of it, and A's and B's next
  /// uses are reads of them, or uses of a tile they hold that a resumed run can read again:
  /// `replay[x]` is the read step of A (x = 0) or B (x = 1) whose tile the buffer holds, when
  /// only multiplies and other arrays' reads and writes ran since (else kNoStep).
  struct ResumePoint {
    static constexpr std::size_t kNoStep = ~std::size_t{0};
    bool boundary = false;
    std::array<std::size_t, 2> replay{kNoStep, kNoStep};
  };
  /// One ResumePoint per position of steps_.
  std::vector<ResumePoint> resume_points() const;
  /// Runs the recorded steps_ (serially, or overlapped): from where a checkpoint inside the step
  /// left off when the run resumed from one, and saving such checkpoints at K-pass boundaries
  /// (with `within`: the run has a checkpoint).
  void run_recorded(bool within);
  /// Called before step i with a function that completes the queued writes (the checkpoint's).
  using Boundary = std::function<void(std::size_t, const std::function<void()>&)>;
  /// Overlap: runs steps_ from `start` with an I/O thread (compute(); the schedule: Overlap).
  void run_overlapped(std::size_t start, const Boundary& boundary);
  class Overlap;
  void local_gemm(std::int64_t f, std::int64_t h, std::int64_t k);
  bool owns_result() const;
  TiledMatrix& result();                                                  // C's file on a rank that owns_result()
  const GaoSpec& gao() const { return std::get<GaoSpec>(spec_.method); }  // the method's part

  Run& run_;
  GemmSpec spec_;
  std::unique_ptr<DirectResult> direct_C_;  // direct C: the new version, written in place
  std::int64_t P_ = 1, rank_ = 0, g_ = 1, r_ = 0, c_ = 0, round_ = 0;
  TileGroup I_, J_, K_;
  GroupLayout layout_I_[2], layout_J_[2], layout_K_[2];  // [0] whole, [1] split
  std::unique_ptr<Buffered> A_, B_, C_;
  std::set<std::pair<std::int64_t, std::int64_t>> touched_C_;
  std::unique_ptr<Progress> progress_;
  bool overlap_ = false;    // GaoSpec::overlap and not --no-overlap
  bool recording_ = false;  // compute() is recording body's steps into steps_
  std::vector<Step> steps_;
  std::uint64_t steps_done_ = 0, steps_total_ = 1;
  Volumes redistribution_;  // this rank's stage 1 (load) and stage 3 (store) bytes
};

}  // namespace tcert

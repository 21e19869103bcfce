// runtime/methods/cosma/cosma.h — CosmaGemm: one contraction C(I,J) += alpha·A(I,K)·B(J,K)ᵀ run with the COSMA
// decomposition (Kwasniewski et al., SC'19, §7: Algorithm 1, §7.1 grid, §7.2 communication,
// §7.6 blocked layout) on P ranks, streaming K slices from the local disk when the local domain
// does not fit in memory.
//
// The schedule is costmodel/cosma.h's "THE SCHEDULE", implemented step for step so the measured
// bytes equal its exact per-rank prediction:
//   grid pm × pn × pk; rank (x,y,z) = x·pn·pk + y·pk + z; ranks >= pm·pn·pk are idle;
//   I (flattened, last index fastest) cut into pm balanced ranges I_x, J into pn, K into pk,
//   K_z into t balanced slices; rank (x,y,z) computes the partial C block (x,y) over K_z;
//   the A slice (x,z,j) (I_x × k_j, row-major) is split into pn balanced contiguous pieces,
//   piece y on rank (x,y,z); the B slice (y,z,j) into pm pieces, piece x on (x,y,z); the
//   own pieces of rounds j < b (b = buffers(): 1 for t = 1, else 2) sit in the slice buffers
//   from the load phase on, later rounds' on the local disk (out of core only where the
//   memory forces it); per round j: read own pieces (j >= b), ring all-gather A among
//   (x,·,z) and B among (·,y,z), C block += alpha·A·Bᵀ; then ring reduce-scatter of C among
//   (x,y,·): piece z of the I_x × J_y block ends on (x,y,z), in memory, and finish() writes
//   it to the result's file. (C's old values, for a statement adding to them, start rank
//   (x,y,0)'s C block, read in the load phase.)
// Local mode: where the plan is one rank's whole product in memory (grid 1 × 1 × 1, one round),
// A's and B's sources are mapped files (not generated) and the CPU runs GETT's AVX-512 kernel,
// the tile kernel (contract() as GETT) reads A and B in place and writes C straight into the
// result's new file, started from C's old values when the statement adds to them: no slice
// copies, no C block. The counts are the schedule's all the same (each operand's elements taken
// once, C read and written once, the disk requests of the same passes). Memory: the mapped pages
// of A, B and C take the place of the slices and the block the plan budgets, which stay charged
// to budget() as a Reservation; GETT's scratch is its packed blocks (Workspace::gett_mc etc.,
// under 7 MB), within the bound of the kernel workspace kept between steps (Run::kernel_workspace).
// TTGT, which may permute a whole operand into its workspace, is not used here for that reason
// (GETT forced measured 4% slower than the kernel's own choice on H2O/cc-pVDZ's residuals).
// Units: elements unless a name says bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "runtime/base/counters.h"
#include "runtime/base/memory.h"
#include "runtime/base/progress.h"
#include "runtime/comm/comm.h"
#include "runtime/program/run.h"
#include "runtime/spec/gemm_spec.h"
#include "runtime/storage/disk.h"

namespace tcert {

class DirectResult;

class CosmaGemm {
 public:
  /// The load phase: puts this rank's pieces of the A and B slices of rounds < buffers() into
  /// the slice buffers and writes those of later rounds to its scratch disk, starts the C block
  /// (zero, or C's old values on rank (x,y,0) when spec.accumulate), makes the three ring
  /// communicators, allocates the C block and the two slice buffers through budget(); in local
  /// mode (the header) it only counts the load's passes, starts C's new file and reserves their
  /// bytes. spec.method must hold a CosmaSpec and pm·pn·pk <= P (Error otherwise).
  CosmaGemm(Run& run, GemmSpec spec);
  ~CosmaGemm();
  CosmaGemm(const CosmaGemm&) = delete;
  CosmaGemm& operator=(const CosmaGemm&) = delete;

  /// Whether the step runs in local mode (the header): the same on every rank.
  bool local() const { return local_; }
  /// t, the rounds along K.
  std::int64_t rounds() const { return std::get<CosmaSpec>(spec_.method).rounds; }
  /// b, the slice buffers per operand (1 for one round, 2 for several: double buffering);
  /// rounds j < b need no disk reads (costmodel CosmaGrid::buffers()).
  std::int64_t buffers() const { return rounds() > 1 ? 2 : 1; }
  /// Runs body as the compute phase (as GaoGemm::compute). When the run resumes from a
  /// checkpoint inside this step (StepCheckpoints::resume_within()), first copies each rank's C block back
  /// from it: the body then starts at first_round().
  void compute(const std::function<void()>& body);
  /// The first round the body runs: 0, or the round a run resumed inside this step continues
  /// from (the C block holds the rounds before it).
  std::int64_t first_round() const { return first_round_; }

  // --- the steps of Algorithm 1 (idle ranks do nothing) ---
  /// Round j: reads this rank's pieces of A slice j and B slice j from disk (nothing for
  /// j < buffers(): they are in memory since the load phase).
  void read_slices(std::int64_t j);
  /// Ring all-gather of A slice j among the pn ranks (x,·,z) (COSMA §7.2, along n).
  void allgather_A();
  /// Ring all-gather of B slice j among the pm ranks (·,y,z) (along m).
  void allgather_B();
  /// C block += alpha · A slice · B sliceᵀ (one cblas_dgemm). With --checkpoint-every, a
  /// checkpoint inside the step may follow (end_round()).
  void multiply();
  /// allgather_A() and multiply() of this round overlapped with the next round's data (COSMA
  /// §7.3): the ring all-gather of A's slice runs step by step with non-blocking MPI while the
  /// rows of C whose A rows have arrived are multiplied (B's slice must be gathered already);
  /// meanwhile, when there is a next round, an I/O thread (io_worker.h) reads its own pieces from
  /// disk into the other slice buffers, and once its B piece is in, its B slice is ring-gathered
  /// step by step (double buffering). Then the
  /// next round is current. Same bytes as read_slices + allgather_A + allgather_B + multiply
  /// per round; rows that straddle two pieces of A are multiplied at the end. With
  /// --checkpoint-every, a checkpoint inside the step may follow (end_round()).
  void gather_A_and_multiply();
  /// Ring reduce-scatter of the partial C blocks among the pk ranks (x,y,·) (along k); this
  /// rank's reduced piece stays in the C block, in memory (C's old values, when the statement
  /// adds to them, entered the C block of rank (x,y,0) in the load phase).
  void reduce_scatter_C();

  /// Writes this rank's piece of C, from memory, to --output-dir/NAME.npy and runs --verify
  /// (as GaoGemm::finish).
  void finish();

 private:
  using i64 = std::int64_t;
  i64 slice_cols(i64 j) const;  // k_j
  double* A_slice(i64 j) { return A_[j % 2].data(); }
  double* B_slice(i64 j) { return B_[j % 2].data(); }
  void read_own_pieces(i64 j);  // round j's own pieces of A and B, from disk
  /// Round j is complete: the progress line, and, when one is due between rounds j and j+1, a
  /// checkpoint inside the step (StepCheckpoints::save_within(): each rank's C block, position j+1 of
  /// rounds()). Collective.
  void end_round(i64 j);
  /// This rank's partial C for a checkpoint inside the step: its C block (none when idle).
  PartialC partial_C();
  std::vector<std::size_t> piece_counts(i64 rows, i64 j, i64 ways) const;
  i64 slice_start(i64 j) const;  // first column of slice j within K_z
  /// The constructor's buffers of a rank of the grid: the scratch files (named `prefix`A.bin,
  /// `prefix`B.bin) of the rounds streamed from disk, their own pieces' offsets, the C block and
  /// the slice buffers, through budget() (Error when they exceed the memory per rank).
  void allocate_rounds(const std::string& prefix);
  /// The load phase (Gao et al. §2.3 stage 1): load_operand() of A and B, then load_C_block().
  void load();
  /// Own piece of every slice of operand `t` whose rows are `rows` elements from `first_row`
  /// (of `row_extents`), split `ways` ways with this rank's piece `me`: rounds < buffers() into
  /// `slice`[j], later rounds to `file` at `offsets`[j], through `chunk` (kChunk elements).
  /// Counts the requests of one pass over the tensor's file; returns the elements taken.
  std::uint64_t load_operand(DiskFile& file, Buffer* slice, const TensorBinding& t, const std::vector<i64>& row_extents,
                             i64 first_row, i64 rows, i64 ways, i64 me, const std::vector<std::uint64_t>& offsets,
                             std::vector<double>& chunk);
  /// Starts the C block at zero, or on rank (x,y,0), when spec.accumulate, at C's old block of
  /// the tensor (extents `eI` × `eJ`), counting its bytes and requests.
  void load_C_block(const std::vector<i64>& eI, const std::vector<i64>& eJ);
  /// C block rows [r0, r1) += alpha · A slice j rows [r0, r1) · B slice jᵀ (nothing when empty).
  void multiply_rows(i64 j, i64 r0, i64 r1);
  /// gather_A_and_multiply() on an active rank outside local mode: round `now`'s A ring with
  /// its multiplies, round `next`'s reads and B ring (when next < rounds()).
  void overlap_round(i64 now, i64 next);
  /// The rows of round j's A slice that straddle two of its pn pieces, multiplied last.
  void multiply_straddling_rows(i64 j);
  /// The rings' communicators (ring_A_ etc.): MPI_Comm_split of run's context. Collective.
  void make_rings();
  /// Local mode (the header): counts the load's passes, starts the result's new file (from C's
  /// old values when spec.accumulate) and charges the reservation. Collective (the new file).
  void load_local();
  void multiply_local();  // C += alpha · A · Bᵀ by contract() as GETT, into the new file
  void finish_local();    // counts stage 3's pass and commits the new file (finish_in_place)
  std::optional<double> lookup(const i64* row_values, const i64* col_values);

  Run& run_;
  GemmSpec spec_;
  bool active_ = false;
  bool local_ = false;  // local mode (the header); the same on every rank
  i64 pm_ = 1, pn_ = 1, pk_ = 1, x_ = 0, y_ = 0, z_ = 0;
  i64 m_ = 1, n_ = 1, k_ = 1;     // |I|, |J|, |K|
  i64 Ix_ = 0, Jy_ = 0, Kz_ = 0;  // this rank's block sizes
  i64 I0_ = 0, J0_ = 0, K0_ = 0;  // their first flat indices
  i64 round_ = 0;
  i64 first_round_ = 0;                             // first_round()
  std::vector<std::uint64_t> A_offset_, B_offset_;  // file offset of slice j's own piece
  std::unique_ptr<Context> ring_A_, ring_B_, ring_C_;
  DiskFile A_file_, B_file_;              // own pieces of the streamed rounds (open only when t > b)
  Buffer A_[2], B_[2], C_;                // slice buffers of round j are [j mod 2] (two only for several rounds)
  Reservation reserved_;                  // local mode: the slices and the block the plan budgets
  std::unique_ptr<DirectResult> result_;  // local mode: C's new version, written in place
  bool from_C0_ = false;                  // local mode: the new file started from C's old values
  std::unique_ptr<Progress> progress_;
  Volumes redistribution_;  // this rank's stage 1 (load) and stage 3 (store) bytes
};

}  // namespace tcert

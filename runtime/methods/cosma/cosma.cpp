// runtime/methods/cosma/cosma.cpp — CosmaGemm: layout, load, the steps of COSMA's Algorithm 1, write-out
// from the resident C block.
#include "runtime/methods/cosma/cosma.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "runtime/index/linear_map.h"
#include "runtime/index/split_map.h"
#include "runtime/kernel/kernel.h"
#include "runtime/kernel/kernel_gett.h"
#include "runtime/methods/contraction_steps.h"
#include "runtime/program/direct_result.h"
#include "runtime/spec/spec_check.h"
#include "runtime/spec/units.h"
#include "runtime/storage/io_worker.h"

namespace tcert {

namespace {

using i64 = std::int64_t;

constexpr i64 kChunk = i64{1} << 16;  // elements per chunk of a streamed round's load

/// Counts the disk requests of one pass over the GEMM view of tensor `t` (rows of `row_extents`
/// × columns of `col_extents`, row-major) as one transfer: the runs a copy of it in that order
/// would make (the load's and the store's passes in local mode, which move nothing). An operand
/// (`operand`) whose innermost stored dimension is a row index is counted column by column, as
/// load() reads it.
void count_pass(const TensorBinding& t, const std::vector<i64>& row_extents, const std::vector<i64>& col_extents,
                bool operand) {
  const SplitMap map(t, row_extents, col_extents);
  if (!operand || !map.rows_innermost()) return counters().add_disk_requests(map.whole_view_runs());
  // Column by column, as load() goes (split_map.h): the columns are the rows of that pass.
  TensorBinding columns_first = t;
  const auto nr = static_cast<std::ptrdiff_t>(row_extents.size());
  std::rotate(columns_first.perm.begin(), columns_first.perm.begin() + nr, columns_first.perm.end());
  counters().add_disk_requests(SplitMap(columns_first, col_extents, row_extents).whole_view_runs());
}

}  // namespace

CosmaGemm::CosmaGemm(Run& run, GemmSpec spec) : run_(run), spec_(std::move(spec)) {
  if (!std::holds_alternative<CosmaSpec>(spec_.method)) throw Error("CosmaGemm needs a cosma plan");
  const Context& ctx = run_.context();
  const CosmaSpec& part = std::get<CosmaSpec>(spec_.method);
  pm_ = part.grid[0], pn_ = part.grid[1], pk_ = part.grid[2];
  m_ = product(extents_of(spec_.I)), n_ = product(extents_of(spec_.J)), k_ = product(extents_of(spec_.K));
  const i64 used = pm_ * pn_ * pk_, rank = ctx.rank();
  begin_contraction(run_, spec_);  // grid, rounds and memory, before any work; the step's peak
  active_ = rank < used;
  if (active_) x_ = rank / (pn_ * pk_), y_ = rank / pk_ % pn_, z_ = rank % pk_;
  Ix_ = piece(m_, pm_, x_), Jy_ = piece(n_, pn_, y_), Kz_ = piece(k_, pk_, z_);
  I0_ = piece_start(m_, pm_, x_), J0_ = piece_start(n_, pn_, y_), K0_ = piece_start(k_, pk_, z_);
  // One process that may run in local mode splits no communicators unless it does not (three
  // MPI_Comm_split per product, about 1 ms of tcec-ccsd's 50 per iteration at P = 1); with more,
  // every rank splits here, in the same order of collectives.
  const bool may_be_local = ctx.size() == 1 && used == 1 && rounds() == 1 && detail::gett_vectorized();
  if (!may_be_local) make_rings();
  {  // tensors kept on the ranks by earlier steps go to the store first (a flush)
    const Volumes before = redistribution_now();
    flush_kept(run_, spec_.A.shape.name);
    flush_kept(run_, spec_.B.shape.name);
    if (spec_.accumulate) flush_kept(run_, spec_.C.shape.name);
    redistribution_ = redistribution_now() - before;
  }
  const std::string prefix = fmt::format("c{}_", run_.records().next_contraction());
  // Local mode (cosma.h): one rank's whole product in memory, its operands read in place.
  local_ = used == 1 && rounds() == 1 && detail::gett_vectorized() && run_.input(spec_.A.shape).data() != nullptr &&
           run_.input(spec_.B.shape).data() != nullptr;
  if (local_) {
    const Volumes before = redistribution_now();
    load_local();
    redistribution_ += redistribution_now() - before;
    return;
  }
  if (may_be_local) make_rings();
  if (!active_) return;
  allocate_rounds(prefix);
  const Volumes before = redistribution_now();
  load();
  redistribution_ += redistribution_now() - before;
}

void CosmaGemm::allocate_rounds(const std::string& prefix) {
  if (rounds() > buffers()) {  // only rounds >= buffers() stream from the local disk
    A_file_ = DiskFile(run_.scratch().path(prefix + "A.bin"));
    B_file_ = DiskFile(run_.scratch().path(prefix + "B.bin"));
  }
  // File offsets of the streamed rounds' own pieces (rounds < buffers() have none: 0).
  A_offset_.assign(static_cast<std::size_t>(rounds()) + 1, 0),
      B_offset_.assign(static_cast<std::size_t>(rounds()) + 1, 0);
  for (i64 j = 0; j < rounds(); ++j) {
    const bool streamed = j >= buffers();
    const auto u = static_cast<std::size_t>(j);
    A_offset_[u + 1] = A_offset_[u] + (streamed ? static_cast<std::uint64_t>(piece(Ix_ * slice_cols(j), pn_, y_)) : 0);
    B_offset_[u + 1] = B_offset_[u] + (streamed ? static_cast<std::uint64_t>(piece(Jy_ * slice_cols(j), pm_, x_)) : 0);
  }
  // Every rank's slice buffers have the size of the grid's widest slice (rank z = 0's first),
  // so the reduce-scatter, which streams through the A slice buffer, cuts its messages
  // alike on every rank of a ring.
  const i64 widest = piece(piece(k_, pk_, 0), rounds(), 0);
  C_ = allocate(static_cast<std::size_t>(Ix_ * Jy_), "C block");
  for (i64 b = 0; b < buffers(); ++b) {  // double buffers over several rounds
    A_[b] = allocate(static_cast<std::size_t>(Ix_ * widest), "A slice");
    B_[b] = allocate(static_cast<std::size_t>(Jy_ * widest), "B slice");
  }
}

void CosmaGemm::make_rings() {
  // The rings: (x,·,z) for A, (·,y,z) for B, (x,y,·) for C; idle ranks form their own groups.
  const Context& ctx = run_.context();
  const int idle = static_cast<int>(pm_ * pn_ * pk_);
  ring_A_ =
      std::make_unique<Context>(ctx.split(active_ ? static_cast<int>(x_ * pk_ + z_) : idle, static_cast<int>(y_)));
  ring_B_ =
      std::make_unique<Context>(ctx.split(active_ ? static_cast<int>(y_ * pk_ + z_) : idle, static_cast<int>(x_)));
  ring_C_ =
      std::make_unique<Context>(ctx.split(active_ ? static_cast<int>(x_ * pn_ + y_) : idle, static_cast<int>(z_)));
}

CosmaGemm::~CosmaGemm() {  // the rings' communicators, so that repeated runs do not pile them up
  for (Context* ring : {ring_A_.get(), ring_B_.get(), ring_C_.get()})
    if (ring) Context::free_split(*ring);
}

i64 CosmaGemm::slice_cols(i64 j) const { return piece(Kz_, rounds(), j); }
i64 CosmaGemm::slice_start(i64 j) const { return piece_start(Kz_, rounds(), j); }

void CosmaGemm::load() {
  PhaseScope phase(Phase::Redistribute);  // Gao et al. §2.3 stage 1
  const std::vector<i64> eI = extents_of(spec_.I), eJ = extents_of(spec_.J);
  std::vector<double> chunk(static_cast<std::size_t>(kChunk));
  std::uint64_t taken = load_operand(A_file_, A_, spec_.A, eI, I0_, Ix_, pn_, y_, A_offset_, chunk);
  taken += load_operand(B_file_, B_, spec_.B, eJ, J0_, Jy_, pm_, x_, B_offset_, chunk);
  counters().add_disk_read(bytes_of(taken));  // taken from the tensors' files
  load_C_block(eI, eJ);
}

std::uint64_t CosmaGemm::load_operand(DiskFile& file, Buffer* slice, const TensorBinding& t,
                                      const std::vector<i64>& row_extents, i64 first_row, i64 rows, i64 ways, i64 me,
                                      const std::vector<std::uint64_t>& offsets, std::vector<double>& chunk) {
  std::uint64_t taken = 0;  // elements taken from the tensor's file
  const ElementSource src = run_.input(t.shape);
  SplitMap map(t, row_extents, extents_of(spec_.K));
  RunCounter requests;  // the tensor's file, read in one pass
  std::vector<std::uint64_t> row_part, col_part;
  map.rows(first_row, rows, row_part);
  for (i64 j = 0; j < rounds(); ++j) {
    const i64 cols = slice_cols(j), total = rows * cols;
    const i64 start = piece_start(total, ways, me), length = piece(total, ways, me);
    const bool resident = j < buffers();
    taken += static_cast<std::uint64_t>(length);
    if (length == 0) continue;
    map.cols(K0_ + slice_start(j), cols, col_part);
    const auto runs = consecutive_runs(col_part);
    // A resident round in one pass, a streamed one in chunks of kChunk (each then written).
    const i64 pass = resident ? length : kChunk;
    for (i64 done = 0; done < length; done += pass) {
      const i64 len = std::min(pass, length - done);
      double* const out = resident ? slice[j].data() + start + done : chunk.data();
      const auto part = [&](i64 r) { return row_part[static_cast<std::size_t>(r)]; };
      if (map.rows_innermost()) {  // whole rows column by column: runs along the rows (split_map.h)
        for_each_run_of_view_by_columns(start + done, len, cols, col_part, runs, part,
                                        [&](std::uint64_t at, std::size_t n, i64 e, std::size_t step) {
                                          requests.span(at, n);
                                          src.copy(at, n, out + e, step);
                                        });
      } else {
        for_each_run_of_view(start + done, len, cols, col_part, runs, part,
                             [&](std::uint64_t at, std::size_t n, i64 e) {
                               requests.span(at, n);
                               src.copy(at, n, out + e);
                             });
      }
      src.flush();  // streamed: the runs, in few requests
      if (!resident)
        file.write(chunk.data(), offsets[static_cast<std::size_t>(j)] + static_cast<std::uint64_t>(done),
                   static_cast<std::size_t>(len));
    }
  }
  requests.add();
  return taken;
}

void CosmaGemm::load_C_block(const std::vector<i64>& eI, const std::vector<i64>& eJ) {
  // The resident C block starts at zero, or — on rank (x,y,0), when the statement adds to C's
  // current value — at the old block: the reduce-scatter then sums it in with the products.
  std::memset(C_.data(), 0, C_.bytes());
  const std::optional<ElementSource> c0 = initial_C(run_, spec_);
  if (!c0 || z_ != 0) return;
  SplitMap map_C(spec_.C, eI, eJ);
  std::vector<std::uint64_t> row_part, col_part;
  map_C.rows(I0_, Ix_, row_part);
  map_C.cols(J0_, Jy_, col_part);
  RunCounter requests;
  for_each_run_of_view(
      0, Ix_ * Jy_, Jy_, col_part, consecutive_runs(col_part),
      [&](i64 r) { return row_part[static_cast<std::size_t>(r)]; },
      [&](std::uint64_t at, std::size_t n, i64 e) {
        requests.span(at, n);
        c0->copy(at, n, C_.data() + e);
      });
  c0->flush();
  counters().add_disk_read(bytes_of(static_cast<std::uint64_t>(Ix_ * Jy_)));  // taken from C's file
  requests.add();
}

void CosmaGemm::load_local() {
  PhaseScope phase(Phase::Redistribute);  // Gao et al. §2.3 stage 1
  const DirectResult::Update update = update_of_C(run_, spec_);
  const bool in_place = update == DirectResult::Update::InPlace;  // C's old values are where C is written
  const std::optional<ElementSource> c0 = in_place ? std::nullopt : initial_C(run_, spec_);  // before the new version
  // Every element is written: copied from C's version before or set by the product (beta 0).
  result_ = std::make_unique<DirectResult>(run_, spec_.C.shape, active_, update, true);
  if (!active_) return;
  reserved_ = Reservation(bytes_of(static_cast<std::uint64_t>(m_ * k_ + n_ * k_ + m_ * n_)),
                          "A and B slices and C block (mapped, read and written in place)");
  const std::vector<i64> eI = extents_of(spec_.I), eJ = extents_of(spec_.J), eK = extents_of(spec_.K);
  count_pass(spec_.A, eI, eK, true);  // the kernel reads them in place: the load's passes
  count_pass(spec_.B, eJ, eK, true);
  counters().add_disk_read(bytes_of(static_cast<std::uint64_t>(m_ * k_ + n_ * k_)));
  if (!c0 && !in_place) return;  // the new file starts at zero
  from_C0_ = true;
  if (c0) c0->copy(0, static_cast<std::size_t>(m_ * n_), result_->data()), c0->flush();  // the same shape: all of it
  count_pass(spec_.C, eI, eJ, false);
  counters().add_disk_read(bytes_of(static_cast<std::uint64_t>(m_ * n_)));  // taken from C's file
}

void CosmaGemm::multiply_local() {
  if (!active_) return;
  ContractionLayout layout;
  layout.extents_I = extents_of(spec_.I), layout.extents_J = extents_of(spec_.J),
  layout.extents_K = extents_of(spec_.K);
  layout.perm_A = spec_.A.perm, layout.perm_B = spec_.B.perm, layout.perm_C = spec_.C.perm;
  // GETT: its scratch is its packed blocks (Workspace::gett_mc etc.), within the kernel
  // workspace's bound, whatever the operands' sizes; TTGT may permute a whole operand into it.
  Workspace& ws = run_.kernel_workspace();
  const Workspace::Scheme scheme = ws.scheme;
  ws.scheme = Workspace::Scheme::Gett;
  const Stopwatch clock;  // kernel busy time, as gemm_tile counts its own
  contract(layout, spec_.alpha, run_.input(spec_.A.shape).data(), run_.input(spec_.B.shape).data(),
           from_C0_ ? 1.0 : 0.0, result_->data(), ws);
  counters().add_kernel_time(clock.seconds());
  ws.scheme = scheme;
}

void CosmaGemm::finish_local() {
  const Volumes before = redistribution_now();
  if (active_) {
    PhaseScope phase(Phase::Redistribute);  // Gao et al. §2.3 stage 3: C was written in place
    count_pass(spec_.C, extents_of(spec_.I), extents_of(spec_.J), false);
    counters().add_disk_write(bytes_of(static_cast<std::uint64_t>(m_ * n_)));
  }
  redistribution_ += redistribution_now() - before;
  finish_in_place(run_, spec_, *result_, redistribution_, active_, [](const i64*, const i64*) { return true; });
}

void CosmaGemm::compute(const std::function<void()>& body) {
  compute_phase(run_, spec_, progress_, [&] {
    first_round_ =
        static_cast<i64>(run_.checkpoints().resume_within(static_cast<std::uint64_t>(rounds()), partial_C()));
    body();
  });
}

PartialC CosmaGemm::partial_C() { return {std::string(), active_ ? C_.span() : std::span<double>()}; }

void CosmaGemm::end_round(i64 j) {
  if (progress_) progress_->update(static_cast<double>(j + 1) / static_cast<double>(rounds()));
  // Between two rounds all of C's partial sums are in the C blocks and nothing else is needed
  // again: what a resumed run cannot redo from its inputs is the C blocks alone.
  if (j + 1 < rounds() && run_.checkpoints().saves_within() && run_.checkpoints().within_due())
    run_.checkpoints().save_within(static_cast<std::uint64_t>(j + 1), static_cast<std::uint64_t>(rounds()),
                                   partial_C());
}

std::vector<std::size_t> CosmaGemm::piece_counts(i64 rows, i64 j, i64 ways) const {
  std::vector<std::size_t> counts;
  for (i64 q = 0; q < ways; ++q) counts.push_back(static_cast<std::size_t>(piece(rows * slice_cols(j), ways, q)));
  return counts;
}

void CosmaGemm::read_own_pieces(i64 j) {
  if (j < buffers()) return;  // in its slice buffers since the load phase
  const i64 cols = slice_cols(j);
  const auto a_len = static_cast<std::size_t>(piece(Ix_ * cols, pn_, y_));
  const auto b_len = static_cast<std::size_t>(piece(Jy_ * cols, pm_, x_));
  A_file_.read(A_slice(j) + piece_start(Ix_ * cols, pn_, y_), A_offset_[static_cast<std::size_t>(j)], a_len);
  B_file_.read(B_slice(j) + piece_start(Jy_ * cols, pm_, x_), B_offset_[static_cast<std::size_t>(j)], b_len);
}

void CosmaGemm::read_slices(i64 j) {
  round_ = j;
  if (active_ && !local_) read_own_pieces(j);
}

void CosmaGemm::allgather_A() {
  if (active_ && !local_) ring_allgatherv(*ring_A_, A_slice(round_), piece_counts(Ix_, round_, pn_));
}

void CosmaGemm::allgather_B() {
  if (active_ && !local_) ring_allgatherv(*ring_B_, B_slice(round_), piece_counts(Jy_, round_, pm_));
}

void CosmaGemm::multiply() {
  if (local_) {
    multiply_local();
  } else if (active_) {
    const auto cols = static_cast<std::size_t>(slice_cols(round_));
    gemm_tile(static_cast<std::size_t>(Ix_), static_cast<std::size_t>(Jy_), cols, spec_.alpha, A_slice(round_), cols,
              B_slice(round_), cols, 1.0, C_.data(), static_cast<std::size_t>(Jy_));
  }
  end_round(round_);
}

void CosmaGemm::gather_A_and_multiply() {
  const i64 now = round_, next = round_ + 1;
  if (local_) {
    multiply_local();
  } else if (active_) {
    overlap_round(now, next);
  }
  round_ = next;
  end_round(now);
}

void CosmaGemm::multiply_rows(i64 j, i64 r0, i64 r1) {
  if (r1 <= r0) return;
  const i64 cols = slice_cols(j);
  gemm_tile(static_cast<std::size_t>(r1 - r0), static_cast<std::size_t>(Jy_), static_cast<std::size_t>(cols),
            spec_.alpha, A_slice(j) + r0 * cols, static_cast<std::size_t>(cols), B_slice(j),
            static_cast<std::size_t>(cols), 1.0, C_.data() + r0 * Jy_, static_cast<std::size_t>(Jy_));
}

void CosmaGemm::overlap_round(i64 now, i64 next) {
  const i64 cols = slice_cols(now), total = Ix_ * cols;
  const std::vector<std::size_t> counts = piece_counts(Ix_, now, pn_);
  // The rows lying wholly inside piece q.
  auto piece_rows = [&](i64 q) {
    const i64 first = piece_start(total, pn_, q), end = first + piece(total, pn_, q);
    multiply_rows(now, (first + cols - 1) / cols, end / cols);
  };
  // The next round's data, into the other buffers: its own pieces read from disk by an I/O
  // thread (io_worker.h) while this round's A ring and multiply run, then its B ring step by
  // step once its own B piece is in.
  std::unique_ptr<RingAllgather> next_B;
  std::vector<std::size_t> next_counts;
  std::unique_ptr<IoWorker> io;
  IoWorker::Ticket read = 0;
  if (next < rounds()) {
    next_counts = piece_counts(Jy_, next, pm_);
    if (next >= buffers() && !run_.options().no_overlap) {  // streamed from disk, ahead
      io = std::make_unique<IoWorker>();
      read = io->submit([this, next] { read_own_pieces(next); });
    } else {
      read_own_pieces(next);  // in memory since the load, or --no-overlap: read now
    }
  }
  RingAllgather ring(*ring_A_, A_slice(now), counts);
  i64 present = y_;
  bool pending = true;  // the present piece's rows are not multiplied yet
  while (!ring.done() || (next < rounds() && (!next_B || !next_B->done()))) {
    if (next < rounds() && !next_B && (!io || ring.done() || io->done(read))) {
      if (io) io->wait(read);  // B's own piece of the next round is in memory
      next_B = std::make_unique<RingAllgather>(*ring_B_, B_slice(next), next_counts);
    }
    const bool a_step = !ring.done(), b_step = next_B && !next_B->done();
    if (a_step) ring.start();
    if (b_step) next_B->start();
    if (pending) piece_rows(present), pending = false;  // while the pieces travel
    if (a_step) present = ring.incoming_piece(), ring.finish(), pending = true;
    if (b_step) next_B->finish();
  }
  if (pending) piece_rows(present);
  if (io) io->drain();  // its bytes into the compute phase's counts
  multiply_straddling_rows(now);
}

void CosmaGemm::multiply_straddling_rows(i64 j) {
  const i64 cols = slice_cols(j), total = Ix_ * cols;
  i64 last = -1;  // rows that straddle a piece boundary
  for (i64 q = 1; q < pn_; ++q) {
    const i64 boundary = piece_start(total, pn_, q);
    if (boundary % cols == 0 || boundary / cols == last || boundary / cols >= Ix_) continue;
    last = boundary / cols;
    multiply_rows(j, last, last + 1);
  }
}

void CosmaGemm::reduce_scatter_C() {
  if (!active_ || local_) return;
  std::vector<std::size_t> counts;
  for (i64 q = 0; q < pk_; ++q) counts.push_back(static_cast<std::size_t>(piece(Ix_ * Jy_, pk_, q)));
  ring_reduce_scatter(*ring_C_, C_.data(), counts, A_[0].span());  // the A slice buffer is free now
}

// ---- write-out and verification: rank (x,y,z) owns piece z of the C block (x,y) ------------

std::optional<double> CosmaGemm::lookup(const i64* row_values, const i64* col_values) {
  const i64 i = flatten(row_values, extents_of(spec_.I)), j = flatten(col_values, extents_of(spec_.J));
  const i64 x = part_of(m_, pm_, i), y = part_of(n_, pn_, j);
  if (x != x_ || y != y_) return std::nullopt;
  const i64 e = (i - I0_) * Jy_ + (j - J0_);
  if (part_of(Ix_ * Jy_, pk_, e) != z_) return std::nullopt;
  return C_[static_cast<std::size_t>(e)];
}

void CosmaGemm::finish() {
  if (local_) return finish_local();
  const Volumes before = redistribution_now();
  const i64 start = piece_start(Ix_ * Jy_, pk_, z_), end = start + piece(Ix_ * Jy_, pk_, z_);
  write_result_block(run_, spec_, active_, I0_, J0_, Jy_, start, end, C_.data());  // the reduced piece
  redistribution_ += redistribution_now() - before;
  record_redistribution(run_, redistribution_);
  verify_result(run_, spec_, active_, [&](const i64* rv, const i64* cv) { return lookup(rv, cv); });
  run_.end_step();
}

}  // namespace tcert

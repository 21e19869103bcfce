// runtime/methods/gao/gao.cpp — GaoGemm: data layout, load phase and the compute-phase steps.
// The volumes each step counts are the ones costmodel/simulate.cpp predicts; keep them in step.
#include "runtime/methods/gao/gao.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "runtime/base/fault.h"
#include "runtime/comm/comm.h"
#include "runtime/index/linear_map.h"
#include "runtime/index/split_map.h"
#include "runtime/kernel/kernel.h"
#include "runtime/methods/contraction_steps.h"
#include "runtime/spec/spec_check.h"
#include "runtime/spec/units.h"
#include "runtime/storage/io_worker.h"
#include "runtime/storage/mapped_walk.h"

namespace tcert {

using i64 = std::int64_t;

/// Where the elements of one block of a tile live in a tensor's file: element (i, j) of the
/// row-major R×C block is at linear index row_at[i] + col_at[j] (LinearMap's row and column
/// parts). Row by row, `runs` cut the columns into (first column, length) runs of consecutive
/// col_at; where the tensor's innermost stored dimension is a row index (by_columns,
/// LinearMap::rows_innermost()), column by column, they cut the rows into runs of consecutive
/// row_at.
struct BlockRuns {
  std::vector<std::uint64_t> row_at, col_at;
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  bool by_columns = false;
  std::size_t elements() const { return row_at.size() * col_at.size(); }
  /// Sets `runs` for the present row_at and col_at.
  void cut() { runs = consecutive_runs(by_columns ? row_at : col_at); }
  /// Calls f(element of the block, linear index, n, step) for each run of n elements adjacent in
  /// the file, step apart in the block (1 row by row, C column by column), in the order of an
  /// element-by-element walk (rows in order and each row's columns in order, or the reverse), so
  /// that RunCounter and MappedWalk spans count as it would.
  template <class F>
  void each_run(const F& f) const {
    const std::size_t C = col_at.size();
    if (by_columns) {
      for (std::size_t j = 0; j < C; ++j)
        for (const auto& [i, n] : runs) f(i * C + j, row_at[i] + col_at[j], n, C);
      return;
    }
    for (std::size_t i = 0; i < row_at.size(); ++i)
      for (const auto& [j, n] : runs) f(i * C + j, row_at[i] + col_at[j], n, std::size_t{1});
  }
};

/// One of A, B, C: its disk layout on this rank and its tile buffer.
/// Non-broadcast arrays have one TiledMatrix; a broadcast operand (replication) has one per K
/// piece q, all in one file, piece q at element Σ_{q'<q} piece totals.
struct GaoGemm::Buffered {
  /// A tile buffer and what it holds: the tile ranges and, for a broadcast operand, where each
  /// K piece starts. An array has one (now()); with overlap a second (other()) that the I/O worker
  /// fills with the next tile, or writes from, while the program's thread works on now.
  struct Slot {
    Buffer buf;
    Tiles tr, tc;                             // tile ranges in buf
    std::vector<std::uint64_t> piece_offset;  // pieced: start of piece q in buf
    IoWorker::Ticket ticket = 0;              // the last I/O job on this slot (0: none)
  };

  explicit Buffered(char array) : name(1, array) {}
  std::string name;  // "A", "B" or "C"
  GroupLayout rows, cols;
  i64 pr = -1, pc = -1;  // parts held (-1: whole); pc changes under rotation
  bool pieced = false;   // broadcast operand: cols in P pieces
  bool cycled = false;   // rotated operand: blocks sized for K part 0
  std::string path;
  std::unique_ptr<TiledMatrix> file;  // non-pieced (null on ranks without the array)
  std::vector<std::unique_ptr<TiledMatrix>> pieces;
  Slot slots[2];  // [current]: the program's thread's; the other: the I/O thread's
  int current = 0;
  Slot& now() { return slots[current]; }
  const Slot& now() const { return slots[current]; }
  Slot& other() { return slots[1 - current]; }
  void flip() { current = 1 - current; }
  /// Direct tile I/O (GemmSpec::direct_A/B): the tensor's elements, read block by block into
  /// a slot instead of from a tiled file (none is made).
  std::optional<ElementSource> direct;
  std::optional<LinearMap> direct_map;
  DirectResult* result = nullptr;  // direct C: the result's file (written)
  // Direct A/B/C read from a mapping: a read (a span, mapped_walk.h) that may make resident the
  // bytes that `walk` charges for it: MappedInputs::touched_span (A, B) or DirectResult::wrote_span (C).
  std::function<void(MappedWalk& walk, std::uint64_t at, std::uint64_t n)> touched;

  i64 block_rows(i64 f) const { return rows.rows(f, pr); }
  /// Columns of block h of piece q (pieced) or of part `part` (the K part held, under rotation).
  i64 block_cols(i64 h, i64 q, i64 part) const { return cols.rows(h, pieced ? q : part); }
  i64 block_cols(i64 h, i64 q) const { return block_cols(h, q, pc); }
  i64 slot_cols(i64 h, i64 q) const { return cycled ? cols.rows(h, 0) : block_cols(h, q); }
  /// Offset of block (f, h) (of piece q) in slot s's buffer, for its ranges.
  std::uint64_t offset(const Slot& s, i64 f, i64 h, i64 q = 0) const {
    if (f < s.tr.first || f >= s.tr.first + s.tr.count || h < s.tc.first || h >= s.tc.first + s.tc.count)
      throw Error(fmt::format("tile ({}, {}) of {} is not in memory", f, h, name));
    std::uint64_t above = 0, row_width = 0, left = 0;
    for (i64 x = s.tr.first; x < f; ++x) above += static_cast<std::uint64_t>(block_rows(x));
    for (i64 y = s.tc.first; y < s.tc.first + s.tc.count; ++y) {
      const auto w = static_cast<std::uint64_t>(slot_cols(y, q));
      row_width += w;
      if (y < h) left += w;
    }
    return (pieced ? s.piece_offset[q] : 0) + above * row_width + static_cast<std::uint64_t>(block_rows(f)) * left;
  }
  std::uint64_t offset(i64 f, i64 h, i64 q = 0) const { return offset(now(), f, h, q); }
  /// Elements of piece q (or of the whole range) for ranges r × c.
  std::uint64_t range_elems(Tiles r, Tiles c, i64 q) const {
    std::uint64_t R = 0, C = 0;
    for (i64 x = r.first; x < r.first + r.count; ++x) R += static_cast<std::uint64_t>(block_rows(x));
    for (i64 y = c.first; y < c.first + c.count; ++y) C += static_cast<std::uint64_t>(slot_cols(y, q));
    return R * C;
  }
  void set_ranges(Slot& s, Tiles r, Tiles c, i64 P) const {
    s.tr = r, s.tc = c;
    if (!pieced) {
      if (range_elems(r, c, 0) > s.buf.size())
        throw Error(fmt::format("tile of {} needs {} elements but its buffer holds {}", name, range_elems(r, c, 0),
                                s.buf.size()));
      return;
    }
    s.piece_offset.assign(1, 0);
    for (i64 q = 0; q < P; ++q) s.piece_offset.push_back(s.piece_offset.back() + range_elems(r, c, q));
    if (s.piece_offset.back() > s.buf.size())
      throw Error(fmt::format("tile of {} needs {} elements but its buffer holds {}", name, s.piece_offset.back(),
                              s.buf.size()));
  }
  /// Reads blocks of slot s's ranges of piece q (pieced) or of the rank's part (K part `part`
  /// under rotation) into s. Touches nothing else of the array, so the I/O worker may run it.
  void read(Slot& s, i64 q, i64 part) const {
    if (direct) return read_direct(s, q, part);
    TiledMatrix& m = pieced ? *pieces[q] : *file;
    for (i64 f = s.tr.first; f < s.tr.first + s.tr.count; ++f)
      for (i64 h = s.tc.first; h < s.tc.first + s.tc.count; ++h)
        if (m.block_rows(f) * m.block_cols(h) > 0) m.read_block(f, h, s.buf.data() + offset(s, f, h, q));
  }
  /// Calls body(f, h, block) for every non-empty block (f, h) of the tile ranges r × c (of piece
  /// q for a broadcast operand, of K part `part` under rotation), in the order a tiled file holds
  /// them, timing each as disk busy time; `block` gives the tensor's linear index of each of its
  /// elements by runs (BlockRuns). Direct tile I/O only (direct_map set).
  template <class Body>
  void each_direct_block(i64 q, i64 part, Tiles r, Tiles c, const Body& body) const {
    const i64 held = pieced ? q : part;
    const std::size_t nr = rows.indices().size(), nc = cols.indices().size();
    BlockRuns block;
    block.by_columns = direct_map->rows_innermost();
    for (i64 f = r.first; f < r.first + r.count; ++f) {
      const std::vector<i64> rv = TiledMatrix::piece_values(rows, f, pr);
      block.row_at.resize(static_cast<std::size_t>(block_rows(f)));
      for (std::size_t i = 0; i < block.row_at.size(); ++i) block.row_at[i] = direct_map->row_part(rv.data() + i * nr);
      for (i64 h = c.first; h < c.first + c.count; ++h) {
        const auto C = static_cast<std::size_t>(block_cols(h, q, part));
        if (block.row_at.empty() || C == 0) continue;
        const std::vector<i64> cv = TiledMatrix::piece_values(cols, h, held);
        block.col_at.resize(C);
        for (std::size_t j = 0; j < C; ++j) block.col_at[j] = direct_map->col_part(cv.data() + j * nc);
        block.cut();
        const Stopwatch clock;  // disk busy time, as DiskFile counts its transfers
        body(f, h, block);
        counters().add_disk_time(clock.seconds());
      }
    }
  }
  /// read() from the tensor's elements, counted as disk reads of 8 bytes per element.
  void read_direct(Slot& s, i64 q, i64 part) const {
    each_direct_block(q, part, s.tr, s.tc, [&](i64 f, i64 h, const BlockRuns& block) {
      double* dst = s.buf.data() + offset(s, f, h, q);
      RunCounter requests;
      MappedWalk walk(kFaultAroundBytes);
      block.each_run([&](std::size_t e, std::uint64_t at, std::size_t n, std::size_t step) {
        requests.span(at, n);
        if (touched) touched(walk, at, n);
        direct->copy(at, n, dst + e, step);
      });
      direct->flush();  // streamed: the block's runs, read in few requests
      counters().add_disk_read(bytes_of(block.elements()));
      requests.add();
    });
  }
  /// Writes the blocks of slot s's ranges to the result (direct C, 8 bytes counted per element)
  /// or to C's tiled file. Touches nothing else, so the I/O worker may run it.
  void write(const Slot& s) const {
    if (!result) {
      for (i64 f = s.tr.first; f < s.tr.first + s.tr.count; ++f)
        for (i64 h = s.tc.first; h < s.tc.first + s.tc.count; ++h)
          if (block_rows(f) * block_cols(h, 0) > 0) file->write_block(f, h, s.buf.data() + offset(s, f, h));
      return;
    }
    each_direct_block(0, pc, s.tr, s.tc, [&](i64 f, i64 h, const BlockRuns& block) {
      const double* src = s.buf.data() + offset(s, f, h);
      RunCounter requests;
      MappedWalk walk(kMappedPageBytes);
      block.each_run([&](std::size_t e, std::uint64_t at, std::size_t n, std::size_t step) {
        requests.span(at, n);
        result->write(walk, at, n, src + e, step);
      });
      result->flush();
      counters().add_disk_write(bytes_of(block.elements()));
      requests.add();
    });
  }
  /// Whether this rank holds the element (its parts of rows and cols).
  bool holds(const i64* row_values, const i64* col_values) const {
    return (pr < 0 || rows.locate(row_values).part == pr) && (pc < 0 || cols.locate(col_values).part == pc);
  }
};

namespace {

constexpr std::size_t kCommScratchElems = std::size_t{1} << 17;  // 1 MiB, outside the tile budget

/// The collectives' scratch: kCommScratchElems, one per process and kept from one contraction to
/// the next (a new zeroed MiB per contraction cost 256 page faults and an munmap each). One
/// contraction runs at a time; its content is never read before it is written.
std::span<double> comm_scratch() {
  static const std::unique_ptr<double[]> scratch(new double[kCommScratchElems]);
  return {scratch.get(), kCommScratchElems};
}

}  // namespace

GaoGemm::GaoGemm(Run& run, GemmSpec spec) : run_(run), spec_(std::move(spec)) {
  if (!std::holds_alternative<GaoSpec>(spec_.method)) throw Error("GaoGemm needs a plan of a Gao method");
  const Context& ctx = run_.context();
  P_ = ctx.size(), rank_ = ctx.rank();
  begin_contraction(run_, spec_);  // the plan's checks and memory, before any work; the step's peak
  lay_out_groups();
  assign_parts();
  open_files();
  const Volumes before = redistribution_now();
  load();
  redistribution_ = redistribution_now() - before;
  allocate_buffers();
}

void GaoGemm::lay_out_groups() {
  const bool rotation = gao().algorithm == Algorithm::Rotation;
  if (rotation) {
    g_ = rotation_grid_side(P_);
    r_ = rank_ / g_, c_ = rank_ % g_;
  }
  const i64 split = rotation ? g_ : P_;
  const GroupSpec* specs[3] = {&spec_.I, &spec_.J, &spec_.K};
  GroupLayout* layouts[3] = {layout_I_, layout_J_, layout_K_};
  for (int x = 0; x < 3; ++x) {
    layouts[x][0] = GroupLayout(specs[x]->indices, specs[x]->dist, 1);
    layouts[x][1] = specs[x]->dist < 0 ? layouts[x][0] : GroupLayout(specs[x]->indices, specs[x]->dist, split);
  }
  I_ = TileGroup(layout_I_[0].tiles1(), layout_I_[0].tiles2());
  J_ = TileGroup(layout_J_[0].tiles1(), layout_J_[0].tiles2());
  K_ = TileGroup(layout_K_[0].tiles1(), layout_K_[0].tiles2());
  steps_total_ = static_cast<std::uint64_t>(layout_I_[0].finest_tiles() * layout_J_[0].finest_tiles() *
                                            layout_K_[0].finest_tiles() * rounds());
}

void GaoGemm::assign_parts() {
  // Which part of each group every array holds (costmodel grid_parts / rank_parts).
  A_ = std::make_unique<Buffered>('A'), B_ = std::make_unique<Buffered>('B'), C_ = std::make_unique<Buffered>('C');
  Buffered& A = *A_;
  Buffered& B = *B_;
  Buffered& C = *C_;
  const bool rotation = gao().algorithm == Algorithm::Rotation;
  const bool split_I = rotation || (gao().algorithm == Algorithm::Replication && gao().broadcast == Operand::B);
  const bool split_J = rotation || (gao().algorithm == Algorithm::Replication && gao().broadcast == Operand::A);
  A.rows = layout_I_[split_I ? 1 : 0];
  B.rows = layout_J_[split_J ? 1 : 0];
  C.rows = A.rows, C.cols = B.rows;
  A.cols = B.cols = layout_K_[1];
  if (gao().algorithm == Algorithm::Replication) {
    (gao().broadcast == Operand::A ? A : B).pieced = true;
    (gao().broadcast == Operand::A ? B : A).cols = layout_K_[0];
  }
  A.cycled = B.cycled = rotation && g_ > 1;
  const HeldParts mine = held_parts(rank_);
  A.pr = mine.A[0], A.pc = mine.A[1], B.pr = mine.B[0], B.pc = mine.B[1], C.pr = mine.C[0], C.pc = mine.C[1];
}

void GaoGemm::open_files() {
  Buffered& A = *A_;
  Buffered& B = *B_;
  Buffered& C = *C_;
  const std::string prefix = fmt::format("c{}_", run_.records().next_contraction());
  for (Buffered* x : {&A, &B, &C}) x->path = run_.scratch().path(prefix + x->name + ".bin");
  const bool has_C = !(gao().algorithm == Algorithm::Accumulation && gao().comm == Communication::Inside && rank_ != 0);
  for (Buffered* x : {&A, &B, &C}) {
    if ((x == &A && spec_.direct_A) || (x == &B && spec_.direct_B) || (x == &C && spec_.direct_C))
      continue;  // no tiled copy
    if (x->pieced) {
      std::uint64_t base = 0;
      for (i64 q = 0; q < P_; ++q) {
        x->pieces.push_back(std::make_unique<TiledMatrix>(x->path, x->rows, -1, x->cols, q, base));
        base += x->pieces.back()->total();
      }
    } else if (x != &C || has_C) {
      x->file = std::make_unique<TiledMatrix>(x->path, x->rows, x->pr, x->cols, x->pc);
    }
  }
}

void GaoGemm::allocate_buffers() {
  A_->slots[0].buf = allocate(gao().capacity_A, "tile of A");
  B_->slots[0].buf = allocate(gao().capacity_B, "tile of B");
  C_->slots[0].buf = allocate(gao().capacity_C, "tile of C");
  overlap_ = gao().overlap && !run_.options().no_overlap;
  if (overlap_) {  // the I/O thread's buffers (gao_spec.h method_buffers())
    A_->slots[1].buf = allocate(gao().capacity_A, "second tile of A");
    B_->slots[1].buf = allocate(gao().capacity_B, "second tile of B");
    C_->slots[1].buf = allocate(gao().capacity_C, "second tile of C");
  }
}

GaoGemm::~GaoGemm() = default;

i64 GaoGemm::rounds() const {
  return gao().comm == Communication::Outside && gao().algorithm == Algorithm::Rotation ? g_ : 1;
}

GaoGemm::HeldParts GaoGemm::held_parts(i64 q) const {
  HeldParts out;
  switch (gao().algorithm) {
    case Algorithm::Rotation: {  // rank (r, c): A(I r, K (r+c) mod g), B(J c, K (r+c) mod g), C(I r, J c)
      const i64 r = q / g_, c = q % g_, k = g_ > 1 ? (r + c) % g_ : -1;
      out.A = {r, k}, out.B = {c, k}, out.C = {r, c};
      break;
    }
    case Algorithm::Replication:  // the broadcast operand's K piece q; the other's and C's part q
      if (gao().broadcast == Operand::A)
        out.A = {-1, q}, out.B = {q, -1}, out.C = {-1, q};
      else
        out.A = {q, -1}, out.B = {-1, q}, out.C = {q, -1};
      break;
    default: {  // accumulation: K part q of A and B, C whole
      const i64 k = P_ == 1 ? -1 : q;
      out.A = {-1, k}, out.B = {-1, k}, out.C = {-1, -1};
    }
  }
  return out;
}

Placement GaoGemm::placement(const Buffered& x, const TensorBinding& binding) const {
  Placement out{x.rows, x.cols, {}, binding.perm};
  for (i64 q = 0; q < P_; ++q) {
    const HeldParts held = held_parts(q);
    if (&x == C_.get() && gao().algorithm == Algorithm::Accumulation && q != 0)
      out.parts.emplace_back();
    else
      out.parts.emplace_back(&x == A_.get() ? held.A : &x == B_.get() ? held.B : held.C);
  }
  return out;
}

void GaoGemm::load() {
  PhaseScope phase(Phase::Redistribute);  // Gao et al. §2.3 stage 1
  // Kept tensors this plan reads but does not take go to the store first (a flush).
  if (!spec_.take_A) flush_kept(run_, spec_.A.shape.name);
  if (!spec_.take_B) flush_kept(run_, spec_.B.shape.name);
  if (spec_.accumulate && !spec_.take_C) flush_kept(run_, spec_.C.shape.name);
  auto lay_out = [&](Buffered& x, const TensorBinding& tensor, bool take, std::size_t row_count) {
    if (&x == A_.get() ? spec_.direct_A : spec_.direct_B) {  // read block by block in the compute phase
      x.direct = run_.input(tensor.shape);
      x.direct_map.emplace(tensor, row_count);
      if (x.direct->data())
        x.touched = [this](MappedWalk& walk, std::uint64_t at, std::uint64_t n) {
          run_.mapped().touched_span(walk, at, n);
        };
      return;
    }
    TiledMatrix& m = x.pieced ? *x.pieces[rank_] : *x.file;
    if (x.pieced)
      x.pieces.back()->create();  // the whole gathered size; own piece filled below
    else
      m.create();
    if (take) return take_kept(run_, tensor.shape.name, placement(x, tensor), &m);
    const ElementSource src = run_.input(tensor.shape);
    fill_from_tensor(m, tensor, row_count, src);
  };
  lay_out(*A_, spec_.A, spec_.take_A, spec_.I.indices.size());
  lay_out(*B_, spec_.B, spec_.take_B, spec_.J.indices.size());
  // C: zero, or the tensor's current value (one copy: rank 0's under accumulation).
  if (spec_.direct_C) return open_direct_C();
  if (C_->file) C_->file->create();
  TiledMatrix* start = gao().algorithm != Algorithm::Accumulation || rank_ == 0 ? C_->file.get() : nullptr;
  if (spec_.accumulate && spec_.take_C) return take_kept(run_, spec_.C.shape.name, placement(*C_, spec_.C), start);
  const std::optional<ElementSource> c0 = initial_C(run_, spec_);
  if (c0 && start) fill_from_tensor(*start, spec_.C, spec_.I.indices.size(), *c0);
}

void GaoGemm::fill_from_tensor(TiledMatrix& m, const TensorBinding& tensor, std::size_t row_count,
                               const ElementSource& src) {
  const LinearMap map(tensor, row_count);
  RunCounter requests;  // the tensor's file, read block by block
  MappedWalk walk(kFaultAroundBytes);
  std::vector<std::uint64_t> col_parts, row_parts;
  m.fill_blocks([&](const i64* rv, const i64* cv, std::size_t R, std::size_t C, double* block) {
    // Each run of adjacent elements in the tensor at once (a memcpy from the mapped file).
    for_each_run_of_block(map, rv, cv, R, C, col_parts, row_parts,
                          [&](std::uint64_t at, std::size_t n, std::size_t e, std::size_t step) {
                            requests.span(at, n);
                            if (src.data()) run_.mapped().touched_span(walk, at, n);
                            src.copy(at, n, block + e, step);
                          });
    src.flush();     // streamed: the block's runs, read in few requests
    requests.add();  // one transfer per block
  });
  counters().add_disk_read(bytes_of(m.total()));  // the elements taken from the tensor's file
}

void GaoGemm::open_direct_C() {
  Buffered& C = *C_;
  const std::optional<ElementSource> c0 = initial_C(run_, spec_);  // the current version, before the next
  const DirectResult::Update update = update_of_C(run_, spec_);
  direct_C_ = std::make_unique<DirectResult>(run_, spec_.C.shape, owns_result(), update);
  if (!owns_result()) return;
  C.result = direct_C_.get();
  if (!direct_C_->streamed())
    C.touched = [result = direct_C_.get()](MappedWalk& walk, std::uint64_t at, std::uint64_t n) {
      result->wrote_span(walk, at, n);
    };
  C.direct = direct_C_->source();
  C.direct_map.emplace(spec_.C, spec_.I.indices.size());
  if (!c0) return;
  // Accumulating: this rank's part of C starts from the current values, copied into the new
  // file (read and written, as stage 1 lays out a tiled C). In place they are there already:
  // the same runs are counted, and nothing is copied.
  const bool copy = update == DirectResult::Update::NextVersion;
  const Tiles all_rows{0, C.rows.finest_tiles()}, all_cols{0, C.cols.finest_tiles()};
  C.each_direct_block(0, C.pc, all_rows, all_cols, [&](i64, i64, const BlockRuns& block) {
    RunCounter requests;  // the same runs read from the current version and written to the new
    MappedWalk read(kFaultAroundBytes), written(kMappedPageBytes);
    block.each_run([&](std::size_t, std::uint64_t at, std::size_t n, std::size_t) {
      requests.span(at, n);
      if (!copy) return;
      if (c0->data()) run_.mapped().touched_span(read, at, n);
      direct_C_->copy(*c0, written, at, n);
    });
    c0->flush(), direct_C_->flush();
    counters().add_disk_read(bytes_of(block.elements()));
    counters().add_disk_write(bytes_of(block.elements()));
    counters().add_disk_requests(requests.runs());
    requests.add();
  });
}

/// One step of the loop nest as compute() records it (under overlap, or with a checkpoint).
struct GaoGemm::Step {
  enum Kind {
    ReadA,
    ReadB,
    ReadC,
    WriteC,
    Multiply,
    Cannon,
    AllgatherA,
    AllgatherB,
    AllreduceC,
    GatherFile,
    ShiftFiles,
    ReduceFile
  };
  Kind kind;
  Tiles r{}, c{};           // reads and write_C: the tile ranges
  i64 f = 0, h = 0, k = 0;  // multiply, cannon_multiply: the finest tiles
  bool reads = true;        // ReadC: from disk (else the tile starts at zero)
};

void GaoGemm::compute(const std::function<void()>& body) {
  // Checkpoints inside the step (and resuming from one) need the nest's steps in advance.
  const bool within = !run_.options().checkpoint.empty();
  if (!overlap_ && !within) return compute_phase(run_, spec_, progress_, body);
  compute_phase(run_, spec_, progress_, [&] {
    recording_ = true;
    steps_.clear();
    body();
    recording_ = false;
    run_recorded(within);
  });
}

std::vector<GaoGemm::ResumePoint> GaoGemm::resume_points() const {
  // Position i follows a write of C and C's next use is a read: all C the nest has computed is
  // in C's file. A's and B's buffers are read afresh after i, or hold a tile that only
  // multiplies (which leave it as it is) used since its read: a resumed run reads it again.
  enum Use { None, Read, Used };
  const std::size_t n = steps_.size();
  std::vector<ResumePoint> out(n);
  std::array<std::size_t, 2> held{ResumePoint::kNoStep, ResumePoint::kNoStep};  // A, B: at position i
  for (std::size_t i = 0; i < n; ++i) {
    out[i].replay = held;
    switch (steps_[i].kind) {
      case Step::ReadA: held[0] = i; break;
      case Step::ReadB: held[1] = i; break;
      case Step::Multiply:
      case Step::ReadC:
      case Step::WriteC:
      case Step::AllreduceC: break;
      default: held = {ResumePoint::kNoStep, ResumePoint::kNoStep};  // shifts, gathers, file moves
    }
  }
  std::array<Use, 3> next{None, None, None};  // A, B, C: from position i on
  for (std::size_t i = n; i-- > 1;) {
    switch (steps_[i].kind) {
      case Step::ReadA: next[0] = Read; break;
      case Step::ReadB: next[1] = Read; break;
      case Step::ReadC: next[2] = Read; break;
      case Step::Multiply:
      case Step::Cannon: next = {Used, Used, Used}; break;
      case Step::AllgatherA: next[0] = Used; break;
      case Step::AllgatherB: next[1] = Used; break;
      case Step::AllreduceC:
      case Step::WriteC: next[2] = Used; break;
      case Step::GatherFile:
      case Step::ShiftFiles:
      case Step::ReduceFile: break;  // files, not buffers
    }
    for (std::size_t x = 0; x < 2; ++x)
      if (next[x] != Used) out[i].replay[x] = ResumePoint::kNoStep;
    out[i].boundary = steps_[i - 1].kind == Step::WriteC && next[2] != Used &&
                      (next[0] != Used || out[i].replay[0] != ResumePoint::kNoStep) &&
                      (next[1] != Used || out[i].replay[1] != ResumePoint::kNoStep);
  }
  return out;
}

void GaoGemm::run_recorded(bool within) {
  const std::size_t n = steps_.size();
  // The partial C: this rank's tiled file, or direct C's file in the store (copied by rank 0).
  const PartialC partial{direct_C_  ? (rank_ == 0 ? direct_C_->file() : std::string())
                         : C_->file ? C_->file->file().path()
                                    : std::string(),
                         {}};
  std::size_t start = 0;
  std::vector<ResumePoint> points;
  if (within) {
    start = static_cast<std::size_t>(run_.checkpoints().resume_within(n, partial));
    if (run_.checkpoints().saves_within() || start > 0) points = resume_points();
  }
  // What the checkpoint does not hold: the gathered file (outside replication) and A's and B's
  // files after the rounds' shifts (outside rotation), which stage 1 left as they were at the
  // step's start. The partial C (the reductions of outside accumulation included) is in the copy.
  for (std::size_t i = 0; i < start; ++i) {
    if (steps_[i].kind == Step::GatherFile || steps_[i].kind == Step::ShiftFiles) run_step(steps_[i]);
    if (steps_[i].kind == Step::Multiply || steps_[i].kind == Step::Cannon) ++steps_done_;
  }
  // The tiles of A and B the nest uses again after the checkpoint, read again.
  if (start > 0 && start < n)
    for (const std::size_t read : points[start].replay)
      if (read != ResumePoint::kNoStep) run_step(steps_[read]);
  // At a K-pass boundary (after `settle`, which completes every queued write), a checkpoint.
  auto boundary = [&](std::size_t i, const std::function<void()>& settle) {
    if (i == start || !run_.checkpoints().saves_within() || !points[i].boundary || !run_.checkpoints().within_due())
      return;
    settle();
    if (direct_C_) direct_C_->sync(run_.context());
    run_.checkpoints().save_within(i, n, partial);
  };
  if (overlap_) return run_overlapped(start, boundary);
  for (std::size_t i = start; i < n; ++i) {
    boundary(i, [] {});
    run_step(steps_[i]);
  }
}

void GaoGemm::finish() {
  const Volumes before = redistribution_now();
  const bool owns = owns_result();
  if (spec_.direct_C)
    direct_C_->commit(run_.context());  // the result is in its file already: no stage 3
  else if (spec_.keep_result)
    keep_result(run_, spec_, placement(*C_, spec_.C), owns ? std::move(C_->file) : nullptr);
  else
    write_result(run_, spec_, owns, [&](const BlockVisit& visit) { result().read_blocks(visit); });
  redistribution_ += redistribution_now() - before;
  record_redistribution(run_, redistribution_);
  // The result's elements for --verify: from the version just committed (direct C, opened at
  // the first lookup), else from the tiled file (kept on the ranks or not).
  const Buffered& C = *C_;
  TiledMatrix* tiled = spec_.direct_C      ? nullptr
                       : spec_.keep_result ? run_.kept().find(spec_.C.shape.name)->file.get()
                                           : C_->file.get();
  std::optional<ElementSource> stored;
  verify_result(run_, spec_, owns, [&](const i64* rv, const i64* cv) -> std::optional<double> {
    if (tiled) return tiled->element(rv, cv);
    if (!C.holds(rv, cv)) return std::nullopt;
    if (!stored) stored = run_.input(spec_.C.shape);
    return (*stored)((*C.direct_map)(rv, cv));
  });
  run_.end_step();
}

// ---- reads and writes --------------------------------------------------------------------

void GaoGemm::read_operand(Buffered& x, Tiles rows, Tiles k) {
  x.set_ranges(x.now(), rows, k, P_);
  if (!x.pieced) return x.read(x.now(), 0, x.pc);
  if (gao().comm == Communication::Inside) return x.read(x.now(), rank_, x.pc);  // allgather_X() completes it
  for (i64 q = 0; q < P_; ++q) x.read(x.now(), q, x.pc);                         // outside: already gathered
}

void GaoGemm::read_A(Tiles i, Tiles k) {
  if (recording_) return steps_.push_back({Step::ReadA, i, k});
  read_operand(*A_, i, k);
}

void GaoGemm::read_B(Tiles j, Tiles k) {
  if (recording_) return steps_.push_back({Step::ReadB, j, k});
  read_operand(*B_, j, k);
}

void GaoGemm::allgather_A() {
  if (recording_) return steps_.push_back({Step::AllgatherA});
  std::vector<std::size_t> counts;
  const auto& offsets = A_->now().piece_offset;
  for (i64 q = 0; q < P_; ++q) counts.push_back(offsets[q + 1] - offsets[q]);
  ring_allgatherv(run_.context(), A_->now().buf.data(), counts);
}

void GaoGemm::allgather_B() {
  if (recording_) return steps_.push_back({Step::AllgatherB});
  std::vector<std::size_t> counts;
  const auto& offsets = B_->now().piece_offset;
  for (i64 q = 0; q < P_; ++q) counts.push_back(offsets[q + 1] - offsets[q]);
  ring_allgatherv(run_.context(), B_->now().buf.data(), counts);
}

bool GaoGemm::reads_C(Tiles i, Tiles j) {
  // A C that starts from zero is not read on a tile's first visit (nor, under accumulation,
  // on ranks other than 0 that hold partial sums only: inside never, outside after the first).
  const bool first = touched_C_.insert({i.first, j.first}).second;
  bool reads = !first || spec_.accumulate;
  if (gao().algorithm == Algorithm::Accumulation && rank_ != 0) reads = gao().comm == Communication::Outside && !first;
  return reads;
}

void GaoGemm::read_C(Tiles i, Tiles j) {
  const bool reads = reads_C(i, j);
  if (recording_) return steps_.push_back({Step::ReadC, i, j, 0, 0, 0, reads});
  load_C(i, j, reads);
}

void GaoGemm::load_C(Tiles i, Tiles j, bool reads) {
  Buffered& C = *C_;
  C.set_ranges(C.now(), i, j, P_);
  if (reads) return C.read(C.now(), 0, C.pc);
  std::memset(C.now().buf.data(), 0, bytes_of(C.range_elems(i, j, 0)));
}

void GaoGemm::write_C(Tiles i, Tiles j) {
  if (recording_) return steps_.push_back({Step::WriteC, i, j});
  Buffered& C = *C_;
  if (C.result || C.file) C.write(C.now());  // inside accumulation: only rank 0 keeps C
  written_C();
}

void GaoGemm::written_C() { counted_fault_point(run_.context().rank(), "write_C"); }

void GaoGemm::run_step(const Step& s) {
  switch (s.kind) {
    case Step::ReadA: return read_A(s.r, s.c);
    case Step::ReadB: return read_B(s.r, s.c);
    case Step::ReadC: return load_C(s.r, s.c, s.reads);  // as recorded (a tile's first visit)
    case Step::WriteC: return write_C(s.r, s.c);
    case Step::Multiply: return multiply(s.f, s.h, s.k);
    case Step::Cannon: return cannon_multiply(s.f, s.h, s.k);
    case Step::AllgatherA: return allgather_A();
    case Step::AllgatherB: return allgather_B();
    case Step::AllreduceC: return allreduce_C();
    case Step::GatherFile: return gather_broadcast_file();
    case Step::ShiftFiles: return shift_operand_files();
    case Step::ReduceFile: return reduce_C_file();
  }
}

/// The overlapped schedule (run_overlapped()): two I/O threads (io_worker.h), one reading A's and
/// B's next tiles into their other slots ahead of their use, one reading C's and writing C's
/// tiles behind (in their order, on one thread), so that the device reads operands while it
/// writes results, as the program's thread multiplies and communicates; inside replication, the
/// broadcast operand's next tile also travels around the ring during the present tile's multiplies. The steps, and so
/// every byte and request counted, are those of the serial run.
class GaoGemm::Overlap {
 public:
  explicit Overlap(GaoGemm& gemm);
  /// Runs gemm's steps_ from `start`, calling `boundary` before each (GaoGemm::Boundary).
  void run(std::size_t start, const Boundary& boundary);

 private:
  /// The array a read step reads (0 A, 1 B, 2 C), or -1 for any other step.
  static int array_of(Step::Kind kind) {
    return kind == Step::ReadA ? 0 : kind == Step::ReadB ? 1 : kind == Step::ReadC ? 2 : -1;
  }
  /// Looking back from the end: the next read of each array, the next file collective (which
  /// moves the arrays' files: nothing is read ahead across it) and the next write of C (a read
  /// of C is not moved ahead of a write that is not yet queued).
  void look_back();
  /// Queues read step `at` of array x into its other slot: that slot's last job (a write of C)
  /// runs first, the I/O thread being first in, first out.
  void queue_read(int x, std::size_t at);
  /// After step `after`: queues each array's next read when its other slot is free and no file
  /// collective or (for C) write of C comes first.
  void read_ahead(std::size_t after);
  /// Read step i of array x: waits for its tile in the other slot (queued now if it was not) and
  /// makes that slot the present one.
  void take_read(int x, std::size_t i);
  /// Queues the write of C's present slot (where this rank holds C).
  void queue_write_C();
  /// Starts the ring all-gather of the broadcast operand's tile in `slot`.
  void start_ring(Buffered::Slot& slot);
  /// The broadcast operand's all-gather step: finishes the ring (all of it when not begun ahead).
  void finish_ring();
  /// A multiply under inside replication: one ring step of the next tile around it, starting the
  /// ring once the next tile's read is done.
  void multiply_with_ring(const Step& s);

  /// The I/O thread of array x: C's jobs on their own (their order kept), A's and B's on the other.
  IoWorker& io(int x) { return x == 2 ? io_C_ : io_; }
  /// Waits for both I/O threads' jobs (IoWorker::drain()).
  void drain() { io_.drain(), io_C_.drain(); }

  GaoGemm& gemm_;
  IoWorker io_, io_C_;
  Buffered* const arrays_[3];
  const std::size_t n_, none_;  // steps; "no step"
  std::vector<std::array<std::size_t, 3>> next_read_;
  std::vector<std::size_t> next_barrier_, next_write_;
  std::array<std::size_t, 3> queued_;  // the read step each array's other slot holds
  // Inside replication: the broadcast operand's next tile, once read, is gathered around the
  // ring one step per multiply of the present tile (RingAllgather, the protocol of
  // ring_allgatherv), and its all-gather step only finishes what is left.
  const bool ring_ahead_;
  const int bx_;  // the broadcast operand's array
  std::unique_ptr<RingAllgather> ring_;
};

GaoGemm::Overlap::Overlap(GaoGemm& gemm)
    : gemm_(gemm),
      arrays_{gemm.A_.get(), gemm.B_.get(), gemm.C_.get()},
      n_(gemm.steps_.size()),
      none_(n_),
      next_read_(n_ + 1),
      next_barrier_(n_ + 1, none_),
      next_write_(n_ + 1, none_),
      queued_{none_, none_, none_},
      ring_ahead_(gemm.gao().comm == Communication::Inside && gemm.gao().algorithm == Algorithm::Replication),
      bx_(gemm.gao().broadcast == Operand::A ? 0 : 1) {
  look_back();
}

void GaoGemm::Overlap::look_back() {
  next_read_[n_] = {none_, none_, none_};
  for (std::size_t i = n_; i-- > 0;) {
    next_read_[i] = next_read_[i + 1], next_barrier_[i] = next_barrier_[i + 1], next_write_[i] = next_write_[i + 1];
    const Step::Kind kind = gemm_.steps_[i].kind;
    if (array_of(kind) >= 0) next_read_[i][static_cast<std::size_t>(array_of(kind))] = i;
    if (kind == Step::GatherFile || kind == Step::ShiftFiles || kind == Step::ReduceFile) next_barrier_[i] = i;
    if (kind == Step::WriteC) next_write_[i] = i;
  }
}

void GaoGemm::Overlap::queue_read(int x, std::size_t at) {
  Buffered& b = *arrays_[x];
  Buffered::Slot& slot = b.other();
  const Step s = gemm_.steps_[at];
  const i64 part = b.pc, P = gemm_.P_, rank = gemm_.rank_;
  const bool inside = gemm_.gao().comm == Communication::Inside;
  slot.ticket = io(x).submit([&b, &slot, s, part, P, rank, inside, x] {
    b.set_ranges(slot, s.r, s.c, P);
    if (x == 2 && !s.reads) {
      std::memset(slot.buf.data(), 0, bytes_of(b.range_elems(s.r, s.c, 0)));
    } else if (!b.pieced) {
      b.read(slot, 0, part);
    } else if (inside) {
      b.read(slot, rank, part);
    } else {
      for (i64 q = 0; q < P; ++q) b.read(slot, q, part);
    }
  });
}

void GaoGemm::Overlap::read_ahead(std::size_t after) {
  for (int x = 0; x < 3; ++x) {
    const std::size_t k = next_read_[after + 1][static_cast<std::size_t>(x)];
    if (queued_[static_cast<std::size_t>(x)] != none_ || k == none_ || next_barrier_[after + 1] < k) continue;
    if (x == 2 && next_write_[after + 1] < k) continue;
    queue_read(x, k);
    queued_[static_cast<std::size_t>(x)] = k;
  }
}

void GaoGemm::Overlap::take_read(int x, std::size_t i) {
  if (queued_[static_cast<std::size_t>(x)] != i) queue_read(x, i);
  queued_[static_cast<std::size_t>(x)] = none_;
  Buffered& b = *arrays_[x];
  io(x).wait(b.other().ticket);
  b.flip();
}

void GaoGemm::Overlap::queue_write_C() {
  Buffered& C = *gemm_.C_;
  if (!C.result && !C.file) return;  // inside accumulation: only rank 0 keeps C
  const Buffered::Slot& slot = C.now();
  GaoGemm& gemm = gemm_;
  C.now().ticket = io_C_.submit([&gemm, &C, &slot] {
    C.write(slot);
    gemm.written_C();
  });
}

void GaoGemm::Overlap::start_ring(Buffered::Slot& slot) {
  std::vector<std::size_t> counts;
  for (i64 q = 0; q < gemm_.P_; ++q) counts.push_back(slot.piece_offset[q + 1] - slot.piece_offset[q]);
  ring_ = std::make_unique<RingAllgather>(gemm_.run_.context(), slot.buf.data(), counts);
}

void GaoGemm::Overlap::finish_ring() {
  if (!ring_) start_ring(arrays_[bx_]->now());  // not begun ahead: the whole ring now
  while (!ring_->done()) ring_->start(), ring_->finish();
  ring_.reset();
}

void GaoGemm::Overlap::multiply_with_ring(const Step& s) {
  Buffered& bcast = *arrays_[bx_];
  if (!ring_ && queued_[static_cast<std::size_t>(bx_)] != none_ && io_.done(bcast.other().ticket)) {
    io_.wait(bcast.other().ticket);  // rethrows a failed read
    start_ring(bcast.other());
  }
  const bool step = ring_ && !ring_->done();
  if (step) ring_->start();
  gemm_.run_step(s);
  if (step) ring_->finish();
}

void GaoGemm::Overlap::run(std::size_t start, const Boundary& boundary) {
  for (std::size_t i = start; i < n_; ++i) {
    boundary(i, [&] { drain(); });
    const Step& s = gemm_.steps_[i];
    const int x = array_of(s.kind);
    if (x >= 0) {  // the tile is in the other slot, or will be: wait for it and work on that slot
      take_read(x, i);
    } else if (s.kind == Step::WriteC) {
      queue_write_C();
    } else if (s.kind == Step::GatherFile || s.kind == Step::ShiftFiles || s.kind == Step::ReduceFile) {
      drain();  // the files are complete before they move
      gemm_.run_step(s);
    } else if (ring_ahead_ && (s.kind == Step::AllgatherA || s.kind == Step::AllgatherB)) {
      finish_ring();
    } else if (ring_ahead_ && s.kind == Step::Multiply) {
      multiply_with_ring(s);
    } else {
      gemm_.run_step(s);
    }
    read_ahead(i);
  }
  drain();
}

void GaoGemm::run_overlapped(std::size_t start, const Boundary& boundary) { Overlap(*this).run(start, boundary); }

// ---- multiplication ------------------------------------------------------------------------

void GaoGemm::local_gemm(i64 f, i64 h, i64 k) {
  Buffered& A = *A_;
  Buffered& B = *B_;
  Buffered& C = *C_;
  const auto m = static_cast<std::size_t>(A.block_rows(f)), n = static_cast<std::size_t>(B.block_rows(h));
  double* c = C.now().buf.data() + C.offset(f, h);
  const auto ldc = static_cast<std::size_t>(C.block_cols(h, 0));
  if (!A.pieced && !B.pieced) {
    const auto kk = static_cast<std::size_t>(A.block_cols(k, 0));
    if (m * n * kk > 0)
      gemm_tile(m, n, kk, spec_.alpha, A.now().buf.data() + A.offset(f, k), kk, B.now().buf.data() + B.offset(h, k), kk,
                1.0, c, ldc);
    return;
  }
  // One GEMM per K piece q of the broadcast operand, against the matching columns of the other.
  Buffered& bcast = A.pieced ? A : B;
  Buffered& other = A.pieced ? B : A;
  const i64 row_bcast = A.pieced ? f : h, row_other = A.pieced ? h : f;
  const auto whole = static_cast<std::size_t>(other.block_cols(k, 0));
  for (i64 q = 0; q < P_; ++q) {
    const auto kk = static_cast<std::size_t>(bcast.block_cols(k, q));
    if (m * n * kk == 0) continue;
    const double* piece = bcast.now().buf.data() + bcast.offset(row_bcast, k, q);
    const double* cols = other.now().buf.data() + other.offset(row_other, k) + layout_K_[1].piece_start(k, q);
    if (A.pieced)
      gemm_tile(m, n, kk, spec_.alpha, piece, kk, cols, whole, 1.0, c, ldc);
    else
      gemm_tile(m, n, kk, spec_.alpha, cols, whole, piece, kk, 1.0, c, ldc);
  }
}

void GaoGemm::multiply(i64 f, i64 h, i64 k) {
  if (recording_) return steps_.push_back({Step::Multiply, {}, {}, f, h, k});
  local_gemm(f, h, k);
  ++steps_done_;
  progress_->update(static_cast<double>(steps_done_) / static_cast<double>(steps_total_));
}

void GaoGemm::cannon_multiply(i64 f, i64 h, i64 k) {
  if (recording_) return steps_.push_back({Step::Cannon, {}, {}, f, h, k});
  Buffered& A = *A_;
  Buffered& B = *B_;
  const Context& ctx = run_.context();
  const auto left = static_cast<int>(r_ * g_ + (c_ + g_ - 1) % g_), right = static_cast<int>(r_ * g_ + (c_ + 1) % g_);
  const auto up = static_cast<int>(((r_ + g_ - 1) % g_) * g_ + c_), down = static_cast<int>(((r_ + 1) % g_) * g_ + c_);
  double* a = A.now().buf.data() + A.offset(f, k);
  double* b = B.now().buf.data() + B.offset(h, k);
  const i64 home = A.pc;
  for (i64 s = 0; s < g_; ++s) {
    local_gemm(f, h, k);
    if (g_ == 1) break;
    const i64 held = A.pc, next = (held + 1) % g_;
    const auto k_held = static_cast<std::size_t>(layout_K_[1].rows(k, held)),
               k_next = static_cast<std::size_t>(layout_K_[1].rows(k, next));
    shift(ctx, a, static_cast<std::size_t>(A.block_rows(f)) * k_held,
          static_cast<std::size_t>(A.block_rows(f)) * k_next, left, right, comm_scratch());
    shift(ctx, b, static_cast<std::size_t>(B.block_rows(h)) * k_held,
          static_cast<std::size_t>(B.block_rows(h)) * k_next, up, down, comm_scratch());
    A.pc = B.pc = next;
  }
  A.pc = B.pc = home;  // √P shifts bring every block home
  ++steps_done_;
  progress_->update(static_cast<double>(steps_done_) / static_cast<double>(steps_total_));
}

// ---- collectives of the accumulation and the outside methods -------------------------------

void GaoGemm::allreduce_C() {
  if (recording_) return steps_.push_back({Step::AllreduceC});
  allreduce_sum(run_.context(), C_->now().buf.data(), C_->range_elems(C_->now().tr, C_->now().tc, 0), comm_scratch());
}

void GaoGemm::gather_broadcast_file() {
  if (recording_) return steps_.push_back({Step::GatherFile});
  Buffered& x = gao().broadcast == Operand::A ? *A_ : *B_;
  std::vector<std::size_t> counts;
  for (i64 q = 0; q < P_; ++q) counts.push_back(x.pieces[q]->total());
  ring_allgatherv_file(run_.context(), x.pieces[rank_]->file(), counts, comm_scratch());
}

void GaoGemm::shift_operand_files() {
  if (recording_) return steps_.push_back({Step::ShiftFiles});
  if (g_ == 1) return;
  const Context& ctx = run_.context();
  const auto left = static_cast<int>(r_ * g_ + (c_ + g_ - 1) % g_), right = static_cast<int>(r_ * g_ + (c_ + 1) % g_);
  const auto up = static_cast<int>(((r_ + g_ - 1) % g_) * g_ + c_), down = static_cast<int>(((r_ + 1) % g_) * g_ + c_);
  const i64 next = (A_->pc + 1) % g_;
  for (Buffered* x : {A_.get(), B_.get()}) {
    auto moved = std::make_unique<TiledMatrix>(x->path, x->rows, x->pr, x->cols, next);
    const bool is_A = x == A_.get();
    shift_file(ctx, x->file->file(), x->file->file(), x->file->total(), moved->total(), is_A ? left : up,
               is_A ? right : down, comm_scratch());
    x->file = std::move(moved);
    x->pc = next;
  }
  ++round_;
}

void GaoGemm::reduce_C_file() {
  if (recording_) return steps_.push_back({Step::ReduceFile});
  DiskFile& c = C_->file->file();
  allreduce_sum_file(run_.context(), c, rank_ == 0 ? &c : nullptr, C_->file->total(), comm_scratch());
}

TiledMatrix& GaoGemm::result() { return *C_->file; }

bool GaoGemm::owns_result() const { return gao().algorithm != Algorithm::Accumulation || rank_ == 0; }

}  // namespace tcert

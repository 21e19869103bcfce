// runtime/kernel/kernel_plan.cpp — choose_plan(): operand roles, index orders, copies and chunk boxes
// of contract(), priced by a small time model (dgemm efficiency by shape, permutation traffic).
#include "runtime/kernel/kernel_plan.h"

#include <algorithm>
#include <cmath>

#include "runtime/kernel/kernel_gett.h"

namespace tcert::detail {

namespace {

/// The ids of `dims` that belong to `group`, in the order of `dims`.
std::vector<int> in_order_of(const std::vector<int>& dims, const std::vector<int>& group) {
  std::vector<int> out;
  for (int id : dims) {
    if (std::find(group.begin(), group.end(), id) != group.end()) out.push_back(id);
  }
  return out;
}

std::vector<int> concat(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

/// An operand stored as [g1,g2] or [g2,g1] goes in as is. Otherwise it is copied into the order
/// whose innermost index is the stored innermost one, when one is (row copies, not transposes).
Operand place(const std::vector<int>& stored, const std::vector<int>& g1, const std::vector<int>& g2) {
  const auto a = concat(g1, g2), b = concat(g2, g1);
  if (stored == a) return {stored, a, true, false};
  if (stored == b) return {stored, b, false, false};
  if (!stored.empty() && !b.empty() && b.back() == stored.back() && a.back() != stored.back()) {
    return {stored, b, false, true};
  }
  return {stored, a, true, true};
}

/// The smallest tile of `id`: 8 (a cache line) for a stride-1 dimension of a copied tensor, else 1.
std::int64_t floor_tile(const Indexing& x, int id, const std::vector<int>& protect) {
  const bool is_protected = std::find(protect.begin(), protect.end(), id) != protect.end();
  return is_protected ? std::min<std::int64_t>(8, x.extent[id]) : 1;
}

/// Halves one tile of `ids`; false when none can shrink. `box`: any index may shrink (the
/// largest unprotected one first, so that stride-1 runs stay long); otherwise the box stays a
/// contiguous range: the first index not yet single shrinks. Stride-1 dimensions of copied
/// tensors (`protect`) keep tiles of 8 or more.
bool shrink_step(const Indexing& x, const std::vector<int>& ids, bool box, const std::vector<int>& protect,
                 std::vector<std::int64_t>& tile) {
  int pick = -1;
  auto rank = [&](int id) { return std::make_pair(floor_tile(x, id, protect) == 1, tile[id]); };
  for (int id : ids) {
    if (tile[id] <= floor_tile(x, id, protect)) {
      if (!box && tile[id] > 1) return false;  // a protected leading index ends the range form
      continue;
    }
    if (!box) {
      pick = id;
      break;
    }
    if (pick < 0 || rank(id) > rank(pick)) pick = id;
  }
  if (pick < 0) return false;
  const std::int64_t floor = floor_tile(x, pick, protect);
  std::int64_t t = (tile[pick] + 1) / 2;
  if (floor > 1) t = std::max(floor, (t + 7) / 8 * 8);
  if (t >= tile[pick]) return false;
  tile[pick] = t;
  return true;
}

// Time model of plan_chunks(): a row-major dgemm of rows×cols×k runs at kPeakFlops·f(rows, 12)·
// f(cols, 32)·f(k, 8) with f(x, h) = x/(x + h): OpenBLAS (0.3.21, one core) is fast for few rows
// and many columns (24×92352×312: 30 GFLOP/s) but slow for few columns (92352×24×312: 15–21).
// A permutation costs kMoveSeconds per element per pass through memory (×kTransposeFactor when
// the innermost index changes): X and C in chunks, one pass when a chunk stays in cache and
// three when it does not; Y, copied once whole, one pass (three passes priced TTGT 10% above
// GETT on TCCG's ad,bdc->abc, where TTGT is the faster).
constexpr double kPeakFlops = 54e9;       // one core of the reference machine (OpenBLAS dgemm)
constexpr double kMoveSeconds = 0.8e-9;   // 16 bytes (read + write) at 20 GB/s
constexpr double kTransposeFactor = 1.5;  // a transpose (new innermost index) against row copies

double efficiency(double rows, double cols, double k, double rows_half = 12) {
  auto f = [](double x, double half) { return x / (x + half); };
  return f(rows, rows_half) * f(cols, 32) * f(k, 8);
}

/// Sizes the chunks of `p` (the cheapest box on the path that shrinks the X chunk, then the C
/// block, to ws.chunk_bytes) and prices the plan in seconds by the time model above.
void plan_chunks(const Indexing& x, Plan& p, std::int64_t k, const Workspace& ws) {
  std::vector<int> protect;
  if (p.X.copy && !p.X.stored.empty()) protect.push_back(p.X.stored.back());
  if (p.C.copy && !p.C.stored.empty()) protect.push_back(p.C.stored.back());
  const double budget = static_cast<double>(ws.chunk_bytes) / sizeof(double);  // elements
  const double flops = 2.0 * product(x.extent, p.R) * product(x.extent, p.S) * k;
  std::vector<std::int64_t> tile = x.extent;
  auto rows = [&] { return static_cast<double>(product(tile, p.R)); };
  auto cols = [&] { return static_cast<double>(product(tile, p.S)); };
  auto moved = [&](const Operand& o, double chunk) {  // passes: 1 when the chunk stays in cache
    if (!o.copy) return 0.0;
    const double transpose = o.order.back() == o.stored.back() ? 1 : kTransposeFactor;
    return static_cast<double>(product(x.extent, o.stored)) * (chunk <= 2 * budget ? 1 : 3) * transpose;
  };
  auto seconds = [&] {
    // Y is copied once, whole: one pass whatever its size (dgemm reads it from memory either way).
    const double m = moved(p.X, rows() * k) + moved(p.Y, 0) + 1.5 * moved(p.C, rows() * cols());
    return flops / (kPeakFlops * efficiency(rows(), cols(), static_cast<double>(k))) + m * kMoveSeconds;
  };
  p.tile = tile;
  p.cost = seconds();
  auto step = [&](const std::vector<int>& ids, bool box) {
    const auto before = tile;
    if (!shrink_step(x, ids, box, protect, tile)) return false;
    if (product(tile, ids) < ws.min_chunk_side) return tile = before, false;
    if (const double c = seconds(); c < p.cost || ws.always_chunk) p.cost = c, p.tile = tile;
    return true;
  };
  const bool box = p.X.copy && p.C.copy;
  while (p.X.copy && rows() * k > budget && step(p.R, box)) {
  }
  while (p.C.copy && rows() * cols() > budget && (step(p.S, false) || step(p.R, box))) {
  }
}

// Time model of GETT (kernel_gett.h): kGettShare of the dgemm model above, with its shape
// efficiency mirrored: GETT's few-rows case is dgemm's few-columns one (with few rows M, each
// packed element of the column operand Y serves few flops), so the efficiency is
// efficiency(N, M, k). Measured here on kernel_bench's permuted shapes: 0.92–1.06 of OpenBLAS's
// dgemm, and the mirrored efficiency picks the faster variant on 4096×64×4096, 64×4096×4096 and
// 72×5184×5184, where dgemm's own efficiency picked variants 10–20% slower. Packing a panel
// whose rows or whose K range come in runs of 8 or more costs what dgemm's own packing costs
// (inside the efficiency), and so does packing X by chains (rows ordered [..., X's innermost
// index, C's innermost], kernel_gett.h); element by element it costs gather_seconds() more per
// element: a cache miss every few elements of a tensor that fits in cache, a TLB miss per element of one
// that does not (intensli's 600 MB operands: 20 ns per element measured). C is read and written
// once per K block: kMoveSeconds per element when the register tile's rows are a run in C and
// its columns lie within a 4 KiB page of each other (stride ≤ 512 elements), plus kPageSeconds
// when they do not (a TLB miss per column); 2·kMoveSeconds when its columns are a run instead
// (written row by row, without vectors); gather_seconds() when neither is. A C that GETT writes
// once (beta 0, one K block) and streams past the caches (Workspace::gett_stream_bytes) costs
// kStreamSeconds per element instead, plus kStreamPageSeconds when the columns are pages apart
// (measured on TCCG's ccsd_t and ao2mo cases: 0.35 and about 0.25 ns). When C's innermost
// index is a row index but not the last, a line of C is written whole over 8 of its values, and
// between them the register tiles cover the rows after it (W of them) times N columns: where
// those W·N lines fit in half of L2 (kWindowBytes), the scatter costs 2·kMoveSeconds, as
// columns that run do. X's panels read straight from X (gett_direct(): no packing) lose the
// few-columns penalty of packing: their efficiency's half-point in N is kDirectHalf, not 12
// (TCCG intensli 01 and 05, N = 24: 44–48 GFLOP/s direct, 27 packed). Groups of C's rows
// (GettTables::c_groups) write C in runs of 8 through register transposes, priced as runs.
constexpr double kGettShare = 0.95;
constexpr double kDirectHalf = 3;
constexpr std::int64_t kGroupsMaxCols = 4 * kGettNr;  // best_gett_plan() tries groups of C's rows up to here
constexpr double kWindowBytes = 512.0 * 1024;
constexpr double kPageSeconds = 1.5e-9;
constexpr std::int64_t kPageElements = 512;
constexpr double kStreamSeconds = 0.35e-9;      // 8 bytes stored past the caches at 23 GB/s
constexpr double kStreamPageSeconds = 0.25e-9;  // and a page per column of a register tile

/// Seconds per element of a gather from (or scatter into) a tensor of `elements` doubles.
double gather_seconds(double elements) { return elements * sizeof(double) > 4.0 * (1 << 20) ? 20e-9 : 2e-9; }

/// The GETT plan with rows R (of X = A when rows_are_I, else B), columns S and K in the given
/// orders, priced by the model above (`c_written_once`: beta == 0); `c_groups`: R's rows taken in
/// groups of C's rows (GettTables::c_groups; R ends with X's and C's innermost indices).
Plan make_gett_plan(const Indexing& x, const Workspace& ws, bool c_written_once, bool rows_are_I,
                    const std::vector<int>& R, const std::vector<int>& S, const std::vector<int>& K,
                    bool c_groups = false) {
  Plan p;
  p.gett = true;
  p.c_groups = c_groups;
  p.x_is_A = rows_are_I;
  p.R = R, p.S = S, p.K = K;
  const std::vector<int>& dims_x = rows_are_I ? x.dims_A : x.dims_B;
  const std::vector<int>& dims_y = rows_are_I ? x.dims_B : x.dims_A;
  p.X.stored = dims_x, p.Y.stored = dims_y, p.C.stored = x.dims_C;
  const double M = static_cast<double>(product(x.extent, R)), N = static_cast<double>(product(x.extent, S));
  const double k = static_cast<double>(product(x.extent, K));
  auto last_is = [&](const std::vector<int>& dims, const std::vector<int>& ids) {  // a run of ≥ 8
    return !dims.empty() && !ids.empty() && dims.back() == ids.back() && x.extent[ids.back()] >= 8;
  };
  auto fast = [&](const std::vector<int>& dims, const std::vector<int>& group) {
    return dims.empty() || last_is(dims, group) || last_is(dims, K);
  };
  const std::int64_t chain = c_groups ? 0 : gett_chain(x.extent, R, dims_x);  // X packs by chains of transposes
  const GettBlocks blocks =
      gett_blocks(ws, chain, chain > 0 && gett_chain_k_outer(x.extent, K, dims_x), product(x.extent, K));
  const double blocks_n = std::ceil(N / static_cast<double>(blocks.nc));
  const double blocks_k = std::ceil(k / static_cast<double>(blocks.kc));
  const bool c_run = x.dims_C.empty() || last_is(x.dims_C, R) || c_groups;  // groups: runs of 8 by transposes
  const bool c_cols = !c_run && last_is(x.dims_C, S);  // the tile's rows are runs along its columns
  const auto ci = x.dims_C.empty() ? R.end() : std::find(R.begin(), R.end(), x.dims_C.back());
  const bool c_window =
      !c_run && !c_cols && ci != R.end() && x.extent[*ci] >= 8 &&
      64.0 * static_cast<double>(product(x.extent, std::vector<int>(ci + 1, R.end()))) * N <= kWindowBytes;
  const bool direct = chain == 0 && gett_direct(x.extent, R, K, dims_x, blocks, product(x.extent, S), c_groups);
  const bool c_near = S.empty() || strides_by_id(x.extent, x.dims_C)[S.back()] <= kPageElements;
  const bool stream = c_run && gett_streams(ws, blocks, product(x.extent, R), product(x.extent, S),
                                            product(x.extent, K), c_written_once);
  const double c_seconds = stream ? kStreamSeconds + (c_near ? 0 : kStreamPageSeconds)
                                  : kMoveSeconds + (c_run                ? (c_near ? 0 : kPageSeconds)
                                                    : c_cols || c_window ? kMoveSeconds
                                                                         : gather_seconds(M * N));
  p.cost = 2 * M * N * k / (kPeakFlops * kGettShare * efficiency(N, M, k, direct ? kDirectHalf : 12)) +
           (chain > 0 || c_groups || fast(dims_x, R) ? 0 : M * k * blocks_n * gather_seconds(M * k)) +
           (fast(dims_y, S) ? 0 : N * k * gather_seconds(N * k)) + M * N * blocks_k * c_seconds;
  return p;
}

/// The cheapest GETT plan: rows R of X = A (R = I) or of X = B (R = J), in C's order, so that
/// C's register tiles are written in runs when C's innermost index is in R; K in X's order when
/// X's innermost index is in K (packed by transposes), else in Y's; the columns S in Y's order
/// (Y packs in runs) or in C's (the tile's columns lie close together in C); and, where X's
/// innermost index is a row index, the rows in X's order too (with K in X's order as well: X's
/// panels read straight from X, gett_direct()), and, where that index is not C's innermost, rows
/// ordered for chains and, for few columns, the same rows in groups of C's rows
/// (GettTables::c_groups) (all tried first, chains before the others, winning a tie).
Plan best_gett_plan(const Indexing& x, const Workspace& ws, bool c_written_once) {
  Plan best;
  best.cost = -1;
  auto consider = [&](Plan p) {
    if (best.cost < 0 || p.cost < best.cost) best = std::move(p);
  };
  for (const int c : {2, 3, 0, 1}) {  // on a tie, S in C's order (its columns lie closer in C)
    const bool rows_are_I = (c & 1) == 0;
    const std::vector<int>& dims_x = rows_are_I ? x.dims_A : x.dims_B;
    const std::vector<int>& dims_y = rows_are_I ? x.dims_B : x.dims_A;
    const std::vector<int>&R_ids = rows_are_I ? x.I : x.J, &S_ids = rows_are_I ? x.J : x.I;
    const bool x_inner_k = !dims_x.empty() && std::find(x.K.begin(), x.K.end(), dims_x.back()) != x.K.end();
    const std::vector<int> S = in_order_of(c & 2 ? x.dims_C : dims_y, S_ids);
    const std::vector<int> K = in_order_of(x_inner_k ? dims_x : dims_y, x.K);
    // X's innermost index just before C's in the rows, the other rows in X's order: X packs by
    // chains, reading X in runs (kernel_gett.h). First, so that it wins a tie.
    const int xi = dims_x.empty() ? -1 : dims_x.back(), ci = x.dims_C.empty() ? -1 : x.dims_C.back();
    auto in_R = [&](int id) { return std::find(R_ids.begin(), R_ids.end(), id) != R_ids.end(); };
    if (xi != ci && in_R(xi) && in_R(ci)) {
      std::vector<int> R;
      for (int id : in_order_of(dims_x, R_ids))
        if (id != xi && id != ci) R.push_back(id);
      R.push_back(xi), R.push_back(ci);
      consider(make_gett_plan(x, ws, c_written_once, rows_are_I, R, S, K));
      // Or the same rows in groups of C's rows: X's panels read straight from X (K in X's
      // order), C written through register transposes. Only for few columns (kGroupsMaxCols),
      // where packing X costs most (TCCG intensli 03, 04, 07: 23-27 -> 36-45 GFLOP/s); with
      // thousands (ccsd_t 34-45) chains are faster (47-50 against 35-40). Where X's K steps are
      // far apart (gett_chain_k_outer()), only for up to 2 column tiles, which gett() computes
      // at once (X loaded once): 16-row tiles reloading far-apart runs of 8 read slower than
      // chains packed k-outer (intensli 06 and 08: 18 against 26; at once: 30-31).
      const std::vector<int> K_x = in_order_of(dims_x, x.K);
      const std::int64_t n = product(x.extent, S);
      if (n <= kGroupsMaxCols && gett_groups(x.extent, R, dims_x, x.dims_C) &&
          (n <= 2 * kGettNr || !gett_chain_k_outer(x.extent, K_x, dims_x)))
        consider(make_gett_plan(x, ws, c_written_once, rows_are_I, R, S, K_x, true));
    }
    // X's innermost index a row index: the rows in X's order make X's panels runs, read
    // straight from X (gett_direct()); where it is C's innermost too, they keep C's runs, and a
    // block's rows are then X's longest runs. First, so that it wins a tie.
    if (in_R(xi)) {
      const std::vector<int> R = in_order_of(dims_x, R_ids), K_x = in_order_of(dims_x, x.K);
      consider(make_gett_plan(x, ws, c_written_once, rows_are_I, R, S, K));
      if (K_x != K) consider(make_gett_plan(x, ws, c_written_once, rows_are_I, R, S, K_x));  // K steps evenly in X
    }
    consider(make_gett_plan(x, ws, c_written_once, rows_are_I, in_order_of(x.dims_C, R_ids), S, K));
  }
  return best;
}

/// The plan with C's placement `c` (rows first) for the given orders of I, J and K.
Plan make_plan(const Indexing& x, const Operand& c, bool rows_are_I, const std::vector<int>& I,
               const std::vector<int>& J, const std::vector<int>& K, const Workspace& ws) {
  Plan p;
  p.C = c;
  p.x_is_A = rows_are_I;
  p.R = rows_are_I ? I : J;
  p.S = rows_are_I ? J : I;
  p.X = place(rows_are_I ? x.dims_A : x.dims_B, p.R, K);
  p.Y = place(rows_are_I ? x.dims_B : x.dims_A, p.S, K);
  plan_chunks(x, p, product(x.extent, K), ws);
  return p;
}

}  // namespace

Indexing index_layout(const ContractionLayout& l) {
  const int nI = static_cast<int>(l.extents_I.size()), nJ = static_cast<int>(l.extents_J.size());
  const int nK = static_cast<int>(l.extents_K.size());
  Indexing x;
  x.extent = l.extents_I;
  x.extent.insert(x.extent.end(), l.extents_J.begin(), l.extents_J.end());
  x.extent.insert(x.extent.end(), l.extents_K.begin(), l.extents_K.end());
  x.dims_A.resize(nI + nK);
  x.dims_B.resize(nJ + nK);
  x.dims_C.resize(nI + nJ);
  for (int p = 0; p < nI + nK; ++p) x.dims_A[l.perm_A[p]] = p < nI ? p : nI + nJ + (p - nI);
  for (int p = 0; p < nJ + nK; ++p) x.dims_B[l.perm_B[p]] = p < nJ ? nI + p : nI + nJ + (p - nJ);
  for (int p = 0; p < nI + nJ; ++p) x.dims_C[l.perm_C[p]] = p;
  for (int id = 0; id < nI + nJ + nK; ++id) (id < nI ? x.I : id < nI + nJ ? x.J : x.K).push_back(id);
  return x;
}

std::vector<std::int64_t> strides_by_id(const std::vector<std::int64_t>& extent, const std::vector<int>& dims) {
  std::vector<std::int64_t> s(extent.size(), 0);
  std::int64_t stride = 1;
  for (auto d = dims.rbegin(); d != dims.rend(); ++d) s[*d] = stride, stride *= extent[*d];
  return s;
}

double* workspace_buffer(Workspace::Buffer& v, std::int64_t elements) {
  if (v.size() < static_cast<std::size_t>(elements)) v.resize(static_cast<std::size_t>(elements));
  return v.data();
}

std::int64_t product(const std::vector<std::int64_t>& extent, const std::vector<int>& ids) {
  std::int64_t p = 1;
  for (int id : ids) p *= extent[id];
  return p;
}

Plan choose_plan(const Indexing& x, const Workspace& ws, bool c_written_once) {
  const std::vector<int> Is[2] = {in_order_of(x.dims_C, x.I), in_order_of(x.dims_A, x.I)};
  const std::vector<int> Js[2] = {in_order_of(x.dims_C, x.J), in_order_of(x.dims_B, x.J)};
  const std::vector<int> Ks[2] = {in_order_of(x.dims_A, x.K), in_order_of(x.dims_B, x.K)};
  Plan best;
  best.cost = -1;
  auto consider = [&](Plan p) {
    if (best.cost < 0 || p.cost < best.cost) best = std::move(p);
  };
  if (ws.scheme == Workspace::Scheme::Gett) return best_gett_plan(x, ws, c_written_once);
  if (ws.scheme == Workspace::Scheme::Auto && gett_vectorized()) consider(best_gett_plan(x, ws, c_written_once));
  for (int c = 0; c < 8; ++c) {
    const auto &I = Is[c & 1], &J = Js[(c >> 1) & 1], &K = Ks[c >> 2];
    const Operand placed = place(x.dims_C, I, J);
    if (!placed.copy) {
      consider(make_plan(x, placed, placed.outer_first, I, J, K, ws));
      continue;
    }
    // A permuted C may be computed as [I,J] or as [J,I]: either operand can be the chunked one.
    consider(make_plan(x, {x.dims_C, concat(I, J), true, true}, true, I, J, K, ws));
    consider(make_plan(x, {x.dims_C, concat(J, I), true, true}, false, I, J, K, ws));
  }
  return best;
}

}  // namespace tcert::detail

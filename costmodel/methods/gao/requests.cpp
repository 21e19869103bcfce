// costmodel/methods/gao/requests.cpp — exact disk requests per rank of a Gao plan's compute
// stage: how often each array's blocks are visited (the passes of plan_volumes.cpp), times
// the requests of one visit of all of a rank's blocks, plus the chunked file collectives of
// the outside methods (runtime/comm/comm.h). A block (finest tile pair) of a tiled copy is one
// request; a block reached in the tensor's file (direct tile I/O) is one request per run of
// adjacent file elements in the order the runtime visits them (runtime counters.h RunCounter):
// row by row, or column by column where the tensor's innermost stored dimension is a row index.
#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "costmodel/methods/gao/gao.h"
#include "costmodel/methods/gao/volumes.h"
#include "costmodel/partition.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

/// Elements per read and per write of the runtime's file collectives (shift_file,
/// ring_allgatherv_file, allreduce_sum_file): half of its 2^17-element scratch buffer.
constexpr u64 kFileChunkElems = u64{1} << 16;

u64 chunks(u64 n) { return (n + kFileChunkElems - 1) / kFileChunkElems; }

/// One loop level of a block's visit: `length` values, `stride` elements apart in the file.
struct Level {
  i64 length, stride;
};

/// Runs of adjacent file elements when a nest of levels (outermost first) is visited in
/// order: 1 + each step at which the file position does not advance by exactly one element.
/// A step of level l (all inner levels wrapping) moves by stride_l − Σ_{k>l}(len_k − 1)·stride_k
/// and happens (Π_{k<l} len_k)·(len_l − 1) times. Precondition: every length >= 1.
u64 runs(const std::vector<Level>& levels) {
  u64 out = 1, outer = 1;
  for (std::size_t l = 0; l < levels.size(); ++l) {
    i64 step = levels[l].stride;
    for (std::size_t k = l + 1; k < levels.size(); ++k) step -= (levels[k].length - 1) * levels[k].stride;
    if (step != 1) out += outer * static_cast<u64>(levels[l].length - 1);
    outer *= static_cast<u64>(levels[l].length);
  }
  return out;
}

/// The shapes of the finest tiles of a group as one rank holds them (part p of g; p < 0 or
/// g == 1: whole), with how many tiles have each: a shape is the loop levels of a tile's
/// elements in the tile order of runtime/storage/tiled_matrix.h (the distribution index first, then
/// the others in group order), strides from `stride` (per group position; zeros when not
/// direct). Tiles the rank holds nothing of are left out; the empty group is one tile of one
/// element (no levels). Balanced splits make the shapes few.
using Shapes = std::map<std::vector<std::pair<i64, i64>>, u64>;  // (length, stride) per level

Shapes held_tiles(const GroupTiling& group, i64 g, i64 p, const std::vector<i64>& stride) {
  // The tiles are the Cartesian product of each index's finest parts (partition.h), so their
  // shapes are the products of each index's part sizes, with multiplied counts.
  const int n = static_cast<int>(group.indices.size());
  std::vector<int> order;  // tile order: the distribution index first, then the others
  if (group.dist >= 0) order.push_back(group.dist);
  for (int i = 0; i < n; ++i)
    if (i != group.dist) order.push_back(i);
  Shapes out{{{}, 1}};
  for (int i : order) {
    SizeCounts sizes = finest_sizes(group.indices[static_cast<std::size_t>(i)]);
    if (i == group.dist && g > 1 && p >= 0)
      for (auto& [size, count] : sizes) size = piece(size, g, p);  // the rank's slice
    Shapes next;
    for (const auto& [levels, count] : out)
      for (const auto& [size, times] : sizes) {
        if (size == 0) continue;  // the rank holds none of these tiles
        auto longer = levels;
        longer.emplace_back(size, stride[static_cast<std::size_t>(i)]);
        next[longer] += count * static_cast<u64>(times);
      }
    out = std::move(next);
  }
  return out;
}

/// One array of the plan: its row and column groups and, when read directly, the file
/// stride of each GEMM position (rows first), and whether a block is visited column by column
/// (the tensor's innermost stored dimension is a row index: runtime LinearMap::rows_innermost()).
struct ArrayShape {
  const GroupTiling* rows;
  const GroupTiling* cols;
  bool direct;
  std::vector<i64> row_stride, col_stride;
  bool by_columns = false;
};

ArrayShape array_shape(const GroupTiling& rows, const GroupTiling& cols, bool direct, const std::vector<int>& perm) {
  ArrayShape a{&rows, &cols, direct, std::vector<i64>(rows.indices.size()), std::vector<i64>(cols.indices.size())};
  if (!direct) return a;
  const std::size_t nr = rows.indices.size(), n = nr + cols.indices.size();
  std::vector<i64> extent(n), stride(n, 1);  // by stored dimension
  for (std::size_t p = 0; p < n; ++p)
    extent[static_cast<std::size_t>(perm[p])] = (p < nr ? rows.indices[p] : cols.indices[p - nr]).extent;
  for (std::size_t d = n; d-- > 1;) stride[d - 1] = stride[d] * extent[d];
  for (std::size_t p = 0; p < n; ++p)
    (p < nr ? a.row_stride[p] : a.col_stride[p - nr]) = stride[static_cast<std::size_t>(perm[p])];
  for (std::size_t p = 0; p < nr; ++p)
    if (rows.indices[p].extent > 1 && a.row_stride[p] == 1) a.by_columns = true;
  return a;
}

/// Requests of one visit of every block a rank holds of `a` (rows part pr of rp, columns part
/// pc of cp): 1 per non-empty block of a tiled copy, its runs when direct (row by row, or column
/// by column: the column levels outermost).
u64 visit(const ArrayShape& a, i64 rp, i64 pr, i64 cp, i64 pc) {
  const Shapes rows = held_tiles(*a.rows, rp, pr, a.row_stride), cols = held_tiles(*a.cols, cp, pc, a.col_stride);
  u64 n = 0;
  for (const auto& [r, r_count] : rows)
    for (const auto& [c, c_count] : cols) {
      if (!a.direct) {
        n += r_count * c_count;
        continue;
      }
      std::vector<Level> levels;
      for (const auto* group : a.by_columns ? std::array{&c, &r} : std::array{&r, &c})
        for (const auto& level : *group) levels.push_back({level.first, level.second});
      n += r_count * c_count * runs(levels);
    }
  return n;
}

struct Passes {
  u64 A, B, C, C_read;
};

Passes passes_of(const Plan& plan) {
  const LoopNestCounts n = loop_nest_counts(gao(plan).order, plan.tile_counts());
  const auto pC = static_cast<u64>(n.passes_C);
  return {static_cast<u64>(n.passes_A), static_cast<u64>(n.passes_B), pC, plan.accumulate ? pC : pC - 1};
}

}  // namespace

std::vector<std::uint64_t> gao_requests(const Plan& plan, const ArrayAccess& access) {
  const GaoPlan& m = gao(plan);
  const ArrayShape A = array_shape(plan.I, plan.K, access.direct_A, access.perm_A);
  const ArrayShape B = array_shape(plan.J, plan.K, access.direct_B, access.perm_B);
  const ArrayShape C = array_shape(plan.I, plan.J, access.direct_C, access.perm_C);
  const Passes n = passes_of(plan);
  const GridParts parts = grid_parts(plan);
  const i64 P = plan.processors, g = parts.grid_cols;
  std::vector<u64> out;
  for (i64 rank = 0; rank < P; ++rank) {
    const RankParts rp = rank_parts(plan, rank);
    auto of = [&](const ArrayShape& x, ArrayParts ways, i64 pr, i64 pc) {
      return visit(x, ways.rows, pr, ways.cols, pc);
    };
    u64 req = 0;
    switch (m.algorithm) {
      case Algorithm::Rotation: {
        const u64 c_visit = of(C, parts.C, rp.C_rows, rp.C_cols);
        if (m.comm == Communication::Inside) {  // A, B read at home; C as many times as its bytes
          req = n.A * of(A, parts.A, rp.A_rows, rp.A_cols) + n.B * of(B, parts.B, rp.B_rows, rp.B_cols) +
                (n.C_read + n.C) * c_visit;
          break;
        }
        // Outside: g rounds, each over the K part held then, followed by a shift of both files.
        const auto share = [&](const GroupTiling& rows, i64 r, i64 k) {
          return static_cast<u64>(group_share(rows, g, r) * group_share(plan.K, g, k));
        };
        for (i64 t = 0; t < g; ++t) {
          const i64 k = (rp.A_cols + t) % g, next = (k + 1) % g;
          req += n.A * of(A, parts.A, rp.A_rows, k) + n.B * of(B, parts.B, rp.B_rows, k);
          if (g > 1)
            req += chunks(share(plan.I, rp.A_rows, k)) + chunks(share(plan.I, rp.A_rows, next)) +
                   chunks(share(plan.J, rp.B_rows, k)) + chunks(share(plan.J, rp.B_rows, next));
        }
        req += (n.C * static_cast<u64>(g) - (n.C - n.C_read) + n.C * static_cast<u64>(g)) * c_visit;
        break;
      }
      case Algorithm::Replication: {
        const bool bcast_A = m.replicated == Operand::A;
        const ArrayShape& X = bcast_A ? A : B;
        const ArrayShape& Y = bcast_A ? B : A;
        const u64 pX = bcast_A ? n.A : n.B, pY = bcast_A ? n.B : n.A;
        const ArrayParts yw = bcast_A ? parts.B : parts.A;  // X's pieces: K split P ways, rows whole
        const i64 y_rows = bcast_A ? rp.B_rows : rp.A_rows;
        req = pY * of(Y, yw, y_rows, -1) + (n.C_read + n.C) * of(C, parts.C, rp.C_rows, rp.C_cols);
        if (m.comm == Communication::Inside) {  // its own piece of X per pass; the ring is in memory
          req += pX * of(X, {1, P}, -1, rank);
          break;
        }
        // Outside: the whole gathered copy per pass, after one ring all-gather on disk.
        const GroupTiling& R = bcast_A ? plan.I : plan.J;
        for (i64 q = 0; q < P; ++q) req += pX * of(X, {1, P}, -1, q);
        for (i64 s = 0; s + 1 < P; ++s) {
          const i64 out_piece = ((rank - s) % P + P) % P, in_piece = ((rank - s - 1) % P + P) % P;
          req += chunks(static_cast<u64>(R.extent() * group_share(plan.K, P, out_piece))) +
                 chunks(static_cast<u64>(R.extent() * group_share(plan.K, P, in_piece)));
        }
        break;
      }
      case Algorithm::Accumulation: {
        req = n.A * of(A, parts.A, -1, rank) + n.B * of(B, parts.B, -1, rank);
        const u64 c_visit = of(C, parts.C, -1, -1), whole = static_cast<u64>(plan.I.extent() * plan.J.extent());
        if (m.comm == Communication::Inside) {  // C lives on rank 0
          if (rank == 0) req += (n.C_read + n.C) * c_visit;
          break;
        }
        // Outside: a partial C on every rank, then one all-reduce through the files into rank 0's.
        req += ((rank == 0 ? n.C_read : n.C - 1) + n.C) * c_visit + chunks(whole) * (rank == 0 ? 2 : 1);
        break;
      }
    }
    out.push_back(req);
  }
  return out;
}

std::vector<std::uint64_t> gao_stage_requests(const Plan& plan, const StageAccess& s, bool direct_operands) {
  const GridParts parts = grid_parts(plan);
  // Each array as its file holds it (runs per block) and as its tiled copy (one per block); an
  // array without a perm is not read from its file (taken, or not asked for).
  const ArrayShape A_file = array_shape(plan.I, plan.K, !s.perm_A.empty(), s.perm_A),
                   A_tiles = array_shape(plan.I, plan.K, false, {});
  const ArrayShape B_file = array_shape(plan.J, plan.K, !s.perm_B.empty(), s.perm_B),
                   B_tiles = array_shape(plan.J, plan.K, false, {});
  const ArrayShape C_file = array_shape(plan.I, plan.J, !s.perm_C.empty(), s.perm_C),
                   C_tiles = array_shape(plan.I, plan.J, false, {});
  const bool whole_C_on_first = gao(plan).algorithm == Algorithm::Accumulation;  // C lives on rank 0
  std::vector<u64> out;
  for (i64 rank = 0; rank < plan.processors; ++rank) {
    const RankParts rp = rank_parts(plan, rank);
    auto copy = [&](const ArrayShape& file, const ArrayShape& tiles, ArrayParts ways, i64 pr, i64 pc) {
      return visit(file, ways.rows, pr, ways.cols, pc) + visit(tiles, ways.rows, pr, ways.cols, pc);
    };
    u64 req = 0;
    if (!direct_operands && !s.take_A)  // stage 1 lays A and B out: read from the files, one write per block
      req += copy(A_file, A_tiles, parts.A, rp.A_rows, rp.A_cols);
    if (!direct_operands && !s.take_B) req += copy(B_file, B_tiles, parts.B, rp.B_rows, rp.B_cols);
    if (!whole_C_on_first || rank == 0) {
      const u64 C_runs = visit(C_file, parts.C.rows, rp.C_rows, parts.C.cols, rp.C_cols);
      const u64 C_blocks = visit(C_tiles, parts.C.rows, rp.C_rows, parts.C.cols, rp.C_cols);
      if (s.direct_C) {
        if (s.accumulate) req += 2 * C_runs;  // start values read and written in place
      } else {
        if (s.accumulate && !s.take_C) req += C_runs + C_blocks;  // stage 1: start values laid out
        if (s.store_result) req += C_blocks + C_runs;             // stage 3: each block read, its runs written
      }
    }
    out.push_back(req);
  }
  return out;
}

}  // namespace tcec::costmodel

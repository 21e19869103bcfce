// costmodel/program/layout.cpp — layouts of declared distributions and Gao plans, and exchanges.
#include "costmodel/program/layout.h"
#include "costmodel/method_model.h"
#include "costmodel/methods/gao/gao.h"

#include <algorithm>
#include <tuple>

#include "costmodel/partition.h"

namespace tcec::costmodel {

namespace {

using u64 = std::uint64_t;

/// Balanced blocks of n over g coordinates (ir::Distribution).
DimSplit block_split(std::int64_t n, std::int64_t g) {
  DimSplit out{g, {}};
  for (std::int64_t p = 0; p < g; ++p) out.runs.emplace_back(piece(n, g, p), p);
  return out;
}

/// Every finest part of the index split into g balanced slices, in order: the index alone as a
/// group of the runtime's tiling rule (runtime/spec/tiling.h), distributed over g parts.
DimSplit tile_split(const IndexTiles& x, std::int64_t g) {
  DimSplit out{g, {}};
  const tcert::GroupLayout one({x.tiling()}, 0, g);
  for (std::int64_t j = 0; j < one.finest_tiles(); ++j)
    for (std::int64_t p = 0; p < g; ++p)
      if (const std::int64_t n = one.rows(j, p); n > 0) out.runs.emplace_back(n, p);
  return out;
}

DimSplit whole(std::int64_t n) { return DimSplit{1, {{n, 0}}}; }

/// hist[a · to.parts + b] = values with coordinate a under `from` and b under `to`.
std::vector<u64> histogram(const DimSplit& from, const DimSplit& to) {
  std::vector<u64> hist(static_cast<std::size_t>(from.parts * to.parts), 0);
  std::size_t i = 0, j = 0;
  std::int64_t left_i = from.runs.empty() ? 0 : from.runs[0].first;
  std::int64_t left_j = to.runs.empty() ? 0 : to.runs[0].first;
  while (i < from.runs.size() && j < to.runs.size()) {
    const std::int64_t n = std::min(left_i, left_j);
    hist[static_cast<std::size_t>(from.runs[i].second * to.parts + to.runs[j].second)] += static_cast<u64>(n);
    left_i -= n;
    left_j -= n;
    if (left_i == 0 && ++i < from.runs.size()) left_i = from.runs[i].first;
    if (left_j == 0 && ++j < to.runs.size()) left_j = to.runs[j].first;
  }
  return hist;
}

}  // namespace

TensorLayout declared_layout(const ir::Program& program, const ir::Tensor& t, std::int64_t processors) {
  const ir::Distribution& d = *t.distribution;
  const std::vector<std::int64_t> grid = d.grid_for(processors);
  TensorLayout out;
  std::vector<std::int64_t> grid_dim(t.dims.size(), -1);  // grid dimension splitting tensor dimension e
  for (std::size_t g = 0; g < d.dims.size(); ++g)
    grid_dim[static_cast<std::size_t>(d.dims[g])] = static_cast<std::int64_t>(g);
  for (std::size_t e = 0; e < t.dims.size(); ++e) {
    const auto n = static_cast<std::int64_t>(program.ranges[t.dims[e]].extent);
    out.dims.push_back(grid_dim[e] < 0 ? whole(n) : block_split(n, grid[static_cast<std::size_t>(grid_dim[e])]));
  }
  // Row-major over the tensor's split dimensions in tensor order; the rank is row-major over
  // the grid dimensions in declaration order.
  std::int64_t tuples = 1;
  for (const DimSplit& s : out.dims) tuples *= s.parts;
  out.owner.resize(static_cast<std::size_t>(tuples));
  for (std::int64_t tuple = 0; tuple < tuples; ++tuple) {
    std::vector<std::int64_t> coord(t.dims.size());
    for (std::size_t e = t.dims.size(), rest = static_cast<std::size_t>(tuple); e-- > 0;) {
      coord[e] = static_cast<std::int64_t>(rest % static_cast<std::size_t>(out.dims[e].parts));
      rest /= static_cast<std::size_t>(out.dims[e].parts);
    }
    std::int64_t rank = 0;
    for (std::size_t g = 0; g < d.dims.size(); ++g) rank = rank * grid[g] + coord[static_cast<std::size_t>(d.dims[g])];
    out.owner[static_cast<std::size_t>(tuple)] = rank;
  }
  return out;
}

TensorLayout plan_layout(const Plan& plan, GemmArray array, const std::vector<std::string>& names) {
  return model_of(plan).layout(plan, array, names);
}

TensorLayout grid_layout(const Plan& plan, GemmArray array, const std::vector<std::string>& names) {
  const GridParts parts = grid_parts(plan);
  const ArrayParts ap = array == GemmArray::A ? parts.A : array == GemmArray::B ? parts.B : parts.C;
  const GroupTiling& rows = array == GemmArray::B ? plan.J : plan.I;
  const GroupTiling& cols = array == GemmArray::C ? plan.J : plan.K;
  TensorLayout out;
  int row_dim = -1, col_dim = -1;  // tensor dimensions carrying the row / column split
  for (std::size_t e = 0; e < names.size(); ++e) {
    std::int64_t extent = 1;
    DimSplit split;
    bool found = false;
    for (auto [group, g, dim] : {std::tuple{&rows, ap.rows, &row_dim}, std::tuple{&cols, ap.cols, &col_dim}}) {
      for (std::size_t i = 0; i < group->indices.size(); ++i) {
        if (group->indices[i].name != names[e]) continue;
        found = true;
        extent = group->indices[i].extent;
        if (g > 1 && static_cast<int>(i) == group->dist) {
          split = tile_split(group->indices[i], g);
          *dim = static_cast<int>(e);
        }
      }
    }
    TCEC_ASSERT(found, "a tensor index is in neither group of its array");
    out.dims.push_back(split.runs.empty() ? whole(extent) : split);
  }
  std::int64_t tuples = 1;
  for (const DimSplit& s : out.dims) tuples *= s.parts;
  out.owner.assign(static_cast<std::size_t>(tuples), -1);
  for (std::int64_t rank = 0; rank < plan.processors; ++rank) {
    const RankParts rp = rank_parts(plan, rank);
    const std::int64_t row = array == GemmArray::A ? rp.A_rows : array == GemmArray::B ? rp.B_rows : rp.C_rows;
    const std::int64_t col = array == GemmArray::A ? rp.A_cols : array == GemmArray::B ? rp.B_cols : rp.C_cols;
    std::int64_t tuple = 0;
    for (std::size_t e = 0; e < out.dims.size(); ++e) {
      const std::int64_t c = static_cast<int>(e) == row_dim ? row : static_cast<int>(e) == col_dim ? col : 0;
      tuple = tuple * out.dims[e].parts + std::max<std::int64_t>(c, 0);
    }
    if (out.owner[static_cast<std::size_t>(tuple)] < 0) out.owner[static_cast<std::size_t>(tuple)] = rank;
  }
  TCEC_ASSERT(std::find(out.owner.begin(), out.owner.end(), -1) == out.owner.end(),
              "every grid part of a Gao plan's array is held by some rank");
  return out;
}

Exchange exchange(const TensorLayout& from, const TensorLayout& to, std::int64_t processors) {
  Machine one_node;
  one_node.processors = processors;
  return exchange(from, to, one_node);
}

Exchange exchange(const TensorLayout& from, const TensorLayout& to, const Machine& machine) {
  const auto P = static_cast<std::size_t>(machine.processors);
  Exchange out{std::vector<u64>(P), std::vector<u64>(P), std::vector<u64>(P),
               std::vector<u64>(P), std::vector<u64>(P), std::vector<u64>(P)};
  const std::size_t n = from.dims.size();
  std::vector<std::vector<u64>> hist;
  for (std::size_t d = 0; d < n; ++d) hist.push_back(histogram(from.dims[d], to.dims[d]));
  // Odometer over (a_d, b_d) for every dimension; weight = Π hist_d[a_d][b_d].
  std::vector<std::int64_t> a(n, 0), b(n, 0);
  while (true) {
    u64 weight = 1;
    std::int64_t src = 0, dst = 0;
    for (std::size_t d = 0; d < n && weight > 0; ++d) {
      weight *= hist[d][static_cast<std::size_t>(a[d] * to.dims[d].parts + b[d])];
      src = src * from.dims[d].parts + a[d];
      dst = dst * to.dims[d].parts + b[d];
    }
    if (weight > 0) {
      const auto s = static_cast<std::size_t>(from.owner[static_cast<std::size_t>(src)]);
      const auto r = static_cast<std::size_t>(to.owner[static_cast<std::size_t>(dst)]);
      out.read[s] += weight;
      out.write[r] += weight;
      if (s != r) {
        out.sent[s] += weight;
        out.recv[r] += weight;
      }
      if (machine.apart(static_cast<std::int64_t>(s), static_cast<std::int64_t>(r))) {
        out.sent_apart[s] += weight;
        out.recv_apart[r] += weight;
      }
    }
    for (std::size_t d = n;;) {
      if (d == 0) return out;
      --d;
      if (++b[d] < to.dims[d].parts) break;
      b[d] = 0;
      if (++a[d] < from.dims[d].parts) break;
      a[d] = 0;
    }
  }
}

std::string DeclaredLayouts::which() const {
  std::string out;
  for (auto [name, layout] : {std::pair{"A", &A}, std::pair{"B", &B}, std::pair{"C", &C}})
    if (*layout) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

DeclaredLayouts declared_layouts(const ir::Program& program, const ir::Statement& s, std::int64_t processors) {
  DeclaredLayouts out;
  auto fill = [&](const ir::TensorRef& ref, std::optional<TensorLayout>& layout, std::vector<std::string>& names) {
    for (int x : ref.indices) names.push_back(program.indices[x].name);
    const ir::Tensor& t = program.tensors[ref.tensor];
    if (t.distribution) layout = declared_layout(program, t, processors);
  };
  fill(s.operands.at(0), out.A, out.names_A);
  fill(s.operands.at(1), out.B, out.names_B);
  fill(s.result, out.C, out.names_C);
  return out;
}

}  // namespace tcec::costmodel

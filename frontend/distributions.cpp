// frontend/distributions.cpp — declared distributions against the machine (frontend.h).
#include <fmt/format.h>

#include "frontend/diagnostics.h"
#include "frontend/frontend.h"

namespace tcec::frontend {

bool check_distributions(const ir::Program& program, DiagnosticList& diagnostics) {
  if (!program.machine) return true;
  Reporter r(diagnostics, program.file);
  const int errors_before = r.error_count();
  const std::int64_t P = program.machine->processors;
  for (const ir::Tensor& t : program.tensors) {
    if (!t.distribution) continue;
    const ir::Distribution& d = *t.distribution;
    const std::vector<std::int64_t> grid = d.grid_for(P);
    std::int64_t ranks = 1;
    for (std::int64_t g : grid) ranks *= g;
    if (ranks != P) {
      r.report(DiagId::err_distribute_grid_product, d.loc, t.name, ranks, P);
      continue;
    }
    for (std::size_t g = 0; g < grid.size(); ++g) {
      const std::uint64_t extent = program.ranges[t.dims[d.dims[g]]].extent;
      if (extent >= static_cast<std::uint64_t>(grid[g])) continue;
      r.report(DiagId::err_distribute_extent, d.loc, d.dims[g] + 1, t.name, extent, grid[g]);
    }
  }
  return r.error_count() == errors_before;
}

}  // namespace tcec::frontend

// runtime/panel_read.h — (private) reading a panel straight from a tensor's file: some rows of an
// operand's GEMM view × a range of its flat K columns, row-major, in one pass. Shared by the
// executors that read their operands directly (tbs.cpp, sfc.cpp, resident.cpp), whose models
// count the pass's runs the same way (costmodel/methods/pass_runs.h). Units: elements.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "runtime/run.h"
#include "runtime/split_map.h"

namespace tcert {

/// A range of flat row values: (first, count).
using RowRange = std::pair<std::int64_t, std::int64_t>;

/// Copies the rows `rows` (in order) × the flat columns [k0, k0 + kc) of the tensor `src`, whose
/// linear index is map.row(r) + map.col(c), into `out` (row-major, row stride kc), and counts
/// the pass: 8 bytes of disk read per element, one RunCounter for the pass (runs of adjacent
/// elements), its disk busy time, and the mapped pages it touches (Run::touched_span). Returns
/// the elements copied.
std::int64_t read_panel_rows(Run& run, SplitMap& map, const ElementSource& src, std::span<const RowRange> rows,
                             std::int64_t k0, std::int64_t kc, double* out);

}  // namespace tcert

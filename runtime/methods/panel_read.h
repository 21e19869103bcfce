// runtime/methods/panel_read.h — (private) reading a panel straight from a tensor's file: some rows of an
// operand's GEMM view × a range of its flat K columns, in one pass. Shared by the executors that
// read their operands directly (tbs.cpp, sfc.cpp, resident.cpp), whose models count the pass's
// runs the same way (costmodel/methods/pass_runs.h PanelRuns). Units: elements.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "runtime/index/split_map.h"
#include "runtime/program/run.h"

namespace tcert {

/// A range of flat row values: (first, count).
using RowRange = std::pair<std::int64_t, std::int64_t>;

/// Rows of a block of a column-by-column pass (read_panel_rows()): the block's columns then write
/// into this many lines of the panel (16 KiB), which stay in the first-level cache between columns.
inline constexpr std::int64_t kPanelRowBlock = 256;

/// Copies the rows `rows` (in order) × the flat columns [k0, k0 + kc) of the tensor `src`, whose
/// linear index is map.row(r) + map.col(c), into `out` (row-major, row stride kc), and counts
/// the pass: 8 bytes of disk read per element, one RunCounter for the pass (runs of adjacent
/// elements), its disk busy time, and the mapped pages it touches (MappedInputs::touched_span; a
/// streamed source reads the pass's runs together at its end, ElementSource::flush()). Returns the
/// elements copied.
///
/// The pass goes row by row (each row's columns in order), unless the tensor's innermost stored
/// dimension is a row index (SplitMap::rows_innermost()): then a row's columns lie far apart and
/// its neighbouring rows next to each other, so it goes block by block (each range of `rows` cut
/// into blocks of kPanelRowBlock rows, in order), and in a block column by column (each column's
/// rows in order), reading runs along the rows where row by row every element is a run.
std::int64_t read_panel_rows(Run& run, SplitMap& map, const ElementSource& src, std::span<const RowRange> rows,
                             std::int64_t k0, std::int64_t kc, double* out);

}  // namespace tcert

// runtime/methods/panel_read.cpp — read_panel_rows() (panel_read.h).
#include "runtime/methods/panel_read.h"

#include <algorithm>
#include <vector>

#include "runtime/base/counters.h"
#include "runtime/spec/units.h"
#include "runtime/storage/mapped_walk.h"

namespace tcert {

namespace {

constexpr std::size_t kRowsAhead = 8;  // rows between a prefetch and the copy that uses it

/// The pass row by row: each row's runs of adjacent columns (consecutive values of the columns'
/// parts `cols`) in order, with a prefetch of the row kRowsAhead rows on.
void read_by_rows(Run& run, SplitMap& map, const ElementSource& src, std::span<const RowRange> rows,
                  const std::vector<std::uint64_t>& cols, RunCounter& requests, MappedWalk& walk, double*& out) {
  const auto runs = consecutive_runs(cols);
  std::vector<std::uint64_t> parts;       // the rows' parts of the linear index
  const double* const data = src.data();  // mapped: fetch rows ahead (null: computed elements)
  for (const auto& [first, count] : rows) {
    map.rows(first, count, parts);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::uint64_t row = parts[i];
      // Rows of a panel are far apart in the file, and each gives a short run: without a
      // prefetch every row waits for its line (a chunk of 2 columns of v_pppp: 18 ns per row).
      if (data != nullptr && i + kRowsAhead < parts.size()) __builtin_prefetch(data + parts[i + kRowsAhead] + cols[0]);
      for (const auto& [c, n] : runs) {
        requests.span(row + cols[c], n);
        if (data != nullptr) run.mapped().touched_span(walk, row + cols[c], n);
        src.copy(row + cols[c], n, out);
        out += n;
      }
    }
  }
}

/// The pass block by block and, in a block, column by column (panel_read.h): element (row i of
/// the panel, column c) goes to out[i·kc + c].
void read_by_columns(Run& run, SplitMap& map, const ElementSource& src, std::span<const RowRange> rows,
                     const std::vector<std::uint64_t>& cols, RunCounter& requests, MappedWalk& walk, double*& out) {
  const auto kc = static_cast<std::int64_t>(cols.size());
  std::vector<std::uint64_t> parts;
  const bool mapped = src.data() != nullptr;  // else no mapped page is touched
  for (const auto& [first, count] : rows)
    for (std::int64_t b0 = first; b0 < first + count; b0 += kPanelRowBlock) {
      map.rows(b0, std::min(kPanelRowBlock, first + count - b0), parts);
      const auto runs = consecutive_runs(parts);  // along the rows: parts[i + 1] = parts[i] + 1
      for (std::int64_t c = 0; c < kc; ++c)
        for (const auto& [i, n] : runs) {
          const std::uint64_t at = cols[static_cast<std::size_t>(c)] + parts[i];
          requests.span(at, n);
          if (mapped) run.mapped().touched_span(walk, at, n);
          src.copy(at, n, out + static_cast<std::int64_t>(i) * kc + c, static_cast<std::size_t>(kc));
        }
      out += static_cast<std::int64_t>(parts.size()) * kc;
    }
}

}  // namespace

std::int64_t read_panel_rows(Run& run, SplitMap& map, const ElementSource& src, std::span<const RowRange> rows,
                             std::int64_t k0, std::int64_t kc, double* out) {
  std::vector<std::uint64_t> cols;
  map.cols(k0, kc, cols);
  const Stopwatch clock;  // disk busy time, as DiskFile counts its transfers
  RunCounter requests;    // the panel, read in one pass
  MappedWalk walk(kFaultAroundBytes);
  double* const begin = out;
  if (map.rows_innermost())
    read_by_columns(run, map, src, rows, cols, requests, walk, out);
  else
    read_by_rows(run, map, src, rows, cols, requests, walk, out);
  src.flush();  // streamed: the pass's runs, read sorted by offset in few requests
  const auto elements = static_cast<std::int64_t>(out - begin);
  counters().add_disk_read(bytes_of(static_cast<std::uint64_t>(elements)));
  requests.add();
  counters().add_disk_time(clock.seconds());
  return elements;
}

}  // namespace tcert

// runtime/panel_read.cpp — read_panel_rows() (panel_read.h).
#include "runtime/panel_read.h"

#include <vector>

#include "runtime/counters.h"
#include "runtime/mapped_walk.h"

namespace tcert {

std::int64_t read_panel_rows(Run& run, SplitMap& map, const ElementSource& src, std::span<const RowRange> rows,
                             std::int64_t k0, std::int64_t kc, double* out) {
  std::vector<std::uint64_t> cols(static_cast<std::size_t>(kc));
  for (std::int64_t c = 0; c < kc; ++c) cols[static_cast<std::size_t>(c)] = map.col(k0 + c);
  const Stopwatch clock;  // disk busy time, as DiskFile counts its transfers
  RunCounter requests;    // the panel, read in one pass
  MappedWalk walk(kFaultAroundBytes);
  double* const begin = out;
  const auto runs = consecutive_runs(cols);
  std::vector<std::uint64_t> parts;  // the rows' parts of the linear index
  for (const auto& [first, count] : rows) {
    map.rows(first, count, parts);
    for (const std::uint64_t row : parts) {
      for (const auto& [c, n] : runs) {
        requests.span(row + cols[c], n);
        run.touched_span(walk, row + cols[c], n);
        src.copy(row + cols[c], n, out);
        out += n;
      }
    }
  }
  const auto elements = static_cast<std::int64_t>(out - begin);
  counters().add_disk_read(8 * static_cast<std::uint64_t>(elements));
  requests.add();
  counters().add_disk_time(clock.seconds());
  return elements;
}

}  // namespace tcert

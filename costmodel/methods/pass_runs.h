// costmodel/methods/pass_runs.h — (private) the disk requests of a pass over a block of a
// tensor's file: runs of adjacent elements, as the runtime's RunCounter counts them, for the
// methods that read tiles straight from tensor files (tbs, sfc), and an estimate of the page
// faults the pass takes. Counted in O(indices) per call from the positions' extents and strides,
// never element by element (a flat group can hold billions of elements). Units: elements.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "costmodel/plan.h"

namespace tcec::costmodel {

/// Elements of a fault-around window: Linux maps 64 KiB around a read fault on a file mapping
/// from the page cache (its fault_around_bytes; runtime/storage/mapped_walk.h kFaultAroundBytes).
inline constexpr auto kFaultAroundElements = static_cast<std::int64_t>(tcert::elems_of(std::uint64_t{64} << 10));
/// The least growth of mapped pages (bytes) after which the runtime drops them (runtime/program/run.h
/// kMappedDropBytes, 8 MiB).
inline constexpr double kMappedDropBytes = 8.0 * (1 << 20);

/// The fault-around windows a run of `length` elements newly enters, on average over alignments,
/// when the pass's rows are `step` elements apart: min(1 + (length − 1)/W, step/W), W =
/// kFaultAroundElements (rows far apart: the run's windows; rows side by side: the step's share).
double run_faults(double length, double step);

/// The page faults of reads that take `faults` (PassRuns::faults(), summed) over arrays of
/// `elements` elements in all: when the arrays fit in kMappedDropBytes the runtime drops nothing,
/// so each window faults once at most and the result is min(faults, their windows); else faults.
double capped_faults(double faults, double elements);

/// The extents of two groups' indices, a's first (e.g. [I, K] for A).
std::vector<std::int64_t> group_extents(const GroupTiling& a, const GroupTiling& b);

/// Runs of a pass over rows (ranges of flat row values, in the order given) × columns
/// [c0, c0 + w) of a tensor whose GEMM positions (extents[p], p = 0 … : e.g. [I, K] for A) are
/// stored in dimensions perm[p] (identity when perm is empty); rows are the positions
/// [rows_first, rows_first + rows_count), columns the next cols_count. A row's offset plus a
/// column's offset is the element's offset in the file; runs of adjacent offsets are counted as
/// runtime RunCounter counts them.
class PassRuns {
 public:
  PassRuns(const std::vector<std::int64_t>& extents, const std::vector<int>& perm, std::size_t rows_first,
           std::size_t rows_count, std::size_t cols_first, std::size_t cols_count);
  /// Starts a pass over columns [c0, c0 + w). Precondition: w >= 1.
  void start(std::int64_t c0, std::int64_t w);
  /// Goes on with the same pass (same transfer: its runs keep counting, and the next element may
  /// join the last one) over columns [c0, c0 + w). Precondition: w >= 1.
  void columns(std::int64_t c0, std::int64_t w);
  /// Goes on with the same pass over the flat elements [from, to) of a block of rows r0, r0 + 1,
  /// … × columns [c0, c0 + w), row-major (element e at row r0 + e / w, column c0 + e % w): a
  /// partial first row, whole rows, a partial last row. Nothing when from >= to. A new
  /// transfer calls begin() first. Precondition: w >= 1.
  void range(std::int64_t r0, std::int64_t c0, std::int64_t w, std::int64_t from, std::int64_t to);
  /// range() as the runtime goes where the rows hold the innermost stored dimension
  /// (runtime/index/split_map.h for_each_run_of_view_by_columns()): the partial first and last rows
  /// row by row, the whole rows between them column by column, in the same pass.
  void range_by_columns(std::int64_t r0, std::int64_t c0, std::int64_t w, std::int64_t from, std::int64_t to);
  /// Goes on with the same pass over rows [r0, r0 + h) × columns [c0, c0 + w) column by column
  /// (each column's rows in order). Precondition: h >= 1, w >= 1.
  void block_by_columns(std::int64_t r0, std::int64_t h, std::int64_t c0, std::int64_t w);
  /// Starts an empty pass (no columns yet; the first element starts a run).
  void begin();
  /// The next row of the pass.
  void row(std::int64_t r);
  /// The next rows of the pass: r0, r0 + 1, …, r0 + h − 1.
  void rows(std::int64_t r0, std::int64_t h);
  /// Runs of the pass so far.
  std::uint64_t runs() const { return runs_; }
  /// Page faults of the pass so far, an estimate (Machine::page_fault_s): the fault-around windows
  /// (kFaultAroundElements = W) its rows enter, with nothing of the file mapped when the pass
  /// starts (the runtime drops mapped pages every few MiB they grow: runtime/program/run.h
  /// touched_mapped()). A row's runs (its columns split where they do not join, of equal length
  /// on average) enter the windows of its span, from its first column's element to its last's,
  /// but at most 1 + (length − 1)/W each, less the window it shares with the row before; inside
  /// rows() each row after the first enters its runs × run_faults(length, step), step the least
  /// stride of the row positions (carries are not counted), but at most its span's windows.
  std::uint64_t faults() const { return static_cast<std::uint64_t>(faults_ + 0.5); }
  /// Runs of a whole pass over rows [r0, r0 + h) × columns [c0, c0 + w).
  std::uint64_t block(std::int64_t r0, std::int64_t h, std::int64_t c0, std::int64_t w);
  /// True when the row positions hold the tensor's innermost stored dimension (stride 1, extent
  /// above 1): runtime SplitMap::rows_innermost().
  bool rows_innermost() const { return rows_.least_stride() == 1; }

  /// Flat values of some positions of a tensor (row-major over them, the last fastest) and
  /// their offsets in its file.
  class Positions {
   public:
    Positions(std::vector<std::int64_t> extents, std::vector<std::int64_t> strides);
    /// The offset of flat value v (elements, signed).
    std::int64_t offset(std::int64_t v) const;
    /// How many v in [lo, hi) step to v + 1 by `step` elements.
    std::int64_t steps_of(std::int64_t lo, std::int64_t hi, std::int64_t step) const;
    /// The least stride (elements) of a position whose extent exceeds 1; 0 when there is none.
    std::int64_t least_stride() const;

   private:
    std::vector<std::int64_t> extents_, strides_;
    std::vector<std::int64_t> level_step_, level_period_;  // per carry level d: the step, Π of the last d extents
  };

 private:
  Positions rows_, cols_;
  std::uint64_t inner_ = 0, runs_ = 0;
  std::int64_t begin_ = 0, end_ = 0, last_ = 0;  // last_: the file offset of the last element
  bool first_ = true;
  double faults_ = 0;
  std::int64_t width_ = 1;         // columns of a row
  std::int64_t columns_c0_ = -1;   // the first column of the last columns() (-1: none since the positions swapped)
  std::int64_t last_window_ = -1;  // the window of the last row's last element

  /// A row's runs, and their mean length (elements).
  double row_runs() const { return static_cast<double>(inner_ + 1); }
  double run_length() const { return static_cast<double>(width_) / row_runs(); }

  /// The columns' span in a row: the least and the greatest of begin_ and end_.
  std::int64_t span_low() const { return std::min(begin_, end_); }
  std::int64_t span_high() const { return std::max(begin_, end_); }
};

/// Rows of a block of a column-by-column panel pass (runtime/methods/panel_read.h kPanelRowBlock).
inline constexpr std::int64_t kPanelRowBlock = 256;

/// A range of flat row values of a panel: (first, count).
using PanelRows = std::pair<std::int64_t, std::int64_t>;

/// The runs and page faults of the runtime's panel reads (runtime/methods/panel_read.h read_panel_rows()):
/// ranges of rows × columns [k0, k0 + kc) of a tensor whose GEMM positions (extents[p]: the rows'
/// rows_count first, then the columns') are stored in dimensions perm[p] (identity when empty), in
/// one pass, row by row, or, when the rows hold the innermost stored dimension, in blocks of
/// kPanelRowBlock rows of each range, each block column by column. Units: elements.
class PanelRuns {
 public:
  PanelRuns(const std::vector<std::int64_t>& extents, const std::vector<int>& perm, std::size_t rows_count,
            std::size_t cols_count);
  /// True when its passes go column by column (PassRuns::rows_innermost()).
  bool by_columns() const { return by_columns_; }
  /// One pass over `rows` (in order) × columns [k0, k0 + kc); sets runs() and faults().
  /// Precondition: kc >= 1.
  void pass(const std::vector<PanelRows>& rows, std::int64_t k0, std::int64_t kc);
  /// pass() over the one range [first, first + count).
  void pass(std::int64_t first, std::int64_t count, std::int64_t k0, std::int64_t kc) {
    pass(std::vector<PanelRows>{{first, count}}, k0, kc);
  }
  /// The last pass's runs (RunCounter) and page faults (PassRuns::faults(), an estimate).
  std::uint64_t runs() const { return runs_.runs(); }
  std::uint64_t faults() const { return runs_.faults(); }

 private:
  PassRuns runs_;
  bool by_columns_;
};

}  // namespace tcec::costmodel

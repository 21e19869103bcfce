// runtime/spec/resident_spec.h — the part of a GemmSpec that ResidentGemm adds: resident accumulation,
// write-avoiding across statements (Carson et al., seed 004: keep the C block resident while A
// and B stream, so the result is written once). Consecutive statements adding into one tensor X
// are each a step of their own, and each rank keeps its block of X in memory from the first step
// to the last: X is read (when it starts from its current values) and written once, however many
// statements add to it. Its checks, buffers and trace names (resident_spec.cpp, no MPI). Units:
// elements unless a name says bytes.
//
// THE SCHEDULE (costmodel/program/resident.h plans it; the runtime runs it as written):
//   X's stored dimension `split` (extent e) is cut into `ranks` balanced ranges (the first
//   e mod ranks one longer); rank r owns the elements of X whose index along `split` lies in
//   range r = [s0, s0 + len): its block, X restricted to the range, row-major in X's order.
//   In a statement's GEMM C(I,J) = X, `split` is the position p of [I, J] with perm_C[p] ==
//   split; the operand whose rows hold p (A when p is in I, else B) is restricted to the range:
//   its rows are, for each value o of the group's positions before p (in order), the full flat
//   rows [(o·e + s0)·inner, (o·e + s0 + len)·inner) (inner: the product of the group's extents
//   after p); the other operand's rows are all of its group.
//   A step (one statement) on a rank with len > 0:
//     1. `first`: the block is allocated and set to 0, or, with GemmSpec::accumulate, to X's
//        current values: per value o of X's dimensions before `split` (in order) one span of
//        len·inner_X elements (inner_X: the product of X's extents after split), read in one pass
//        (8 bytes of disk read per element, one RunCounter);
//     2. the product T (the restricted rows of I × those of J, row-major) := 0; then for K's flat
//        columns in chunks of `chunk` (the last shorter), in order: the A panel (A's rows × the
//        chunk), then the B panel, each read straight from its tensor in one pass, rows in order
//        then the chunk's columns (8 bytes of disk read per element, one RunCounter per panel),
//        and T += alpha · A panel · B panelᵀ (cblas_dgemm);
//     3. block += T with its dimensions in X's order (kernel.h permute, beta 1);
//     4. `last`: the block is written into X's new version in the store, spans as in 1 (8 bytes
//        of disk write per element, one RunCounter), and freed.
//   Nothing goes over the network and no scratch file is written. Buffers, sized for the fullest
//   rank (range 0): the block, T (as many elements), the A panel and the B panel.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace tcert {

struct GemmSpec;
struct MemoryPart;

/// A resident accumulation step's part of the spec (GemmSpec::method), run by ResidentGemm
/// (resident.h).
struct ResidentSpec {
  int split = 0;           ///< X's stored dimension whose ranges the ranks own
  std::int64_t ranks = 1;  ///< the ranks it is split over (the run's P)
  std::int64_t chunk = 1;  ///< K's flat columns per panel
  bool first = true;       ///< the group's first step: the block starts here
  bool last = true;        ///< the group's last step: the block is written and freed here
};

/// The block's elements on rank `rank` (X's elements over e times its range's length) and the
/// first index and length of its range along `split`. Precondition: a valid part.
struct ResidentRange {
  std::int64_t start = 0, length = 0, elements = 0;
};
ResidentRange resident_range(const ResidentSpec& part, const GemmSpec& spec, std::int64_t rank);

/// Where `split` lies in the spec's GEMM: in I (A's rows are restricted) or in J (B's), at
/// `position` of that group.
struct ResidentSplit {
  bool in_I = true;
  std::size_t position = 0;
};
ResidentSplit resident_split(const ResidentSpec& part, const GemmSpec& spec);

/// The rows of a group with these extents (group order) whose value at `position` lies in
/// [s0, s0 + len), as ranges (first full flat row, count) in order (THE SCHEDULE); none when
/// len is 0.
std::vector<std::pair<std::int64_t, std::int64_t>> restricted_rows(const std::vector<std::int64_t>& extents,
                                                                   std::size_t position, std::int64_t s0,
                                                                   std::int64_t len);

/// Throws Error unless ranks equals `ranks`, split names a dimension of C, chunk is from 1 to
/// |K| ("invalid resident schedule: …"), and the spec takes or keeps nothing ("a resident
/// accumulation reads its operands from their tensors; it takes and keeps nothing").
void check_method(const ResidentSpec& part, const GemmSpec& spec, std::int64_t ranks);
/// "resident block", "product" (as many elements), "A panel", "B panel" of the fullest rank
/// (range 0), 8 bytes per element, in the order a step holds them.
std::vector<MemoryPart> method_buffers(const ResidentSpec& part, const GemmSpec& spec);
/// ("inside", "resident") for the trace.
std::pair<const char*, const char*> trace_names(const ResidentSpec& part);

}  // namespace tcert

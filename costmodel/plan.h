// costmodel/plan.h — a plan: how one contraction C(I,J) += A(I,K)·B(J,K) runs
// (the part every method shares: processors, integer tile counts per index, memory split;
// and the method's own part), its exact per-rank volumes, memory and one-line text form.
// What depends on the method goes through its parts (method.h); the Gao methods' grid
// layout is in methods/gao/gao.h.
//
// Reader's map:
//   IndexTiles, GroupTiling    per-index tile counts of one macro-index (I, J or K)
//   Plan                       the value type; to_string() / parse_plan() round-trip
//   PlanVolumes, plan_volumes() exact per-rank bytes of the compute stage
//   redistribution_volumes()   stages 1 and 3
//   tile_bytes(), plan_memory() buffers per rank
//   check_valid(), fits_memory_exact()
//
// Tiling: what a group's tile counts mean is the runtime's two-level tiling rule,
// runtime/spec/tiling.h (tcert::piece(), tcert::GroupLayout), one rule for every method, so that
// simulator, volumes and generated code agree; IndexTiles::tiling() and partition.h
// group_layout() hand a group to it.
// Units: extents and counts in elements, volumes in bytes, times in seconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "costmodel/methods/plans.h"
#include "costmodel/model.h"
#include "runtime/spec/step_memory.h"
#include "runtime/spec/tiling.h"
#include "runtime/spec/volumes.h"

namespace tcec::costmodel {

/// Tile counts of one real index: t1 level-1 parts, each cut into t2 level-2 parts.
/// Valid when 1 <= t1 <= extent and 1 <= t2 <= floor(extent / t1) (no empty part).
struct IndexTiles {
  std::string name;
  std::int64_t extent = 1;
  std::int64_t t1 = 1, t2 = 1;
  /// The index as the runtime's tiling rule takes it (runtime/spec/tiling.h).
  tcert::IndexTiling tiling() const { return {extent, t1, t2}; }
  friend bool operator==(const IndexTiles&, const IndexTiles&) = default;
};

/// The tiling of one macro-index (I, J or K): its indices in group order and the
/// position of the distribution index (-1: none, the group is not split over the grid).
struct GroupTiling {
  std::vector<IndexTiles> indices;
  int dist = -1;
  std::int64_t extent() const;  ///< Π extents (elements)
  std::int64_t t1() const;      ///< Π t1 (the macro tile count Xt1)
  std::int64_t t2() const;      ///< Π t2 (Xt2)
  friend bool operator==(const GroupTiling&, const GroupTiling&) = default;
};

/// How the memory per rank is divided among the tiles of A, B and C.
enum class MemorySplit {
  /// Gao et al. §4: each array's tile gets M = memory/3. Pros: the paper's model. Cons: ~2.45× the bound.
  Thirds,
  /// The three tiles share the memory freely (their sum fits). Pros: near the lower bound of Kwasniewski et al. Cons: none known.
  Optimal,
};

/// One plan (Gao et al. §2–§3; ARCHITECTURE.md "Plans"). A value type: the part every method
/// shares (processors, the macro-index groups with their index tilings, the memory split) and
/// the method's own part (`method`, one alternative per method: methods/plans.h). A method
/// that does not tile the groups keeps tile counts 1 and no distribution index.
struct Plan {
  std::int64_t processors = 1;  ///< P
  GroupTiling I, J, K;
  MemorySplit split = MemorySplit::Optimal;
  /// C starts from its current values (the statement adds to a result an earlier statement
  /// wrote); otherwise from zero, and the compute stage reads no C tile on its first visit.
  /// Text: "C0=current" (absent: zero).
  bool accumulate = false;
  MethodPlan method;  ///< the method's part (method.h method_of())

  /// The macro tile counts It1 … Kt2 (as reals, for the model's formulas).
  TileCounts tile_counts() const;
  /// The one-line text form, written by the plan's method (method.h): it starts with the
  /// method's name, e.g. "inside-rotation order=CAB P=4 I=a:2x1,b:1x1 J=d:4x1 K=p:3x1
  /// dist=a,d,p split=optimal". Round-trips through parse_plan().
  std::string to_string() const;
  friend bool operator==(const Plan&, const Plan&) = default;
};

/// "thirds" or "optimal", as plan texts and reports write the split.
const char* split_name(MemorySplit split);

/// Parses Plan::to_string(). `I`, `J`, `K` give the group's index names and
/// extents in group order (the plan text must name the same indices in the same
/// order). The first word names the method (method.h find_method()), which parses the
/// rest. On error returns nullopt and sets *error to a message such as
/// "unknown order 'CBB'" or "index 'q' is not in I". Does not call check_valid().
std::optional<Plan> parse_plan(std::string_view text, const GroupTiling& I, const GroupTiling& J, const GroupTiling& K,
                               std::string* error);

/// Exact volumes of the compute stage per rank, in bytes (index = rank).
struct PlanVolumes {
  std::vector<std::uint64_t> disk_read_bytes, disk_write_bytes;
  std::vector<std::uint64_t> comm_sent_bytes, comm_recv_bytes;
  /// Of comm_sent_bytes and comm_recv_bytes per rank, the bytes sent to and received from ranks
  /// on other nodes (Machine::node_of()). Empty on a machine of one node.
  std::vector<std::uint64_t> internode_sent_bytes, internode_recv_bytes;
  /// max over ranks of read/B_dr + write/B_dw + f·recv/B_c, f = f_rep for
  /// replication, f_red for accumulation, 1 for rotation (seconds).
  double time_s = 0;
  /// Disk requests per rank (runtime counters.h Volumes::disk_requests: one per contiguous
  /// range a tiled file transfers, one per run of adjacent elements a block reaches through a
  /// tensor file's mapping); set by plan_requests(), empty before. Each costs
  /// Machine::disk_latency_s on top of time_s's bandwidth terms.
  std::vector<std::uint64_t> disk_requests;
  /// Estimated page faults per rank of reads through tensor files' mappings (MethodModel::page_faults());
  /// set by plan_requests() when Machine::page_fault_s > 0 and the method counts them, else empty.
  /// Each costs Machine::page_fault_s on top of the disk time.
  std::vector<std::uint64_t> page_faults;
  /// Of disk_read_bytes per rank, the bytes of C (the result's earlier values): those an
  /// overlapped Gao plan reads on its C thread (Machine::disk_mixed_bytes_per_s). Set by Gao's
  /// walk (simulate()); empty for the other methods.
  std::vector<std::uint64_t> disk_read_C_bytes;
  /// The slowest rank's tile kernel time, seconds (its flops at Machine::flops_per_s times its
  /// calls' MethodModel::kernel_efficiency()).
  double kernel_s = 0;
  /// The predicted wall time of the compute stage, seconds (plan_wall()): per rank, serially
  /// disk + network + kernel, or with overlap max(disk, network + kernel) plus the part of the
  /// shorter that Machine::overlap says does not hide, plus the fill and drain that cannot
  /// overlap; the slowest rank's. Plans are chosen by it.
  double wall_s = 0;
};

/// v's per-rank fields as the runtime's RankVolumes (runtime/spec/volumes.h, the same names):
/// what a generated program's GemmSpec::predicted holds for the compute stage.
tcert::RankVolumes rank_volumes(const PlanVolumes& v);
/// The fields of v that stages 1 and 3 carry (runtime/spec/volumes.h kStageVolumeFields: disk
/// read, disk write, the bytes that cross nodes on a machine of several nodes, disk requests):
/// GemmSpec::predicted_redistribution.
tcert::RankVolumes stage_volumes(const PlanVolumes& v);

/// How the compute stage reaches each array's elements on disk, which decides its requests:
/// through the rank's tiled copy (one request per block), or directly in the tensor's file
/// (direct tile I/O; one request per run of adjacent elements in a block). perm_X[p] is the
/// stored dimension of the tensor holding GEMM position p of [I,K] (A), [J,K] (B), [I,J] (C)
/// (ir MacroIndexGemm::perm_X); empty when the array is not read directly.
struct ArrayAccess {
  bool direct_A = false, direct_B = false, direct_C = false;
  std::vector<int> perm_A, perm_B, perm_C;
};

/// How stages 1 and 3 reach the tensors' files, which decides their disk requests: perm_X[p] is
/// the stored dimension of the tensor holding GEMM position p of [I,K] (A), [J,K] (B), [I,J] (C)
/// (ir MacroIndexGemm::perm_X); `accumulate`: C starts from its current values (laid out in
/// stage 1, or copied into C's new file when direct_C); `direct_C`: the compute stage works in
/// C's new file (runtime GemmSpec::direct_C: no stage 3); `store_result`: stage 3 writes C to
/// the store (false when C stays on the ranks); take_A, take_B, take_C: the array (C: its start
/// values) is taken rank to rank from where an earlier step kept it (the hand-off,
/// program/sequence.h), so its file reads and layout are not part of these requests.
struct StageAccess {
  std::vector<int> perm_A, perm_B, perm_C;
  bool accumulate = false, direct_C = false, store_result = true;
  bool take_A = false, take_B = false, take_C = false;
};

/// Sets r.disk_requests to the exact disk requests per rank of stages 1 and 3 of a step that
/// reaches its tensors through their files as `access` says (MethodModel::stage_requests(); the
/// arrays it takes are left out), plus `extra` per rank when not empty (the hand-off's moves
/// and flushes, program/handoff_requests.h), and, when Machine::disk_latency_s > 0, sets
/// r.time_s to the slowest rank's read/B_dr + write/B_dw + received/B_c + disk_latency_s per
/// request. r holds the step's redistribution volumes (redistribution_volumes(), flushes
/// included) for all ranks.
void redistribution_requests(const Plan& plan, const Machine& machine, const StageAccess& access, PlanVolumes& r,
                             const std::vector<std::uint64_t>& extra = {});

/// Sets v.disk_requests to the exact compute-stage requests of `plan` per rank (its method's
/// MethodModel::disk_requests()), and, when Machine::page_fault_s > 0, v.page_faults to its estimated
/// page faults (MethodModel::page_faults(); empty when the method counts none). When
/// Machine::disk_latency_s > 0 or faults are counted, sets v.time_s to the slowest rank's
/// bandwidth time plus disk_latency_s per request and page_fault_s per fault, and v.kernel_s and
/// v.wall_s (plan_wall()). v holds plan_volumes(plan, machine) for all ranks.
void plan_requests(const Plan& plan, const Machine& machine, const ArrayAccess& access, PlanVolumes& v);

/// Sets v.kernel_s and v.wall_s from v's per-rank volumes (and disk requests, when counted):
/// per rank r, disk_r = read/B_dr + write/B_dw + disk_latency·requests + page_fault·faults,
/// network_r = f·recv/B_c,
/// kernel_r = MethodModel::rank_flops(plan, r) / (Machine::flops_per_s · MethodModel::kernel_efficiency());
/// wall_r = disk_r + network_r + kernel_r serially, and with overlap (MethodModel::buffer_sets() = 2: an
/// I/O thread beside the thread that multiplies and sends) max(disk_r, busy_r) + (1 − ω)·
/// min(disk_r, busy_r) + fill, busy_r = network_r + kernel_r and ω = Machine::overlap (1: the
/// shorter hides entirely), where the fill is reading the first tiles of A and B and the drain
/// writing the last tile of C, which no multiply overlaps: (tile A + tile B)/B_dr + tile C/B_dw.
/// v holds every rank.
void plan_wall(const Plan& plan, const Machine& machine, PlanVolumes& v);

/// The tile kernel's rate on m×n×k products (a row-major C(m×n) += A(m×k)·B(n×k)ᵀ, elements)
/// relative to its rate on the 768³ tiles tcec-calibrate measures Machine::flops_per_s on:
/// e(m, n, k) / e(768, 768, 768), e = m/(m + 12) · n/(n + 32) · k/(k + 8), the shape model of
/// the runtime's local kernel (runtime/kernel/kernel_plan.cpp: OpenBLAS is slow for few columns and a
/// short K). Capped at 1.05; sizes below 1 count as 1.
double gemm_efficiency(double m, double n, double k);

/// The largest C tile, bytes, that stays in a core's cache from one kernel call to the next
/// (a core's L2 on current x86 servers: 1–2 MiB).
inline constexpr double kKernelCacheBytes = 1024.0 * 1024.0;

/// gemm_efficiency(m, n, k) on `machine`, bounded by streaming each call's data at
/// Machine::memory_bytes_per_s (a roofline, Williams et al. 2009): a call moves its A and B panels,
/// e·k·(m + n) bytes, plus its C tile in and out, 2·e·m·n, when e·m·n > kKernelCacheBytes (e the
/// element size); the efficiency is shape × compute time / max(compute time, stream time), with
/// compute time 2mnk / (flops_per_s · shape). Equal to gemm_efficiency(m, n, k) when
/// memory_bytes_per_s is 0. A short K over a large C tile (sfc's chunks of a few columns, say)
/// is bound by memory, not by the multiply.
double gemm_efficiency(double m, double n, double k, const Machine& machine);

/// One rank's terms of plan_wall(), seconds: disk, network, kernel, fill (and drain; 0
/// serially) and the wall time they give; overlap when the plan has second buffers. The disk
/// term is read/B_dr + write/B_dw + requests; of an overlapped plan with
/// PlanVolumes::disk_read_C_bytes on a machine with disk_mixed_bytes_per_s (B_mix), the longer of
/// its I/O threads, max((read − read_C)/B_dr, read_C/B_dr + write/B_dw), or (read + write)/B_mix
/// where that is longer, + requests (docs/model.md "Reads and writes at once").
struct WallParts {
  double disk = 0, network = 0, kernel = 0, fill = 0, wall = 0;
  bool overlap = false;
};
WallParts wall_parts(const Plan& plan, const Machine& machine, const PlanVolumes& v, std::size_t rank);
/// wall_parts() of the rank with the longest wall time (the first of equals).
WallParts slowest_wall_parts(const Plan& plan, const Machine& machine, const PlanVolumes& v);

/// One rank's predicted time (seconds) from its bytes: read/B_dr + write/B_dw +
/// f·received/B_c, with f the collective factor of the plan's method (method.h: f_rep for
/// replication, f_red for accumulation, 1 otherwise; docs/model.md "Collective factors"); of
/// the received bytes, `internode_recv_bytes` come from other nodes, at the machine's
/// inter-node rate (Machine::network_s()).
double rank_time_s(const Plan& plan, const Machine& machine, std::uint64_t read_bytes, std::uint64_t write_bytes,
                   std::uint64_t recv_bytes, std::uint64_t internode_recv_bytes = 0);
/// The same with the collective factor f given (1 for point-to-point moves).
double rank_time_s(double factor, const Machine& machine, std::uint64_t read_bytes, std::uint64_t write_bytes,
                   std::uint64_t recv_bytes, std::uint64_t internode_recv_bytes = 0);
/// Rank r's bytes of v.internode_recv_bytes; 0 where v has none (one node).
std::uint64_t internode_recv(const PlanVolumes& v, std::size_t r);

/// Appends one rank's counts, given in ELEMENTS, to `v` as bytes (times the machine's element
/// size) and raises v.time_s to that rank's rank_time_s() with collective factor `factor`. Of
/// the sent and received elements, `crossing` = {sent, received} go to and come from other
/// nodes: appended to v.internode_sent_bytes / internode_recv_bytes where the machine has
/// several nodes (Machine::nodes() > 1), not at all on one node.
void append_rank(PlanVolumes& v, double factor, const Machine& machine, std::uint64_t read_elems,
                 std::uint64_t write_elems, std::uint64_t sent_elems, std::uint64_t recv_elems,
                 std::pair<std::uint64_t, std::uint64_t> crossing = {0, 0});

/// The exact per-rank volumes of `plan`'s compute stage, in bytes, as its method gives them
/// (method_model.h MethodModel::volumes(): the Gao methods in closed form over the loop counts of the
/// order, with their collectives; other methods by their schedules).
/// Precondition: check_valid(plan) passes.
PlanVolumes plan_volumes(const Plan& plan, const Machine& machine);
/// The same for ranks first_rank … end_rank-1 only (vectors indexed from 0);
/// the plan search evaluates the fullest ranks this way.
PlanVolumes plan_volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank, std::int64_t end_rank);

/// The same volumes as plan_volumes() counted independently, by walking the method's schedule
/// step by step (MethodModel::walk(): the Gao methods' loop nests, methods/gao/simulate.h, and
/// every other method's own walk); the tests hold the two equal. Meant for tests and small
/// plans. Precondition: check_valid(plan) passes.
PlanVolumes simulate(const Plan& plan, const Machine& machine);

/// Gao et al. §2.3 stages 1 and 3, in bytes per rank. Without `declared` (or for a tensor
/// without a declared layout) as tcec's programs run them, through files all ranks see (the
/// run's tensor store; disk volumes only). Stage 1: each rank reads the elements of its parts
/// of A and B from their files (an input generated by --init random counts as read) and writes
/// them into its tiled files; with `accumulate` (the statement adds to a result an earlier
/// statement wrote) also its part of C. Stage 3: each rank holding final values of C reads
/// its part from its tiled file and writes it to the result's file. Which elements a rank
/// lays out, reads and writes is its method's (method_model.h MethodModel::stage_elements(): e.g. only
/// rank 0 holds C under accumulation; a method may keep pieces in memory instead of writing
/// them). A tensor with a declared layout (layout.h DeclaredLayouts; Gao plans only) instead moves
/// between that layout and the plan's, rank to rank (exchange(): reads, writes, sent and
/// received); a declared C does so after the compute stage, and also before it when
/// accumulating. C's current values kept on the ranks (C_in) move from there when
/// accumulating; a result that stays on the ranks (C_stays) has no stage 3.
/// time_s = max over ranks of read/B_dr + write/B_dw + received/B_c.
struct DeclaredLayouts;
PlanVolumes redistribution_volumes(const Plan& plan, const Machine& machine, bool accumulate,
                                   const DeclaredLayouts* declared = nullptr);

/// Buffer bytes per array on the fullest rank (the capacity the runtime allocates), as the
/// plan's method gives them (method_model.h MethodModel::tile_bytes(); the Gao methods: max over tiles
/// of the rank's blocks, methods/gao/gao.h).
struct TileBytes {
  std::uint64_t A = 0, B = 0, C = 0;
};
TileBytes tile_bytes(const Plan& plan, double element_size_bytes);

/// One buffer of a plan on its fullest rank, as the generated program allocates it ("tile of
/// A", "C block", "A slices", "hand-off rounds", …; bytes; load stage or not): the runtime's own
/// type, runtime/spec/step_memory.h.
using MemoryPart = tcert::MemoryPart;

/// The memory a plan needs per rank, by buffer, and the peak they reach together (bytes;
/// runtime/spec/step_memory.h step_peak_bytes()).
using PlanMemory = tcert::StepMemory;

/// The one place the planner computes a step's memory per rank (bytes), part by part in the
/// order the runtime allocates them (runtime/spec/spec_check.h step_memory() is the runtime's side;
/// the plans property test holds the two equal):
///  * "hand-off rounds" (load stage) when the step takes a tensor of `taken_elements` elements
///    (the largest it takes; 0 = none) rank to rank: 24 · min(⌊memory / 24⌋ (at least 1),
///    taken_elements): runtime/spec/step_memory.h handoff_round_bytes(), three buffers of one
///    round's 8-byte values, rounds cut to fit the free memory;
///  * the method's buffers (method_model.h MethodModel::memory_parts(): "tile of A", "tile of B", "tile
///    of C" for the Gao methods), from tile_bytes().
/// The load stage runs before the tiles are allocated, so peak = max of the two stages
/// (runtime/spec/step_memory.h step_peak_bytes()).
PlanMemory plan_memory(const Plan& plan, const Machine& machine, std::uint64_t taken_elements = 0);

/// The most elements among the arrays a step takes rank to rank (A: |I|·|K|, B: |J|·|K|, C:
/// |I|·|J|); 0 when it takes none. The `taken_elements` of plan_memory().
std::uint64_t taken_elements(const Plan& plan, bool take_A, bool take_B, bool take_C);

/// True when the tiles fit the memory under the plan's split (Thirds: each
/// <= memory/3; Optimal: their sum <= memory). On false sets *reason.
bool fits_memory_exact(const Plan& plan, const Machine& machine, std::string* reason = nullptr);

/// Checks the plan against the machine: P matches, then the method's own rules (method.h
/// PlanCodec::check_valid(); e.g. the Gao methods: rotation only on a square P, every tile count
/// valid, split groups with a distribution index large enough) and that the buffers fit
/// memory. On false sets *reason to a message naming the failing item and its numbers.
bool check_valid(const Plan& plan, const Machine& machine, std::string* reason);

}  // namespace tcec::costmodel

// runtime/methods/contraction_steps.h — (private) the phases every method's executor of a contraction
// shares: the compute phase with its trace record, writing C to .npy, and --verify.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "runtime/base/counters.h"
#include "runtime/base/progress.h"
#include "runtime/comm/placement.h"
#include "runtime/program/direct_result.h"
#include "runtime/program/run.h"
#include "runtime/spec/gemm_spec.h"
#include "runtime/storage/tiled_matrix.h"

namespace tcert {

/// What every executor does before any work: check_spec() (throws its Error when the plan's
/// checks or memory fail), the budget's peak reset to measure the step's own, and the mapped
/// pages bounded by what the plan's tile buffers leave of the memory (MappedInputs::bound_pages():
/// its planned peak, or the whole memory when not given).
void begin_contraction(Run& run, const GemmSpec& spec);

/// Runs body as the compute phase of `spec`: a counters() section, a progress line (made into
/// `progress`, finished at the end), then the per-rank volumes and seconds gathered into a
/// ContractionRecord handed to run.records().record(). Collective over run.context().
void compute_phase(Run& run, const GemmSpec& spec, std::unique_ptr<Progress>& progress,
                   const std::function<void()>& body);

/// Where the step writes C: into C's latest version where it is (DirectResult::Update::InPlace)
/// when spec.accumulate and TensorStore::updates_in_place(C, {A, B}); else into C's next version.
DirectResult::Update update_of_C(const Run& run, const GemmSpec& spec);

/// The initial value of C for a fill: its current version when spec.accumulate and a step of
/// the run wrote it, else nullopt (C starts at zero).
std::optional<ElementSource> initial_C(Run& run, const GemmSpec& spec);

/// This rank's Phase::Redistribute volumes so far (take differences around a stage).
Volumes redistribution_now();
/// Gathers every rank's redistribution bytes and requests `mine` (read, write, disk requests)
/// into run's last record.
/// Collective.
void record_redistribution(Run& run, const Volumes& mine);

/// Calls visit(row_values of I, col_values of J, rows, cols, block) for every block of C this
/// rank owns (TiledMatrix::read_blocks(): a rows × cols row-major block, read as one transfer);
/// the store counts the disk requests of each block's writes apart (runtime counters.h
/// RunCounter), as the cost model predicts them (costmodel Method::stage_requests).
using ResultVisitor = std::function<void(const BlockVisit& visit)>;
/// The value of C(row_values, col_values) when this rank owns it, else nullopt.
using ResultLookup = std::function<std::optional<double>(const std::int64_t*, const std::int64_t*)>;

/// Stores a tensor as the next version of its name in run's store (a DirectResult: rank 0
/// creates the .npy's temporary file, every rank that `owns` elements fills them through its
/// mapping (visit gives GEMM row and column values: the first row_count positions of
/// tensor.perm are rows), rank 0 renames it when all are done). Counts 8 bytes of disk write
/// per element filled, in the current phase. Collective. Throws Error on every rank when the
/// file cannot be made or written on some rank. With Update::InPlace the elements are written
/// into the latest version's file instead (DirectResult).
void store_version(Run& run, const TensorBinding& tensor, std::size_t row_count, bool owns, const ResultVisitor& visit,
                   DirectResult::Update update = DirectResult::Update::NextVersion);
/// Stores C as the next version of its tensor (store_version, Phase::Redistribute: Gao et al.
/// §2.3 stage 3), or into its latest version where update_of_C() says: every element a rank
/// owns is written, its start value included. Collective.
void write_result(Run& run, const GemmSpec& spec, bool owns, const ResultVisitor& visit);

/// write_result() for a rank whose elements of C are one range of a row-major block of C's GEMM
/// view: element e of [first, end) is C(row0 + e / cols, col0 + e % cols) (flat row and column
/// values of I and J) with value block[e]. Copies each piece that is consecutive in C's file at
/// once (for_each_run_of_view) and counts the same bytes and disk requests as write_result()
/// visiting the elements in that order (one transfer). In place as write_result(). Collective.
void write_result_block(Run& run, const GemmSpec& spec, bool owns, std::int64_t row0, std::int64_t col0,
                        std::int64_t cols, std::int64_t first, std::int64_t end, const double* block);

// --- the hand-off: results kept on the ranks (KeptTensors::keep) ---
/// Keeps C on the ranks in `placement` (this rank's part in `file`, null when it holds none)
/// instead of writing it to the store (spec.keep_result). With --verify also stores a shadow
/// version, outside the counted phases (Phase::WriteOut). Collective.
void keep_result(Run& run, const GemmSpec& spec, Placement placement, std::unique_ptr<TiledMatrix> file);
/// Writes the kept tensor `name` to the store as its next version and deletes the ranks'
/// files of it: the producing step's deferred stage 3, counted in Phase::Redistribute (each
/// rank reads the elements it holds and writes them). Nothing when `name` is not kept.
/// Collective.
void flush_kept(Run& run, const std::string& name);
/// Moves the kept tensor `name` rank to rank into placement `to` (move_tensor; this rank's
/// file `target`, created by the caller, null when it holds nothing), counted in
/// Phase::Redistribute. The tensor stays kept. Collective. Throws Error when it is not kept.
void take_kept(Run& run, const std::string& name, const Placement& to, TiledMatrix* target);

/// The end of a step whose result was written in place (DirectResult): commits it, records
/// this rank's redistribution bytes `mine` (read, write) and those of the commit (a store of one
/// directory per node completes the version, TensorStore::complete()), runs --verify on the elements
/// `holds(row_values, col_values)` says this rank wrote, read back from the committed version
/// (`owns`: whether this rank wrote any), and ends the step. Collective.
void finish_in_place(Run& run, const GemmSpec& spec, DirectResult& result, const Volumes& mine, bool owns,
                     const std::function<bool(const std::int64_t*, const std::int64_t*)>& holds);

/// With --verify: up to 2000 sampled elements of C (all when C is smaller), each checked by
/// its owner against C₀ + alpha·Σ_K A·B in long double (C₀ the version it started from when
/// spec.accumulate, else 0); the error is |C − exact| / (|C₀| + Σ|terms|).
/// The count and the maximum over ranks go to run.records().record_verify(). Collective.
void verify_result(Run& run, const GemmSpec& spec, bool owns, const ResultLookup& lookup);

}  // namespace tcert

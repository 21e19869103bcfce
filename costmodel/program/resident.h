// costmodel/program/resident.h — (private) resident accumulation: write-avoiding across
// statements (Carson et al., seed 004: keep the C block resident while A and B stream, so that
// the output is written once). Consecutive contractions adding into one tensor X (a group) keep
// each rank's block of X in memory from the first to the last: X is read once when it starts from
// its current values and written once, however many statements add to it, where the store's
// plans read and write X's share once per statement. The runtime's THE SCHEDULE
// (runtime/spec/resident_spec.h) is what this models, exactly: per rank, per statement, the bytes it
// reads (the panels of A and B along K, the block's start) and writes (the block, in the last
// step), its disk requests (runs of adjacent elements per pass, pass_runs.h), its multiplies and
// its memory; with Machine::page_fault_s > 0 also its panels' page faults, an estimate
// (PanelRuns::faults(), charged in the time). Units: bytes per rank in PlanVolumes, seconds.
//
// Groups: maximal runs of at least two consecutive two-operand statements writing the same
// tensor X, the first any (`=` starts X at zero; `+=` after an earlier write starts from X's
// current values), the others `+=` or `-=`, no operand X. X is split along one of its stored
// dimensions over the P ranks (balanced ranges); the planner tries each dimension and keeps the
// fastest. K's chunk of each statement is the largest whose panels fit the memory left beside
// the block and the product (as many elements as the block).
//
// Which groups run (PlanOptions::resident): `auto` considers them on machines whose disk writes
// are slower than their reads, or under --max-writes, unless a method or an order is forced;
// `on` on every machine; `all` runs every feasible group whatever its time (for comparisons);
// `off` never. A
// considered group is chosen when its predicted time is below its statements' through the store
// (their chosen plans, compute stage plus stages 1 and 3), or when --max-writes F is given, the
// statements' writes through the store exceed F times X's share and the group's do not.
// A program with a chosen group runs no rank-to-rank hand-off (the groups read every tensor from
// the store).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "costmodel/analysis.h"

namespace tcec::costmodel {

/// One group tried, and how it would run.
struct ResidentGroup {
  int tensor = -1;                      ///< X (ir tensor id)
  std::vector<std::size_t> statements;  ///< indices into program.statements, consecutive
  bool accumulate = false;              ///< X starts from its current values (accumulates() of the first)
  bool feasible = false;
  std::string reason;  ///< why not (infeasible only)
  int split = 0;       ///< X's stored dimension split over the ranks
  /// Per statement: its step (runtime ResidentSpec), exact per-rank compute-stage volumes
  /// (disk requests, kernel_s and wall_s = disk + kernel, serial, set) and memory.
  std::vector<ResidentStep> steps;
  std::vector<PlanVolumes> volumes;
  std::vector<PlanMemory> memory;
  double time_s = 0;        ///< Σ the steps' wall_s
  double store_time_s = 0;  ///< Σ the statements' chosen plans' total_s() through the store (∞ when one has none)
  /// The fullest rank's writes and reads over the group, and the statements' writes through the
  /// store (Σ of each plan's fullest rank; bytes); X's share |X|/P.
  double write_bytes = 0, read_bytes = 0, store_write_bytes = 0, share_bytes = 0;
  bool considered = false;  ///< the mode and the machine let it compete
  bool chosen = false;      ///< the generated program runs it
};

/// The groups of `program` on `machine` (header comment), in program order. `store[i]` is
/// analyze() of statement i through the store (nullopt for a copy step).
std::vector<ResidentGroup> plan_resident(const ir::Program& program, const Machine& machine, const PlanOptions& options,
                                         const std::vector<std::optional<ContractionAnalysis>>& store);

/// The exact volumes of one step of a group split along X's dimension `split` with K's chunk
/// `chunk`, for every rank (wall_s: disk + kernel, serial). Precondition: a valid step.
PlanVolumes resident_volumes(const ir::Program& program, const ir::Statement& s, const ResidentStep& step,
                             bool accumulate, const Machine& machine);

/// The dry-run section: "resident accumulation (…)" with one line per group (its tensor, lines,
/// split, per-rank writes against X's share and reads, memory, time against the store's, and
/// whether the program runs it), and the program's writes with the chosen groups. Empty when
/// the program has no group.
std::string resident_text(const std::vector<ResidentGroup>& groups, const ir::Program& program,
                          const ProgramWrites& with_groups);
/// The same as JSON: [{"tensor", "lines", "considered", "feasible", "reason", "split" (index
/// name), "chunks", "write_bytes", "read_bytes", "store_write_bytes", "share_bytes", "memory_bytes_per_rank",
/// "time_s", "store_time_s", "chosen"}].
nlohmann::json resident_json(const std::vector<ResidentGroup>& groups, const ir::Program& program);

/// program_writes() with the chosen groups' statements writing what the groups write.
ProgramWrites resident_program_writes(const ir::Program& program, const Machine& machine,
                                      const std::vector<std::optional<ContractionAnalysis>>& store,
                                      const std::vector<ResidentGroup>& groups);

}  // namespace tcec::costmodel

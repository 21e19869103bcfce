// costmodel/program/resident.cpp — resident accumulation groups (resident.h): finding them,
// their exact per-rank volumes (runtime/spec/resident_spec.h THE SCHEDULE), the choice of the split
// and the chunks, and the dry-run section.
#include "costmodel/program/resident.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "costmodel/methods/pass_runs.h"
#include "costmodel/partition.h"
#include "costmodel/reasons.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

/// Passes a group's walk may count per step (ranges of rows × chunks, over all ranks) before
/// the split is refused as too long to count (a few seconds at most).
constexpr double kMaxWalk = double(1 << 22);

std::vector<i64> index_extents(const ir::Program& program, const std::vector<int>& indices) {
  std::vector<i64> out;
  for (int id : indices) out.push_back(static_cast<i64>(program.ranges.at(program.indices.at(id).range).extent));
  return out;
}

i64 product_of(const std::vector<i64>& v) {
  i64 p = 1;
  for (i64 x : v) p *= x;
  return p;
}

/// One statement of a group as the walk sees it, split along X's dimension `split`.
struct StepShape {
  ir::MacroIndexGemm g;
  std::vector<i64> eI, eJ, eK, eX;
  i64 m = 1, n = 1, k = 1, e = 1, outer_X = 1;  // |I|, |J|, |K|; X's extent along split, Π before it
  bool in_I = true;                             // the split is a position of I (A's rows are cut)
  std::size_t position = 0;                     // … at this position of its group

  StepShape(const ir::Program& program, const ir::Statement& s, int split) : g(ir::macro_index_gemm(program, s)) {
    eI = index_extents(program, g.I), eJ = index_extents(program, g.J), eK = index_extents(program, g.K);
    for (int range : program.tensors.at(s.result.tensor).dims)
      eX.push_back(static_cast<i64>(program.ranges.at(range).extent));
    m = product_of(eI), n = product_of(eJ), k = product_of(eK), e = eX.at(static_cast<std::size_t>(split));
    for (int d = 0; d < split; ++d) outer_X *= eX[static_cast<std::size_t>(d)];
    const auto p = static_cast<std::size_t>(std::find(g.perm_C.begin(), g.perm_C.end(), split) - g.perm_C.begin());
    in_I = p < g.I.size(), position = in_I ? p : p - g.I.size();
  }
  /// Rows of A and of B, and the block's elements, for a range of `len` along the split.
  i64 rows_A(i64 len) const { return in_I ? m / e * len : m; }
  i64 rows_B(i64 len) const { return in_I ? n : n / e * len; }
  i64 block(i64 len) const { return product_of(eX) / e * len; }
  /// The cut group's ranges of rows (runtime restricted_rows()).
  std::vector<std::pair<i64, i64>> cut_rows(i64 s0, i64 len) const {
    const std::vector<i64>& ex = in_I ? eI : eJ;
    i64 outer = 1, inner = 1;
    for (std::size_t q = 0; q < position; ++q) outer *= ex[q];
    for (std::size_t q = position + 1; q < ex.size(); ++q) inner *= ex[q];
    std::vector<std::pair<i64, i64>> out;
    for (i64 o = 0; o < outer && len > 0; ++o) out.emplace_back((o * e + s0) * inner, len * inner);
    return out;
  }
  /// The walk's passes over all ranks for chunks of `chunk` columns (the work of counting them).
  double walk_work(i64 processors, i64 chunk) const {
    const double ranges = static_cast<double>(cut_rows(0, 1).size()) + 1;
    return ranges * std::ceil(static_cast<double>(k) / static_cast<double>(chunk)) * static_cast<double>(processors);
  }
};

/// The largest chunk whose panels fit beside the block and the product on the fullest rank (0
/// when not even one column fits).
i64 fitting_chunk(const StepShape& sh, const Machine& machine) {
  const i64 len = piece(sh.e, machine.processors, 0);
  const double free = std::floor(machine.memory_bytes / static_cast<double>(tcert::kElementBytes)) -
                      2.0 * static_cast<double>(sh.block(len));
  const double per_column = static_cast<double>(sh.rows_A(len) + sh.rows_B(len));
  if (free < per_column) return 0;
  return std::min(sh.k, static_cast<i64>(free / per_column));
}

PlanMemory step_memory(const StepShape& sh, i64 chunk, i64 processors) {
  const i64 len = piece(sh.e, processors, 0);
  auto bytes = [](i64 elements) { return tcert::bytes_of(static_cast<u64>(elements)); };
  PlanMemory out;
  out.parts = {{"resident block", bytes(sh.block(len)), false},
               {"product", bytes(sh.block(len)), false},
               {"A panel", bytes(sh.rows_A(len) * chunk), false},
               {"B panel", bytes(sh.rows_B(len) * chunk), false}};
  for (const MemoryPart& p : out.parts) out.peak_bytes += p.bytes;
  return out;
}

PlanVolumes step_volumes(const StepShape& sh, const ResidentStep& step, bool accumulate, const Machine& machine) {
  const i64 P = machine.processors;
  PlanVolumes v;
  const std::vector<i64> eA = [&] {
    std::vector<i64> x = sh.eI;
    x.insert(x.end(), sh.eK.begin(), sh.eK.end());
    return x;
  }();
  const std::vector<i64> eB = [&] {
    std::vector<i64> x = sh.eJ;
    x.insert(x.end(), sh.eK.begin(), sh.eK.end());
    return x;
  }();
  const std::size_t ni = sh.eI.size(), nj = sh.eJ.size(), nk = sh.eK.size();
  PanelRuns runs_A(eA, sh.g.perm_A, ni, nk), runs_B(eB, sh.g.perm_B, nj, nk);
  for (i64 r = 0; r < P; ++r) {
    const i64 s0 = piece_start(sh.e, P, r), len = piece(sh.e, P, r);
    u64 read = 0, write = 0, requests = 0;
    double flops = 0, kernel = 0, faults = 0;
    if (len > 0) {
      const i64 rows_A = sh.rows_A(len), rows_B = sh.rows_B(len), block = sh.block(len);
      read = tcert::bytes_of(static_cast<u64>((rows_A + rows_B) * sh.k));
      const u64 block_runs = len == sh.e ? 1 : static_cast<u64>(sh.outer_X);  // resident_spec.h steps 1 and 4
      if (step.first && accumulate) read += tcert::bytes_of(static_cast<u64>(block)), requests += block_runs;
      if (step.last) write = tcert::bytes_of(static_cast<u64>(block)), requests += block_runs;
      const std::vector<std::pair<i64, i64>> cut = sh.cut_rows(s0, len);
      const std::vector<std::pair<i64, i64>> whole_A = {{0, sh.m}}, whole_B = {{0, sh.n}};
      const auto& rows_of_A = sh.in_I ? cut : whole_A;
      const auto& rows_of_B = sh.in_I ? whole_B : cut;
      for (i64 k0 = 0; k0 < sh.k; k0 += step.chunk) {  // step 2: the A panel, then the B panel
        const i64 kc = std::min(step.chunk, sh.k - k0);
        for (auto [runs, rows] : {std::pair{&runs_A, &rows_of_A}, std::pair{&runs_B, &rows_of_B}}) {
          runs->pass(*rows, k0, kc);
          requests += runs->runs();
          faults += static_cast<double>(runs->faults());
        }
      }
      faults = capped_faults(faults, static_cast<double>((sh.m + sh.n) * sh.k));  // A's and B's elements
      flops = 2.0 * static_cast<double>(rows_A) * static_cast<double>(rows_B) * static_cast<double>(sh.k);
      kernel =
          flops / (machine.flops_per_s * gemm_efficiency(static_cast<double>(rows_A), static_cast<double>(rows_B),
                                                         static_cast<double>(std::min(step.chunk, sh.k)), machine));
    }
    const double disk = static_cast<double>(read) / machine.disk_read_bytes_per_s +
                        static_cast<double>(write) / machine.disk_write_bytes_per_s +
                        machine.disk_latency_s * static_cast<double>(requests) + machine.page_fault_s * faults;
    if (machine.page_fault_s > 0) v.page_faults.push_back(static_cast<u64>(faults + 0.5));
    v.disk_read_bytes.push_back(read), v.disk_write_bytes.push_back(write);
    v.comm_sent_bytes.push_back(0), v.comm_recv_bytes.push_back(0), v.disk_requests.push_back(requests);
    if (machine.nodes() > 1) v.internode_sent_bytes.push_back(0), v.internode_recv_bytes.push_back(0);
    v.time_s = std::max(v.time_s, disk);
    v.kernel_s = std::max(v.kernel_s, kernel);
    v.wall_s = std::max(v.wall_s, disk + kernel);  // serial: no I/O thread
  }
  return v;
}

/// The runs of consecutive statements writing one tensor (resident.h "Groups").
std::vector<std::vector<std::size_t>> find_runs(const ir::Program& program) {
  std::vector<std::vector<std::size_t>> out;
  auto reads_result = [](const ir::Statement& s) {
    return std::any_of(s.operands.begin(), s.operands.end(),
                       [&](const ir::TensorRef& r) { return r.tensor == s.result.tensor; });
  };
  std::vector<std::size_t> run;
  auto close = [&] {
    if (run.size() >= 2) out.push_back(run);
    run.clear();
  };
  for (std::size_t i = 0; i < program.statements.size(); ++i) {
    const ir::Statement& s = program.statements[i];
    const bool eligible = s.operands.size() == 2 && !reads_result(s);
    const bool joins = eligible && !run.empty() && program.statements[run.back()].result.tensor == s.result.tensor &&
                       s.op != ir::AssignOp::Assign;
    if (!joins) close();
    if (eligible) run.push_back(i);
  }
  close();
  return out;
}

std::string lines_text(const ir::Program& program, const ResidentGroup& g) {
  return fmt::format("lines {}-{}", program.statements[g.statements.front()].loc.line,
                     program.statements[g.statements.back()].loc.line);
}

std::string split_name(const ir::Program& program, const ResidentGroup& g) {
  const ir::Statement& s = program.statements[g.statements.front()];
  return program.indices.at(s.result.indices.at(static_cast<std::size_t>(g.split))).name;
}

}  // namespace

PlanVolumes resident_volumes(const ir::Program& program, const ir::Statement& s, const ResidentStep& step,
                             bool accumulate, const Machine& machine) {
  return step_volumes(StepShape(program, s, step.split), step, accumulate, machine);
}

std::vector<ResidentGroup> plan_resident(const ir::Program& program, const Machine& machine, const PlanOptions& options,
                                         const std::vector<std::optional<ContractionAnalysis>>& store) {
  std::vector<ResidentGroup> out;
  const bool dear_writes = machine.disk_write_bytes_per_s < machine.disk_read_bytes_per_s;
  const bool forced = options.force_method || options.force_order || !options.pins.empty();
  const bool considered =
      options.resident == ResidentMode::On || options.resident == ResidentMode::All ||
      (options.resident == ResidentMode::Auto && !forced && (dear_writes || options.max_writes > 0));
  for (const std::vector<std::size_t>& run : find_runs(program)) {
    ResidentGroup g;
    g.statements = run;
    const ir::Statement& first = program.statements[run.front()];
    g.tensor = first.result.tensor;
    g.accumulate = accumulates(program, first);
    // A statement whose plan --plan pinned runs that plan, never a resident step.
    g.considered = considered && std::none_of(run.begin(), run.end(), [&](std::size_t i) {
                     return options.pinned(program.statements[i].loc.line) != nullptr;
                   });
    g.share_bytes = static_cast<double>(program.elements(g.tensor)) * machine.element_size_bytes /
                    static_cast<double>(machine.processors);
    for (std::size_t i : run) {
      const bool planned = store.at(i) && store[i]->plan().feasible;
      g.store_time_s += planned ? store[i]->plan().total_s() : std::numeric_limits<double>::infinity();
      if (planned) g.store_write_bytes += plan_write_bytes(store[i]->plan());
    }
    const auto dims = static_cast<int>(program.tensors.at(g.tensor).dims.size());
    g.reason = reason_text(dims == 0 ? ReasonId::resident_scalar : ReasonId::resident_no_split);
    for (int split = 0; g.considered && split < dims; ++split) {
      ResidentGroup t = g;  // this split's plan, from the group's facts alone
      t.split = split, t.steps.clear(), t.volumes.clear(), t.memory.clear(), t.time_s = 0;
      bool fits = true;
      for (std::size_t q = 0; q < run.size() && fits; ++q) {
        const StepShape sh(program, program.statements[run[q]], split);
        const i64 chunk = fitting_chunk(sh, machine);
        if (chunk < 1 || sh.e < 1) {
          fits = false;
          break;
        }
        if (sh.walk_work(machine.processors, chunk) > kMaxWalk) {
          fits = false, g.reason = reason_text(ReasonId::resident_walk_too_long);
          break;
        }
        const ResidentStep step{split, chunk, q == 0, q + 1 == run.size()};
        t.steps.push_back(step);
        t.volumes.push_back(step_volumes(sh, step, g.accumulate, machine));
        t.memory.push_back(step_memory(sh, chunk, machine.processors));
        t.time_s += t.volumes.back().wall_s;
      }
      if (!fits || (g.feasible && t.time_s >= g.time_s)) continue;
      t.feasible = true, t.reason.clear();
      std::vector<double> reads(static_cast<std::size_t>(machine.processors), 0.0);
      for (const PlanVolumes& v : t.volumes)
        for (std::size_t r = 0; r < reads.size(); ++r) reads[r] += static_cast<double>(v.disk_read_bytes[r]);
      t.read_bytes = *std::max_element(reads.begin(), reads.end());
      t.write_bytes = static_cast<double>(
          *std::max_element(t.volumes.back().disk_write_bytes.begin(), t.volumes.back().disk_write_bytes.end()));
      g = std::move(t);
    }
    if (g.feasible) {
      const double limit = options.max_writes * g.share_bytes * (1 + 1e-9);
      const bool limit_asks = options.max_writes > 0 && g.store_write_bytes > limit && g.write_bytes <= limit;
      g.chosen = g.time_s < g.store_time_s || limit_asks || options.resident == ResidentMode::All;
    }
    out.push_back(std::move(g));
  }
  return out;
}

ProgramWrites resident_program_writes(const ir::Program& program, const Machine& machine,
                                      const std::vector<std::optional<ContractionAnalysis>>& store,
                                      const std::vector<ResidentGroup>& groups) {
  std::vector<std::optional<ContractionAnalysis>> rest = store;
  std::vector<double> group_writes(static_cast<std::size_t>(machine.processors), 0.0);
  for (const ResidentGroup& g : groups) {
    if (!g.chosen) continue;
    for (std::size_t i : g.statements) rest[i].reset();
    for (std::size_t r = 0; r < group_writes.size(); ++r)
      group_writes[r] += static_cast<double>(g.volumes.back().disk_write_bytes[r]);
  }
  ProgramWrites w = program_writes(program, machine, rest);  // the other statements' fullest rank
  // The fullest rank over both: the groups write the most on the ranks with the longest ranges,
  // which program_writes() does not say; adding the fullest of each is exact when one part is
  // even over the ranks and an upper bound otherwise.
  w.write_bytes += *std::max_element(group_writes.begin(), group_writes.end());
  return w;
}

std::string resident_text(const std::vector<ResidentGroup>& groups, const ir::Program& program,
                          const ProgramWrites& with_groups) {
  if (std::none_of(groups.begin(), groups.end(), [](const ResidentGroup& g) { return g.considered; })) return "";
  std::string out =
      "\nresident accumulation (write-avoiding across statements, Carson et al. seed 004: each rank holds its block "
      "of the\nresult in memory from the group's first statement to its last, reading A and B in panels along K, so "
      "the\nresult is written once; the generated program runs the chosen groups in place of their statements' "
      "plans):\n";
  bool any = false;
  for (const ResidentGroup& g : groups) {
    const std::string& name = program.tensors.at(g.tensor).name;
    out += fmt::format("  {}, {} ({} statements): ", name, lines_text(program, g), g.statements.size());
    if (!g.feasible) {
      out += fmt::format("no plan: {}\n", g.reason);
      continue;
    }
    any = any || g.chosen;
    std::uint64_t memory = 0;
    for (const PlanMemory& m : g.memory) memory = std::max(memory, m.peak_bytes);
    out += fmt::format(
        "split along {}'s dimension {} ({}); writes per rank {} against its share {}, {:.3f}x (through the store "
        "{}, {:.3f}x); reads {}; memory {} per rank; {:.5g} s against {:.5g} s through the store: {}\n",
        name, g.split + 1, split_name(program, g), human_bytes(g.write_bytes), human_bytes(g.share_bytes),
        g.write_bytes / g.share_bytes, human_bytes(g.store_write_bytes), g.store_write_bytes / g.share_bytes,
        human_bytes(g.read_bytes), human_bytes(static_cast<double>(memory)), g.time_s, g.store_time_s,
        g.chosen ? "chosen" : "not chosen");
    for (std::size_t q = 0; q < g.statements.size(); ++q) {
      const PlanVolumes& v = g.volumes[q];
      out += fmt::format(
          "    line {}: K in chunks of {}; per rank disk read {}, disk write {}, disk requests {}; {:.5g} s\n",
          program.statements[g.statements[q]].loc.line, g.steps[q].chunk, range_text(v.disk_read_bytes),
          range_text(v.disk_write_bytes), range_text(v.disk_requests), v.wall_s);
    }
  }
  if (any)
    out += fmt::format(
        "writes per rank over the program with resident accumulation: {} against the outputs' share {}, "
        "{:.3f}x\n",
        human_bytes(with_groups.write_bytes), human_bytes(with_groups.bound_bytes),
        with_groups.bound_bytes > 0 ? with_groups.write_bytes / with_groups.bound_bytes : 0.0);
  return out;
}

nlohmann::json resident_json(const std::vector<ResidentGroup>& groups, const ir::Program& program) {
  nlohmann::json out = nlohmann::json::array();
  for (const ResidentGroup& g : groups) {
    if (!g.considered) continue;
    nlohmann::json lines = nlohmann::json::array(), chunks = nlohmann::json::array();
    for (std::size_t i : g.statements) lines.push_back(program.statements[i].loc.line);
    for (const ResidentStep& s : g.steps) chunks.push_back(s.chunk);
    std::uint64_t memory = 0;
    for (const PlanMemory& m : g.memory) memory = std::max(memory, m.peak_bytes);
    out.push_back(
        {{"tensor", program.tensors.at(g.tensor).name},
         {"lines", lines},
         {"feasible", g.feasible},
         {"reason", g.feasible ? nlohmann::json(nullptr) : nlohmann::json(g.reason)},
         {"split", g.feasible ? nlohmann::json(split_name(program, g)) : nlohmann::json(nullptr)},
         {"chunks", chunks},
         {"write_bytes", g.write_bytes},
         {"read_bytes", g.read_bytes},
         {"store_write_bytes", g.store_write_bytes},
         {"share_bytes", g.share_bytes},
         {"memory_bytes_per_rank", memory},
         {"time_s", g.time_s},
         {"store_time_s", std::isfinite(g.store_time_s) ? nlohmann::json(g.store_time_s) : nlohmann::json(nullptr)},
         {"chosen", g.chosen}});
  }
  return out;
}

}  // namespace tcec::costmodel

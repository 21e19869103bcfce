// Resident accumulation (costmodel/program/resident.h): which statements form a group, when a
// group competes and is chosen, and its exact volumes, held against an element-by-element walk
// of runtime/spec/resident_spec.h's THE SCHEDULE written here independently.
#include <algorithm>
#include <limits>
#include <map>

#include <gtest/gtest.h>

#include "costmodel/analysis.h"
#include "costmodel/costmodel.h"
#include "costmodel/program/resident.h"
#include "tests/costmodel/fixtures.h"

namespace tcec::costmodel {
namespace {

using i64 = std::int64_t;

Machine machine(double memory, double read, double write, i64 P = 4) {
  Machine m;
  m.processors = P;
  m.memory_bytes = memory;
  m.network_bytes_per_s = 2e9;
  m.disk_read_bytes_per_s = read;
  m.disk_write_bytes_per_s = write;
  return m;
}

std::vector<std::optional<ContractionAnalysis>> store_of(const ir::Program& p, const Machine& m, const PlanOptions& o) {
  std::vector<std::optional<ContractionAnalysis>> out;
  for (const ir::Statement& s : p.statements)
    out.push_back(s.operands.size() == 2 ? std::optional(analyze(p, s, m, o)) : std::nullopt);
  return out;
}

/// Runs of adjacent offsets, as runtime RunCounter counts them.
struct Runs {
  i64 last = -2;
  std::uint64_t runs = 0;
  void at(i64 offset) {
    if (offset != last + 1) ++runs;
    last = offset;
  }
};

/// Row-major offset of `values` (one per stored dimension) in a tensor of `extents`.
i64 offset(const std::vector<i64>& extents, const std::vector<i64>& values) {
  i64 at = 0;
  for (std::size_t d = 0; d < extents.size(); ++d) at = at * extents[d] + values[d];
  return at;
}

std::vector<i64> stored_extents(const ir::Program& p, const ir::TensorRef& r) {
  std::vector<i64> e;
  for (int range : p.tensors.at(r.tensor).dims) e.push_back(static_cast<i64>(p.ranges.at(range).extent));
  return e;
}

/// One rank's bytes and requests of a step, walked element by element: the block's start (first,
/// accumulating) and end (last) in X's order, and per chunk of flat K the A panel and the B
/// panel, rows in order (the rows whose split index lies in the rank's range), then the chunk.
struct Walked {
  std::uint64_t read = 0, write = 0, requests = 0;
};
Walked walk(const ir::Program& p, const ir::Statement& s, const ResidentStep& step, bool accumulate, i64 P, i64 rank) {
  const ir::MacroIndexGemm g = ir::macro_index_gemm(p, s);
  const std::vector<i64> eX = stored_extents(p, s.result);
  const i64 e = eX[static_cast<std::size_t>(step.split)];
  const i64 s0 = rank * (e / P) + std::min(rank, e % P), len = e / P + (rank < e % P ? 1 : 0);
  const int split_index = s.result.indices[static_cast<std::size_t>(step.split)];
  Walked w;
  if (len == 0) return w;
  i64 block = 1;
  for (std::size_t d = 0; d < eX.size(); ++d) block *= static_cast<i64>(d) == step.split ? len : eX[d];
  i64 all = 1;
  for (i64 x : eX) all *= x;
  auto block_pass = [&] {  // X's elements in the range, in X's order
    Runs runs;
    std::vector<i64> v(eX.size(), 0);
    for (i64 n = 0; n < all; ++n) {
      i64 rest = n;
      for (std::size_t d = eX.size(); d-- > 0;) v[d] = rest % eX[d], rest /= eX[d];
      const i64 x = v[static_cast<std::size_t>(step.split)];
      if (x >= s0 && x < s0 + len) runs.at(offset(eX, v));
    }
    return runs.runs;
  };
  if (step.first && accumulate) w.read += 8 * static_cast<std::uint64_t>(block), w.requests += block_pass();
  if (step.last) w.write += 8 * static_cast<std::uint64_t>(block), w.requests += block_pass();
  // The panels: a row group (I or J), K, and the operand's indices in stored order.
  auto extent = [&](int id) { return static_cast<i64>(p.ranges.at(p.indices.at(id).range).extent); };
  i64 k = 1;
  for (int id : g.K) k *= extent(id);
  // A pass goes row by row, or, where the operand's innermost stored index (of extent above 1) is
  // a row index, column by column over each range of the rank's rows (runtime/methods/panel_read.h: in
  // blocks of 256 rows; these have fewer).
  auto panel = [&](const std::vector<int>& rows_group, const ir::TensorRef& ref, i64 k0, i64 kc) {
    Runs runs;
    std::uint64_t elements = 0;
    i64 rows = 1;
    for (int id : rows_group) rows *= extent(id);
    std::map<int, i64> value;
    auto row_value = [&](i64 r) {
      i64 rest = r;
      for (std::size_t q = rows_group.size(); q-- > 0;)
        value[rows_group[q]] = rest % extent(rows_group[q]), rest /= extent(rows_group[q]);
    };
    auto visit = [&](i64 r, i64 c) {
      row_value(r);
      i64 kr = c;
      for (std::size_t q = g.K.size(); q-- > 0;) value[g.K[q]] = kr % extent(g.K[q]), kr /= extent(g.K[q]);
      std::vector<i64> v;
      for (int id : ref.indices) v.push_back(value.at(id));
      runs.at(offset(stored_extents(p, ref), v));
      ++elements;
    };
    std::vector<std::pair<i64, i64>> ranges;  // the rank's rows (first, count): one per value of the outer indices
    i64 last_cut = -1;                        // the split index's value in the last row kept
    for (i64 r = 0; r < rows; ++r) {
      row_value(r);
      const i64 at = value.count(split_index) > 0 ? value[split_index] : 0;
      if (value.count(split_index) > 0 && (at < s0 || at >= s0 + len)) continue;
      if (!ranges.empty() && ranges.back().first + ranges.back().second == r && at >= last_cut)
        ++ranges.back().second;
      else
        ranges.emplace_back(r, 1);
      last_cut = at;
    }
    int innermost = -1;
    for (int id : ref.indices)
      if (extent(id) > 1) innermost = id;
    const bool by_columns = std::find(rows_group.begin(), rows_group.end(), innermost) != rows_group.end();
    for (const auto& [first, count] : ranges) {
      EXPECT_LE(count, 256);
      for (i64 a = 0; a < (by_columns ? kc : count); ++a)
        for (i64 b = 0; b < (by_columns ? count : kc); ++b)
          by_columns ? visit(first + b, k0 + a) : visit(first + a, k0 + b);
    }
    w.read += 8 * elements, w.requests += runs.runs;
  };
  for (i64 k0 = 0; k0 < k; k0 += step.chunk) {
    panel(g.I, s.operands[0], k0, std::min(step.chunk, k - k0));
    panel(g.J, s.operands[1], k0, std::min(step.chunk, k - k0));
  }
  return w;
}

/// Three statements adding into r with its indices in a different GEMM order each (I = {b}, {b,a},
/// {a}), operands stored transposed, and extents that do not divide P = 3.
const char* kGroup =
    "range A = 5, B = 4, C = 7;\n"
    "index a : A; index b : B; index c, d : C;\n"
    "tensor x[B,C] input; tensor y[A,C,C] input; tensor t[C,B,A] input; tensor u[C,C] input;\n"
    "tensor v[C,A] input; tensor w[B,C,C] input; tensor r[B,A,C] output;\n"
    "r[b,a,d] = 2 * x[b,c] * y[a,c,d];\n"
    "r[b,a,d] += t[c,b,a] * u[d,c];\n"
    "r[b,a,d] -= v[c,a] * w[b,c,d];\n";

TEST(Resident, VolumesEqualAnElementByElementWalkOfTheSchedule) {
  const ir::Program p = fixtures::parse_program(kGroup);
  const Machine m = machine(1e6, 1e9, 1e8, 3);
  int checked = 0;
  for (int split = 0; split < 3; ++split)
    for (i64 chunk : {1, 3, 7})
      for (std::size_t i = 0; i < p.statements.size(); ++i)
        for (bool accumulate : {false, true}) {
          const ResidentStep step{split, chunk, i == 0, i + 1 == p.statements.size()};
          const PlanVolumes v = resident_volumes(p, p.statements[i], step, accumulate, m);
          for (i64 rank = 0; rank < 3; ++rank) {
            const Walked w = walk(p, p.statements[i], step, accumulate, 3, rank);
            const auto r = static_cast<std::size_t>(rank);
            EXPECT_EQ(v.disk_read_bytes[r], w.read) << "split " << split << " chunk " << chunk << " line " << i + 6;
            EXPECT_EQ(v.disk_write_bytes[r], w.write) << "split " << split << " line " << i + 6;
            EXPECT_EQ(v.disk_requests[r], w.requests) << "split " << split << " chunk " << chunk << " line " << i + 6;
            EXPECT_EQ(v.comm_sent_bytes[r], 0u);
            ++checked;
          }
        }
  EXPECT_EQ(checked, 3 * 3 * 3 * 2 * 3);
}

TEST(Resident, PageFaultsAreChargedWhenTheMachineHasThem) {
  // Without page_fault nothing is counted; with it every rank that reads panels counts at least
  // one fault per pass and at most one per fault-around window of the operands read (they fit in
  // 8 MiB: nothing is dropped), and its disk time grows by page_fault per fault.
  const ir::Program p = fixtures::parse_program(kGroup);
  Machine m = machine(1e6, 1e9, 1e8, 3);
  const ResidentStep step{1, 3, true, false};
  const PlanVolumes without = resident_volumes(p, p.statements[1], step, true, m);
  EXPECT_TRUE(without.page_faults.empty());
  m.page_fault_s = 1e-3;
  const PlanVolumes with = resident_volumes(p, p.statements[1], step, true, m);
  ASSERT_EQ(with.page_faults.size(), 3u);
  EXPECT_EQ(with.disk_requests, without.disk_requests);
  double most = 0;
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_GE(with.page_faults[r], 1u) << r;
    EXPECT_LE(with.page_faults[r], 2u) << r;  // A and B, a few hundred elements each: one window
    most = std::max(most, static_cast<double>(with.page_faults[r]));
  }
  EXPECT_GT(with.time_s, without.time_s);
  EXPECT_LE(with.time_s, without.time_s + 1e-3 * most + 1e-12);
}

TEST(Resident, AGroupIsARunOfStatementsAddingIntoOneTensorThatNoneReads) {
  const ir::Program p = fixtures::parse_program(std::string(kGroup) +
                                                "tensor q[B,A,C] output;\n"
                                                "q[b,a,d] = r[b,a,c] * u[c,d];\n"
                                                "r[b,a,d] += t[c,b,a] * u[d,c];\n"
                                                "r[b,a,d] += v[c,a] * w[b,c,d];\n");
  PlanOptions all;
  all.resident = ResidentMode::All;
  const Machine m = machine(1e6, 1e9, 1e9, 3);
  const std::vector<ResidentGroup> groups = plan_resident(p, m, all, store_of(p, m, all));
  ASSERT_EQ(groups.size(), 2u);  // lines 6-8, then 10-11 (line 9 reads r: it ends the first run)
  EXPECT_EQ(groups[0].statements, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(groups[1].statements, (std::vector<std::size_t>{4, 5}));
  EXPECT_FALSE(groups[0].accumulate);  // `=`: r starts at zero
  EXPECT_TRUE(groups[1].accumulate);   // `+=` after an earlier write
  for (const ResidentGroup& g : groups) {
    ASSERT_TRUE(g.feasible) << g.reason;
    // The fastest split (1 MB: every step's chunk is all of K): each split's time from its steps.
    double fastest = std::numeric_limits<double>::infinity();
    for (int split = 0; split < 3; ++split) {
      double t = 0;
      for (std::size_t q = 0; q < g.statements.size(); ++q) {
        const ir::Statement& s = p.statements[g.statements[q]];
        const ir::MacroIndexGemm gemm = ir::macro_index_gemm(p, s);
        const auto k = static_cast<i64>(gemm.extent_K);
        const ResidentStep step{split, k, q == 0, q + 1 == g.statements.size()};
        t += resident_volumes(p, s, step, g.accumulate, m).wall_s;
      }
      fastest = std::min(fastest, t);
    }
    EXPECT_DOUBLE_EQ(g.time_s, fastest);
    EXPECT_TRUE(g.chosen);
    EXPECT_TRUE(g.steps.front().first && g.steps.back().last);
    // r written once: the fullest rank writes its range's share of r, ⌈e/3⌉/e · |r| · 8 bytes.
    const i64 e = std::vector<i64>{4, 5, 7}[static_cast<std::size_t>(g.split)];
    EXPECT_DOUBLE_EQ(g.write_bytes, 4.0 * 5 * 7 * 8 / static_cast<double>(e) * static_cast<double>((e + 2) / 3));
  }
}

TEST(Resident, GroupsCompeteWhereWritesAreDearOrLimitedAndWinByTime) {
  // The CCD terms: four statements into r2. On the machine (writes 20x dearer than reads,
  // 32 MB) the group writes r2's share once and is faster than the store's plans.
  const ir::Program p = fixtures::example_program("ccd_terms.tce");
  const Machine dear = machine(32e6, 2e9, 100e6);
  const PlanOptions automatic;
  std::vector<ResidentGroup> g = plan_resident(p, dear, automatic, store_of(p, dear, automatic));
  ASSERT_EQ(g.size(), 1u);
  ASSERT_TRUE(g[0].considered && g[0].feasible) << g[0].reason;
  EXPECT_TRUE(g[0].chosen);
  EXPECT_DOUBLE_EQ(g[0].write_bytes, g[0].share_bytes);
  EXPECT_DOUBLE_EQ(g[0].share_bytes, 40.0 * 40 * 10 * 10 * 8 / 4);
  EXPECT_LT(g[0].time_s, g[0].store_time_s);
  EXPECT_GE(g[0].store_write_bytes, 4 * g[0].share_bytes);
  // Plans follow it: every statement is a step of the group, the last writes r2.
  const std::vector<StatementPlan> plans = plan_program(p, dear, automatic);
  ASSERT_EQ(plans.size(), 4u);
  for (const StatementPlan& sp : plans) ASSERT_TRUE(sp.resident.has_value());
  EXPECT_TRUE(plans.front().resident->first && plans.back().resident->last);
  // Symmetric disks: not considered unless asked for (on, or --max-writes); off: never; a
  // forced method: not in auto.
  const Machine even = machine(32e6, 2e9, 2e9);
  EXPECT_FALSE(plan_resident(p, even, automatic, store_of(p, even, automatic))[0].considered);
  PlanOptions on;
  on.resident = ResidentMode::On;
  EXPECT_TRUE(plan_resident(p, even, on, store_of(p, even, on))[0].considered);
  PlanOptions limited;
  limited.max_writes = 1;
  g = plan_resident(p, even, limited, store_of(p, even, limited));
  EXPECT_TRUE(g[0].considered && g[0].chosen);  // the store's plans write r2's share 4 times
  PlanOptions off;
  off.resident = ResidentMode::Off;
  EXPECT_FALSE(plan_resident(p, dear, off, store_of(p, dear, off))[0].considered);
  PlanOptions forced;
  forced.force_method = "cosma";
  EXPECT_FALSE(plan_resident(p, dear, forced, store_of(p, dear, forced))[0].considered);
}

TEST(Resident, TheReportSaysWhatTheGroupWritesAndThatTheHandOffIsNotRun) {
  const ir::Program p = fixtures::example_program("ccd_terms.tce");
  const ReportOptions options;
  const std::string text = dry_run_text(make_plan(p, machine(32e6, 2e9, 100e6), options));
  EXPECT_NE(text.find("  r2, lines 14-17 (4 statements): split along r2's dimension "), std::string::npos) << text;
  EXPECT_NE(text.find("writes per rank 320 KB against its share 320 KB, 1.000x (through the store"), std::string::npos)
      << text;
  EXPECT_NE(text.find("writes per rank over the program with resident accumulation: 320 KB against the outputs' "
                      "share 320 KB, 1.000x"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("MODEL ONLY: the generated program runs resident accumulation"), std::string::npos) << text;
  const nlohmann::json j = dry_run_json(make_plan(p, machine(32e6, 2e9, 100e6), options));
  ASSERT_EQ(j.at("resident").size(), 1u);
  EXPECT_EQ(j["resident"][0]["tensor"], "r2");
  EXPECT_EQ(j["resident"][0]["chosen"], true);
  EXPECT_DOUBLE_EQ(j["resident_program_writes"]["ratio"].get<double>(), 1.0);
  EXPECT_EQ(j["handoff"]["model_only"], true);
  // Where groups do not compete the report has no such section (the goldens stay as they were).
  EXPECT_FALSE(dry_run_json(make_plan(p, machine(32e6, 2e9, 2e9), options)).contains("resident"));
}

}  // namespace
}  // namespace tcec::costmodel

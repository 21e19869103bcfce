// costmodel/methods/tbs/tbs_report.cpp — tbs's report (method_report.h), its parts of the dry-run
// report (text and JSON): the symmetric-result note, its row, the "chosen:" line and the plan
// section with the SYRK lower bound of Beaumont et al. (SPAA'22) Corollary 4.7.
#include <algorithm>

#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/methods/tbs/tbs_method.h"

namespace tcec::costmodel {

namespace {

/// "229 blocks (43 diagonal leaves), up to 5 tile rows each", with ", 12 streamed panels" when
/// the plan streams.
std::string family_text(const TbsSchedule& s) {
  std::size_t leaves = 0, widest = 0, streams = 0;
  for (const TbsBlock& b : s.blocks) {
    if (b.stream) {
      ++streams;
      continue;
    }
    leaves += b.diagonal ? 1 : 0, widest = std::max(widest, b.starts.size());
  }
  const std::size_t triangles = s.blocks.size() - streams;
  return fmt::format("{} block{} ({} diagonal lea{}), up to {} tile rows each{}", triangles, triangles == 1 ? "" : "s",
                     leaves, leaves == 1 ? "f" : "ves", widest,
                     streams > 0 ? fmt::format(", {} streamed panel{}", streams, streams == 1 ? "" : "s") : "");
}

/// The SYRK bound per rank of the analysed contraction, bytes.
double syrk_bound_bytes(const ContractionAnalysis& a, const Machine& machine) {
  return syrk_lower_bound_words(a.problem.I, a.problem.K, static_cast<double>(machine.processors),
                                machine.memory_bytes / machine.element_size_bytes) *
         machine.element_size_bytes;
}

double most(const std::vector<std::uint64_t>& v) {
  return v.empty() ? 0.0 : static_cast<double>(*std::max_element(v.begin(), v.end()));
}

/// The tbs plan among the analysis's plans (null when none is feasible).
const PlannedCandidate* tbs_candidate(const ContractionAnalysis& a) {
  for (const Candidate& c : a.candidates)
    if (c.plan.feasible && tbs_method().codec.owns(c.plan.plan)) return &c.plan;
  return nullptr;
}

}  // namespace

std::string TbsReport::analysis_note(const ContractionAnalysis& a) const {
  if (!a.gemm.symmetric) return {};
  const TbsDetail* d = a.detail<TbsDetail>(tbs_method());
  return fmt::format(
      "  symmetric result: C[I,J] = C[J,I] (C = A(I,K)·A(J,K)ᵀ: one tensor, I and J at the same "
      "positions){}\n",
      d && !d->applies ? fmt::format("; tbs not used: {}", d->reason) : std::string());
}

std::string TbsReport::row_text(const ModelPoint& p, const ContractionAnalysis& a) const {
  const PlannedCandidate* pc = tbs_candidate(a);
  const std::string what =
      pc ? fmt::format("{}, panels of {} K columns", family_text(tbs_schedule(pc->plan)), tbs_plan(pc->plan).chunk)
         : std::string("triangle blocks");
  return exact_row_text(p, row_name(p), what);
}

nlohmann::json TbsReport::row_json(const ModelPoint& p, const ContractionAnalysis&) const {
  return exact_row_json(p, "tbs");
}

std::string TbsReport::choice_name(const ModelPoint&, const Plan&) const {
  return "tbs (triangle blocks, Beaumont et al. SPAA'22 §5.1)";
}

void TbsReport::analysis_json(const ContractionAnalysis& a, nlohmann::json& j) const {
  j["symmetric"] = a.gemm.symmetric;
  const TbsDetail* d = a.detail<TbsDetail>(tbs_method());
  if (a.gemm.symmetric && d) j["tbs"] = {{"applies", d->applies}, {"reason", d->reason}};
}

std::string TbsReport::plan_section(const ContractionAnalysis& a, const Machine& machine) const {
  const Plan& p = a.plan().plan;
  const PlanVolumes& v = a.plan().volumes;
  const TbsSchedule s = tbs_schedule(p);
  std::string out = fmt::format("  plan: {}\n", p.to_string());
  std::vector<std::uint64_t> blocks(static_cast<std::size_t>(p.processors), 0);
  for (const TbsBlock& b : s.blocks) ++blocks[static_cast<std::size_t>(b.rank)];
  out += fmt::format(
      "    triangle blocks (Beaumont et al. §5.1, Algorithm 4 tiled, uneven tiles): {}; C blocks of up "
      "to {} elements, A panels of {} rows x {} K columns; blocks per rank {}\n",
      family_text(s), s.block_elements, s.panel_rows, tbs_plan(p).chunk, range_text(blocks));
  out += fmt::format("    memory per rank: {} (split {})\n", memory_text(plan_memory(p, machine), machine),
                     split_name(p.split));
  out += per_rank_text(v);
  out += fmt::format(
      "    predicted {:.5g} s (disk, exact schedule; no network: each rank reads its blocks' rows of A)\n", v.time_s);
  out += wall_text(a, machine);
  const double syrk = syrk_bound_bytes(a, machine), reads = most(v.disk_read_bytes);
  double traffic = 0;
  for (std::size_t q = 0; q < v.disk_read_bytes.size(); ++q)
    traffic = std::max(traffic, static_cast<double>(v.disk_read_bytes[q] + v.disk_write_bytes[q]));
  out += fmt::format(
      "    SYRK lower bound per rank (Beaumont et al. Corollary 4.7 over P ranks: N²M/(√2·P·√S) loads "
      "and stores, at least N·M/P): {}; the plan reads {} of A on its fullest rank, {:.3f}x, and "
      "reads and writes {}, {:.3f}x; a general product's bound (COSMA Theorem 1) is {}\n",
      human_bytes(syrk), human_bytes(reads), reads / syrk, human_bytes(traffic), traffic / syrk,
      human_bytes(a.lower_bound_bytes_per_rank));
  return out;
}

void TbsReport::plan_json(const ContractionAnalysis& a, const Machine& machine, nlohmann::json& j) const {
  const Plan& p = a.plan().plan;
  const TbsSchedule s = tbs_schedule(p);
  j["comm"] = "inside";
  j["algorithm"] = "tbs";
  j["order"] = "-";
  j["blocks"] = s.blocks.size();
  j["block_words"] = tbs_plan(p).block_words;
  j["chunk"] = tbs_plan(p).chunk;
  j["panel_rows"] = s.panel_rows;
  j["block_elements"] = s.block_elements;
  const double syrk = syrk_bound_bytes(a, machine);
  j["syrk_lower_bound_bytes"] = syrk;
  j["syrk_bound_ratio"] = most(a.plan().volumes.disk_read_bytes) / syrk;
}

}  // namespace tcec::costmodel

// costmodel/methods/tbs/tbs_method.h — (private) TBS, the triangle-block SYRK of Beaumont et
// al. (SPAA'22, seed 001, §5.1), as the registry's three parts (method.h) for symmetric contractions
// C(I,J) = alpha·A(I,K)·A(J,K)ᵀ (ir MacroIndexGemm::symmetric): its plan part is a TbsPlan, its
// schedule the family of family.h, which the runtime runs block for block (runtime/spec/tbs_spec.h).
// Model: tbs_model.cpp (analysis, buffers) and tbs_volumes.cpp (volumes, requests, the walk);
// plan codec: tbs_codec.cpp; report: tbs_report.cpp; the registry entry: tbs_method.cpp.
#pragma once

#include "costmodel/method_model.h"
#include "costmodel/method_report.h"
#include "costmodel/methods/tbs/family.h"
#include "costmodel/plan_codec.h"

namespace tcec::costmodel {

// tbs_plan() and tbs_schedule(plan), the plan's family dealt to its ranks:
// costmodel/schedules.h.

/// Per rank of a tbs plan (elements): A rows × |K| read, C elements written, multiply-adds.
struct TbsRankWork {
  std::uint64_t read = 0, written = 0;
  double multiply_adds = 0;
  std::int64_t blocks = 0;
};
std::vector<TbsRankWork> tbs_rank_work(const Plan& plan, const TbsSchedule& s);

/// Exact disk requests per rank of `s` (runtime/spec/tbs_spec.h THE SCHEDULE: one run counter per
/// A panel, per C tile, per mirror and per diagonal square), A and C reached in their tensors'
/// files with GEMM positions stored in dimensions perm_A ([I,K]) and perm_C ([I,J]). With
/// `faults`, sets it to the estimated page faults per rank of the A panels' passes
/// (pass_runs.h PassRuns::faults()).
std::vector<std::uint64_t> tbs_requests(const Plan& plan, const TbsSchedule& s, const std::vector<int>& perm_A,
                                        const std::vector<int>& perm_C, std::vector<std::uint64_t>* faults = nullptr);

/// What tbs's analysis keeps for its report: whether the contraction is symmetric, and why
/// tbs does not apply when it is not.
struct TbsDetail final : MethodDetail {
  bool applies = false;
  std::string reason;
};

class TbsModel final : public MethodModel {
 public:
  void analyze(MethodAnalysis& ctx) const override;
  PlanVolumes volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank,
                      std::int64_t end_rank) const override;
  PlanVolumes walk(const Plan& plan, const Machine& machine) const override;
  std::vector<std::uint64_t> disk_requests(const Plan& plan, const ArrayAccess& access) const override;
  std::vector<std::uint64_t> page_faults(const Plan& plan, const ArrayAccess& access) const override;
  double rank_flops(const Plan& plan, std::int64_t rank) const override;
  double collective_factor(const Plan&, const Machine&) const override { return 1.0; }
  TileBytes tile_bytes(const Plan& plan, double element_size_bytes) const override;
  std::vector<MemoryPart> memory_parts(const Plan& plan, const TileBytes& bytes) const override;
  /// A is read from its tensor's file and C written into the result's: stages 1 and 3 move nothing.
  bool reads_operands_directly(const Plan&) const override { return true; }
  bool writes_result_directly(const Plan&) const override { return true; }
  StageElements stage_elements(const Plan& plan, std::int64_t rank) const override;
};

class TbsCodec final : public PlanCodec {
 public:
  bool owns(const Plan& plan) const override;
  void start_plan(Plan* plan) const override;
  std::string plan_text(const Plan& plan) const override;
  std::vector<std::string> fields() const override;
  bool parse_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) const override;
  bool check_valid(const Plan& plan, const Machine& machine, std::string* reason) const override;
};

class TbsReport final : public MethodReport {
 public:
  std::string row_name(const ModelPoint&) const override { return "tbs"; }
  std::string describe_row(const ModelPoint&) const override { return "triangle blocks"; }
  std::string describe_plan(const Plan&) const override { return "triangle blocks"; }
  std::string row_text(const ModelPoint& row, const ContractionAnalysis& a) const override;
  nlohmann::json row_json(const ModelPoint& row, const ContractionAnalysis& a) const override;
  std::string choice_name(const ModelPoint& row, const Plan& plan) const override;
  std::string moved_label() const override { return "A rows read"; }
  void analysis_json(const ContractionAnalysis& a, nlohmann::json& j) const override;
  /// "  symmetric result: C[I,J] = C[J,I] (…)" for a symmetric contraction, with why tbs does
  /// not plan it when it does not.
  std::string analysis_note(const ContractionAnalysis& a) const override;
  std::string plan_section(const ContractionAnalysis& a, const Machine& machine) const override;
  void plan_json(const ContractionAnalysis& a, const Machine& machine, nlohmann::json& j) const override;
};

/// The registry's tbs: no rank layout; its infeasibility is reported only when it was forced
/// (most contractions are not symmetric).
const Method& tbs_method();

}  // namespace tcec::costmodel

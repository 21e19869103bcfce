// costmodel/methods/sfc/sfc_method.h — (private) sfc, C's tiles along a generalized Hilbert
// curve (Georganas et al., seed 002), as the registry's three parts (method.h): every rank walks
// its contiguous segment of the curve with an LRU cache of A and B panels, reading what it lacks
// straight from the operands' tensors and writing its tiles into C's file; any P, no idle rank. With
// replication c > 1 along K (2.5D) the ranks form c layers over K's shares and reduce each tile
// over the network (c = 1: no network). Its schedule and counts are sfc_walk.h's; the plans tried:
// sfc_candidates.h; model: sfc_model.cpp; plan codec: sfc_codec.cpp; report: sfc_report.cpp;
// the registry entry: sfc_method.cpp.
#pragma once

#include "costmodel/method_model.h"
#include "costmodel/method_report.h"
#include "costmodel/methods/sfc/sfc_walk.h"
#include "costmodel/plan_codec.h"

namespace tcec::costmodel {

class SfcModel final : public MethodModel {
 public:
  void analyze(MethodAnalysis& ctx) const override;
  PlanVolumes volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank,
                      std::int64_t end_rank) const override;
  PlanVolumes walk(const Plan& plan, const Machine& machine) const override;
  std::vector<std::uint64_t> disk_requests(const Plan& plan, const ArrayAccess& access) const override;
  std::vector<std::uint64_t> page_faults(const Plan& plan, const ArrayAccess& access) const override;
  double rank_flops(const Plan& plan, std::int64_t rank) const override;
  double kernel_efficiency(const Plan& plan, const Machine& machine, std::int64_t rank) const override;
  double collective_factor(const Plan&, const Machine&) const override { return 1.0; }
  TileBytes tile_bytes(const Plan& plan, double element_size_bytes) const override;
  std::vector<MemoryPart> memory_parts(const Plan& plan, const TileBytes& bytes) const override;
  /// A and B panels come from their tensors' files, C's tiles go into the result's file.
  bool reads_operands_directly(const Plan&) const override { return true; }
  bool writes_result_directly(const Plan&) const override { return true; }
  StageElements stage_elements(const Plan& plan, std::int64_t rank) const override;
};

class SfcCodec final : public PlanCodec {
 public:
  bool owns(const Plan& plan) const override;
  void start_plan(Plan* plan) const override;
  std::string plan_text(const Plan& plan) const override;
  std::vector<std::string> fields() const override;
  bool parse_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) const override;
  bool check_valid(const Plan& plan, const Machine& machine, std::string* reason) const override;
};

class SfcReport final : public MethodReport {
 public:
  std::string row_name(const ModelPoint&) const override { return "sfc"; }
  std::string describe_row(const ModelPoint&) const override { return "space-filling curve"; }
  std::string describe_plan(const Plan&) const override { return "space-filling curve"; }
  std::string row_text(const ModelPoint& row, const ContractionAnalysis& a) const override;
  nlohmann::json row_json(const ModelPoint& row, const ContractionAnalysis& a) const override;
  std::string choice_name(const ModelPoint& row, const Plan& plan) const override;
  std::string plan_section(const ContractionAnalysis& a, const Machine& machine) const override;
  void plan_json(const ContractionAnalysis& a, const Machine& machine, nlohmann::json& j) const override;
};

/// The registry's sfc: no rank layout; its infeasibility is reported only when it was forced.
const Method& sfc_method();

}  // namespace tcec::costmodel

// costmodel/methods/cosma/cosma_method.h — (private) COSMA as the registry's three parts
// (method.h): its plan part is a CosmaGrid, its schedule and exact volumes are those of cosma.h
// (model: cosma_model.cpp; plan codec: cosma_codec.cpp; report: cosma_report.cpp; the
// registry entry: cosma_method.cpp).
#pragma once

#include "costmodel/method_model.h"
#include "costmodel/method_report.h"
#include "costmodel/methods/cosma/cosma.h"
#include "costmodel/plan_codec.h"

namespace tcec::costmodel {

/// The cosma part of `plan`. Precondition: plan.method holds a CosmaGrid.
inline const CosmaGrid& cosma_grid(const Plan& plan) { return std::get<CosmaGrid>(plan.method); }

/// What cosma's analysis keeps for its report: the strategy fitted to the contraction.
struct CosmaDetail final : MethodDetail {
  CosmaStrategy strategy;
};

class CosmaModel final : public MethodModel {
 public:
  void analyze(MethodAnalysis& ctx) const override;
  PlanVolumes volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank,
                      std::int64_t end_rank) const override;
  PlanVolumes walk(const Plan& plan, const Machine& machine) const override;
  std::vector<std::uint64_t> disk_requests(const Plan& plan, const ArrayAccess& access) const override;
  double rank_flops(const Plan& plan, std::int64_t rank) const override;
  double kernel_efficiency(const Plan& plan, const Machine& machine, std::int64_t rank) const override;
  double collective_factor(const Plan&, const Machine&) const override { return 1.0; }
  TileBytes tile_bytes(const Plan& plan, double element_size_bytes) const override;
  std::vector<MemoryPart> memory_parts(const Plan& plan, const TileBytes& bytes) const override;
  StageElements stage_elements(const Plan& plan, std::int64_t rank) const override;
  /// Stage 1: each operand's own pieces of every slice read from its file in one pass (runs of
  /// adjacent elements), the streamed rounds' pieces written in 2^16-element chunks; C's start
  /// values read into the block on ranks (x, y, 0); stage 3: the reduced piece written in one
  /// pass (runtime/methods/cosma/cosma.cpp load() and finish()).
  std::vector<std::uint64_t> stage_requests(const Plan& plan, const StageAccess& access) const override;
  double resident_bytes(const Plan& plan, std::int64_t rank, double element_size_bytes) const override;
};

class CosmaCodec final : public PlanCodec {
 public:
  bool owns(const Plan& plan) const override;
  void start_plan(Plan* plan) const override;
  std::string plan_text(const Plan& plan) const override;
  std::vector<std::string> fields() const override;
  bool parse_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) const override;
  bool check_valid(const Plan& plan, const Machine& machine, std::string* reason) const override;
};

class CosmaReport final : public MethodReport {
 public:
  std::string row_name(const ModelPoint&) const override { return "cosma"; }
  std::string describe_row(const ModelPoint&) const override { return "cosma"; }
  std::string describe_plan(const Plan&) const override { return "cosma"; }
  std::string row_text(const ModelPoint& row, const ContractionAnalysis& a) const override;
  nlohmann::json row_json(const ModelPoint& row, const ContractionAnalysis& a) const override;
  std::string choice_name(const ModelPoint& row, const Plan& plan) const override;
  void chosen_json(const ContractionAnalysis& a, nlohmann::json& chosen) const override;
  std::string moved_label() const override { return "own pieces read"; }
  void analysis_json(const ContractionAnalysis& a, nlohmann::json& j) const override;
  std::string plan_section(const ContractionAnalysis& a, const Machine& machine) const override;
  void plan_json(const ContractionAnalysis& a, const Machine& machine, nlohmann::json& j) const override;

 private:
  /// Why cosma wins, e.g. "cosma: 16.32 s vs best Gao method inside replication-A (CAB)
  /// 18.553 s (2.29x less communication: 64 MB vs 146 MB received per rank)", from the model
  /// rows (`plans` false) or the exact plans (`plans` true). Empty when cosma is not chosen.
  std::string why(const ContractionAnalysis& a, bool plans) const;
  /// The strategy the analysis fitted.
  const CosmaStrategy& strategy(const ContractionAnalysis& a) const;
};

/// The registry's cosma: its blocked layout (contiguous pieces of row-major slices) is not a
/// TensorLayout, and its infeasibility (a grid that does not fit) is reported only when forced.
const Method& cosma_method();

}  // namespace tcec::costmodel

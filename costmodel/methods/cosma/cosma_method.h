// costmodel/methods/cosma/cosma_method.h — (private) COSMA as a Method (method.h): its plan
// part is a CosmaGrid, its schedule and exact volumes are those of cosma.h
// (cosma_method.cpp, cosma_report.cpp).
#pragma once

#include "costmodel/method.h"
#include "costmodel/methods/cosma/cosma.h"

namespace tcec::costmodel {

/// The cosma part of `plan`. Precondition: plan.method holds a CosmaGrid.
inline const CosmaGrid& cosma_grid(const Plan& plan) { return std::get<CosmaGrid>(plan.method); }

/// What cosma's analysis keeps for its report: the strategy fitted to the contraction.
struct CosmaDetail final : MethodDetail {
  CosmaStrategy strategy;
};

class CosmaMethod final : public Method {
 public:
  std::string name() const override { return "cosma"; }
  std::string family() const override { return "cosma"; }
  bool has_order() const override { return false; }
  /// Its blocked layout (contiguous pieces of row-major slices) is not a TensorLayout.
  bool has_layout() const override { return false; }
  bool owns(const Plan& plan) const override;
  /// Its infeasibility (a grid that does not fit) is reported only when it was forced.
  bool states_infeasibility() const override { return false; }

  void analyze(MethodAnalysis& ctx) const override;

  void start_plan(Plan* plan) const override;
  std::string plan_text(const Plan& plan) const override;
  std::vector<std::string> fields() const override;
  bool parse_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) const override;
  bool check_valid(const Plan& plan, const Machine& machine, std::string* reason) const override;
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

/// The registry's cosma.
const Method& cosma_method();

}  // namespace tcec::costmodel

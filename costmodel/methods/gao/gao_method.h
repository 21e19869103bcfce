// costmodel/methods/gao/gao_method.h — (private) one of the six methods of Gao et al., a
// communication method × parallel algorithm, as the registry's three parts (method.h): its
// model (closed-form model optima over the six disk placement orders, and both broadcast
// operands for replication; integer plans, volumes, walk: gao_model.cpp), its plan codec
// (gao_codec.cpp) and its report (gao_report.cpp). The registry entries: gao_method.cpp.
#pragma once

#include "costmodel/method_model.h"
#include "costmodel/method_report.h"
#include "costmodel/plan_codec.h"

namespace tcec::costmodel {

class GaoModel final : public MethodModel {
 public:
  GaoModel(Communication comm, Algorithm algorithm) : comm_(comm), algorithm_(algorithm) {}

  void analyze(MethodAnalysis& ctx) const override;
  PlanVolumes volumes(const Plan& plan, const Machine& machine, std::int64_t first_rank,
                      std::int64_t end_rank) const override;
  PlanVolumes walk(const Plan& plan, const Machine& machine) const override;
  std::vector<std::uint64_t> disk_requests(const Plan& plan, const ArrayAccess& access) const override;
  double rank_flops(const Plan& plan, std::int64_t rank) const override;
  double kernel_efficiency(const Plan& plan, const Machine& machine, std::int64_t rank) const override;
  int buffer_sets(const Plan& plan) const override;
  double collective_factor(const Plan& plan, const Machine& machine) const override;
  TileBytes tile_bytes(const Plan& plan, double element_size_bytes) const override;
  std::vector<MemoryPart> memory_parts(const Plan& plan, const TileBytes& bytes) const override;
  /// The inside methods read their own parts' tiles only, so straight from the tensors; the
  /// outside methods move their operands' files disk to disk and need the tiled copies.
  bool reads_operands_directly(const Plan& plan) const override;
  /// All but outside accumulation, whose partial C files are summed disk to disk.
  bool writes_result_directly(const Plan& plan) const override;
  StageElements stage_elements(const Plan& plan, std::int64_t rank) const override;
  std::vector<std::uint64_t> stage_requests(const Plan& plan, const StageAccess& access) const override;
  TensorLayout layout(const Plan& plan, GemmArray array, const std::vector<std::string>& names) const override {
    return grid_layout(plan, array, names);
  }

 private:
  Communication comm_;
  Algorithm algorithm_;
};

class GaoCodec final : public PlanCodec {
 public:
  GaoCodec(Communication comm, Algorithm algorithm) : comm_(comm), algorithm_(algorithm) {}

  bool owns(const Plan& plan) const override;
  void start_plan(Plan* plan) const override;
  std::string plan_text(const Plan& plan) const override;
  std::vector<std::string> fields() const override;
  bool parse_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) const override;
  bool check_valid(const Plan& plan, const Machine& machine, std::string* reason) const override;

 private:
  Communication comm_;
  Algorithm algorithm_;
};

class GaoReport final : public MethodReport {
 public:
  GaoReport(Communication comm, Algorithm algorithm) : comm_(comm), algorithm_(algorithm) {}

  std::string row_name(const ModelPoint& row) const override;
  std::string describe_row(const ModelPoint& row) const override;
  std::string describe_plan(const Plan& plan) const override;
  std::string row_text(const ModelPoint& row, const ContractionAnalysis& a) const override;
  nlohmann::json row_json(const ModelPoint& row, const ContractionAnalysis& a) const override;
  std::string choice_name(const ModelPoint& row, const Plan& plan) const override;
  std::string plan_section(const ContractionAnalysis& a, const Machine& machine) const override;
  void plan_json(const ContractionAnalysis& a, const Machine& machine, nlohmann::json& j) const override;

 private:
  Communication comm_;
  Algorithm algorithm_;
};

}  // namespace tcec::costmodel

// costmodel/method_report.h — (private) a method's part of the dry-run report (method.h): its
// rows of the methods table, how sentences and the "chosen:" line name its rows and plans, its
// plan section, and its JSON keys. The report (report/) assembles them.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "costmodel/model.h"
#include "costmodel/plan.h"

namespace tcec::costmodel {

struct ContractionAnalysis;

/// The report of a method. Stateless; one instance per method. The functions taking the
/// analysis's chosen plan are called only when it is this method's.
class MethodReport {
 public:
  virtual ~MethodReport() = default;

  /// The row's method as the table prints it ("inside replication-A", …).
  virtual std::string row_name(const ModelPoint& row) const = 0;
  /// The row or plan in a sentence: "method inside replication-A (CAB)", "plan inside-replication (CAB)".
  virtual std::string describe_row(const ModelPoint& row) const = 0;
  virtual std::string describe_plan(const Plan& plan) const = 0;
  /// A feasible row of the methods table, with its line end.
  virtual std::string row_text(const ModelPoint& row, const ContractionAnalysis& a) const = 0;
  /// A row as JSON (feasible or not).
  virtual nlohmann::json row_json(const ModelPoint& row, const ContractionAnalysis& a) const = 0;
  /// How the report's "chosen:" line names a plan of this method with candidate row `row`, e.g.
  /// "inside replication-B, order CAB" or "cosma, grid 2x2x1 (0 idle), 8 rounds".
  virtual std::string choice_name(const ModelPoint& row, const Plan& plan) const = 0;
  /// Keys added to the JSON "chosen" row when the chosen plan is this method's; default none.
  virtual void chosen_json(const ContractionAnalysis& /*a*/, nlohmann::json& /*chosen*/) const {}
  /// What the lower-bound line calls the reads of the chosen plan's method ("disk reads"; the
  /// line counts its exact moved_bytes(): reads, V and writes, as Theorem 1 counts loads and stores).
  virtual std::string moved_label() const { return "disk reads"; }
  /// Keys this method adds to every contraction's JSON (whether chosen or not); default none.
  virtual void analysis_json(const ContractionAnalysis& /*a*/, nlohmann::json& /*j*/) const {}
  /// Lines the report prints above the methods table about the contraction as this method sees
  /// it (e.g. tbs: "  symmetric result: C[I,J] = C[J,I] …"), each with its line end; default none.
  virtual std::string analysis_note(const ContractionAnalysis& /*a*/) const { return {}; }
  /// The plan section of the text report for the chosen plan (its plan: line and details;
  /// the redistribution line follows).
  virtual std::string plan_section(const ContractionAnalysis& a, const Machine& machine) const = 0;
  /// The method's keys of the JSON "plan" object (comm, algorithm, order, …) for the chosen plan.
  virtual void plan_json(const ContractionAnalysis& a, const Machine& machine, nlohmann::json& j) const = 0;
};

}  // namespace tcec::costmodel

// costmodel/method.h — (private) the registry of the cost model's parallel methods: each method's
// identity and its three parts, each an interface with one job (docs/architecture.md, "The
// method interface"):
//   model   MethodModel (method_model.h): its rows and candidates (analysis), exact volumes,
//           times, memory, stages 1 and 3, rank layout;
//   codec   PlanCodec (plan_codec.h): its part of Plan, the plan text, validity;
//   report  MethodReport (method_report.h): its lines and JSON in the dry-run report.
// Callers take the part they need (model_of(), codec_of(), report_of()); nothing outside a
// method's own files (methods/<name>/) names a method.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "costmodel/plan.h"
#include "costmodel/program/layout.h"

namespace tcec::costmodel {

class MethodModel;
class PlanCodec;
class MethodReport;

/// A parallel method of the cost model as the registry lists it: one communication and
/// computation schedule for the macro-index GEMM C(I,J) += A(I,K)·B(J,K). One instance per
/// method (methods/<name>/<name>_method.cpp); its parts are stateless.
struct Method {
  /// The name --force-method takes and a plan's text starts with ("inside-rotation", …).
  std::string name;
  /// The family the report compares a chosen method against ("Gao": the six of Gao et al.).
  /// A family's plans share one alternative of Plan::method.
  std::string family;
  /// The method runs a tiled loop nest with a disk placement order (--force-order).
  bool has_order = false;
  /// Its arrays lie on the ranks in a TensorLayout (program/layout.h plan_layout()), so that
  /// declared distributions and the sequence hand-off apply to its plans.
  bool has_layout = false;
  /// When no plan is feasible: its reason is reported even when the method was not forced
  /// (false: only with --force-method NAME).
  bool states_infeasibility = true;
  const MethodModel& model;
  const PlanCodec& codec;
  const MethodReport& report;
};

/// Every method, in the order the report lists them (methods/registry.cpp).
const std::vector<const Method*>& methods();
/// The method whose name is `name`; null when none.
const Method* find_method(std::string_view name);
/// The method of `plan` (the one whose codec owns it). Precondition: some method owns it
/// (every Plan built by a method does); otherwise throws std::logic_error.
const Method& method_of(const Plan& plan);
/// The parts of the method of `plan` (method_of()).
const MethodModel& model_of(const Plan& plan);
const PlanCodec& codec_of(const Plan& plan);
const MethodReport& report_of(const Plan& plan);

/// Whether the plan's compute stage works on C in the result's file (MethodModel::writes_result_directly())
/// given where C's values come from and go (`declared`: a declared or kept C, C's start taken
/// from the ranks, or a result that stays there rule it out; null: none).
bool writes_result_directly(const Plan& plan, const DeclaredLayouts* declared);

}  // namespace tcec::costmodel

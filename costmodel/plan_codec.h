// costmodel/plan_codec.h — (private) a method's plan codec (method.h): its part of Plan
// (methods/plans.h), the plan's one-line text both ways, and the method's validity rules.
// parse_plan() (plan_text.cpp) reads the common fields and hands the method's to it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "costmodel/model.h"
#include "costmodel/plan.h"

namespace tcec::costmodel {

/// The plan codec of a method. Stateless; one instance per method.
class PlanCodec {
 public:
  virtual ~PlanCodec() = default;

  /// True when `plan` (its Plan::method part and any fields within it) is this method's.
  virtual bool owns(const Plan& plan) const = 0;
  /// Sets plan->method to this method's part with default values (parse_plan()).
  virtual void start_plan(Plan* plan) const = 0;
  /// The plan's one-line text, starting with the method's name (Plan::to_string()).
  virtual std::string plan_text(const Plan& plan) const = 0;
  /// The keys of its plan text besides the common "P", "C0" and "split" ("order", "bcast", …).
  virtual std::vector<std::string> fields() const = 0;
  /// Applies one KEY=VALUE of the plan text, KEY one of fields(); false with *error naming
  /// the field and what was expected.
  virtual bool parse_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) const = 0;
  /// The method's validity rules (P already matches the machine), buffers fitting memory
  /// included; *reason may be null (then fast, no message).
  virtual bool check_valid(const Plan& plan, const Machine& machine, std::string* reason) const = 0;
};

}  // namespace tcec::costmodel

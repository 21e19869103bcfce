// costmodel/methods/tbs/tbs_codec.cpp — TBS's plan codec (plan_codec.h): its TbsPlan part, the
// plan text "tbs block=W chunk=KC [panel=R group=G] P=… split=…", and validity.
#include <fmt/format.h>

#include "costmodel/methods/tbs/tbs_method.h"
#include "costmodel/plan_text.h"
#include "costmodel/reasons.h"

namespace tcec::costmodel {

namespace {

using i64 = std::int64_t;

}  // namespace

bool TbsCodec::owns(const Plan& plan) const { return std::holds_alternative<TbsPlan>(plan.method); }

void TbsCodec::start_plan(Plan* plan) const { plan->method = TbsPlan{}; }

std::string TbsCodec::plan_text(const Plan& plan) const {
  const TbsPlan& t = tbs_plan(plan);
  const std::string stream = t.panel > 0 ? fmt::format(" panel={} group={}", t.panel, t.group) : std::string();
  return fmt::format("tbs block={} chunk={}{} P={} split={}", t.block_words, t.chunk, stream, plan.processors,
                     split_name(plan.split));
}

std::vector<std::string> TbsCodec::fields() const { return {"block", "chunk", "panel", "group"}; }

bool TbsCodec::parse_field(std::string_view key, std::string_view value, Plan* plan, std::string* error) const {
  TbsPlan& t = std::get<TbsPlan>(plan->method);
  i64* field = key == "block" ? &t.block_words : key == "chunk" ? &t.chunk : key == "panel" ? &t.panel : &t.group;
  if (parse_int(value, field) && *field >= 1) return true;
  *error = fmt::format("{} must be a positive integer, got '{}'", key, value);
  return false;
}

bool TbsCodec::check_valid(const Plan& plan, const Machine& machine, std::string* reason) const {
  const TbsPlan& t = tbs_plan(plan);
  const i64 n = plan.I.extent(), m = plan.K.extent();
  if (n != plan.J.extent()) {
    if (reason) *reason = reason_text(ReasonId::tbs_not_square, n, plan.J.extent());
    return false;
  }
  if (t.chunk < 1 || t.chunk > m) {
    if (reason) *reason = reason_text(ReasonId::tbs_chunk, t.chunk, m);
    return false;
  }
  if ((t.panel > 0) != (t.group > 0)) {
    if (reason) *reason = reason_text(ReasonId::tbs_stream_pair, t.panel, t.group);
    return false;
  }
  if (tbs_rows_read(t.panel > 0 ? std::min(n, t.panel) : n, t.block_words) < 0) {
    if (reason) *reason = reason_text(ReasonId::tbs_no_family_fits_blocks, n, t.block_words);
    return false;
  }
  return fits_memory_exact(plan, machine, reason);
}

}  // namespace tcec::costmodel

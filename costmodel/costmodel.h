// costmodel/costmodel.h — the public face of the cost model: machine
// conversion and the dry-run report (text and JSON).
//
// Source: Gao et al., "Compiler Techniques for Efficient Parallelization of
// Out-of-Core Tensor Contractions" (seed 003), with the corrections of
// shared/notes/gao-model.md. Volumes are bytes, bandwidths bytes per second,
// times seconds.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "costmodel/model.h"
#include "ir/ir.h"

namespace tcec::costmodel {

/// The cost model's view of a machine description (units unchanged: bytes, bytes/s).
Machine machine_from(const ir::MachineDesc& desc);

/// What the report shows.
struct ReportOptions {
  bool all_candidates = false;   ///< --all: every candidate, not only each method's best
};

/// The dry-run report as text: per statement its source, the macro-index
/// form, sizes and flops (and, with a machine, the plan choice).
std::string dry_run_text(const ir::Program& program, const std::optional<Machine>& machine,
                         const ReportOptions& options);

/// The same as JSON (schema in README.md, "Dry-run JSON").
nlohmann::json dry_run_json(const ir::Program& program, const std::optional<Machine>& machine,
                            const ReportOptions& options);

}  // namespace tcec::costmodel

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

/// The same as JSON: {"file", "machine" (bytes, bytes/s; null without a machine),
/// "contractions": [{"statement", "line", "I", "J", "K", "extents", "elements",
/// "bytes", "flops", "permutation", and with a machine "methods" (six entries:
/// comm, algorithm, feasible, reason, order, case, model_time_s, model_disk_bytes,
/// model_comm_bytes, tiles), "chosen", "lower_bound_bytes_per_rank"}], "copies"}.
/// The schema of the cost-model issue; `--all` adds "candidates".
nlohmann::json dry_run_json(const ir::Program& program, const std::optional<Machine>& machine,
                            const ReportOptions& options);

}  // namespace tcec::costmodel

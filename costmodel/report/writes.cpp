// costmodel/report/writes.cpp — write_report(): a plan's writes and reads per rank against their
// lower bounds (Carson et al., "Write-Avoiding Algorithms", seed 004), and the price of
// --max-writes.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/costmodel.h"

namespace tcec::costmodel {

namespace {

/// The largest over ranks of Σ of the vectors' entries at that rank (bytes).
double fullest(const std::vector<std::uint64_t>& compute, const std::vector<std::uint64_t>& stages) {
  double most = 0;
  for (std::size_t q = 0; q < compute.size(); ++q)
    most = std::max(most, static_cast<double>(compute[q]) + (q < stages.size() ? static_cast<double>(stages[q]) : 0.0));
  return most;
}

}  // namespace

double plan_write_bytes(const PlannedCandidate& pc) {
  return fullest(pc.volumes.disk_write_bytes, pc.redistribution.disk_write_bytes);
}

WriteReport write_report(const ContractionAnalysis& a, const Machine& machine) {
  WriteReport w;
  const IoBound b = io_bound(a, machine);
  w.write_bytes = plan_write_bytes(a.plan());
  // Carson et al. §II: the output must reside in slow memory at the end, so it is written once.
  w.write_bound_bytes = b.compulsory_write_bytes;
  w.read_bytes = fullest(a.plan().volumes.disk_read_bytes, a.plan().redistribution.disk_read_bytes);
  w.read_bound_bytes = b.compulsory_read_bytes;
  w.max_writes = a.max_writes;
  w.unconstrained_s = a.unconstrained_s;
  w.plan_s = a.plan().total_s();
  return w;
}

std::string write_text(const WriteReport& w) {
  std::string out = fmt::format(
      "    writes per rank: {} against the write lower bound {} (the result's share, |C|/P), {:.3f}x; reads {} "
      "against {} (each operand's share once), {:.3f}x",
      human_bytes(w.write_bytes), human_bytes(w.write_bound_bytes), w.write_bytes / w.write_bound_bytes,
      human_bytes(w.read_bytes), human_bytes(w.read_bound_bytes), w.read_bytes / w.read_bound_bytes);
  if (w.max_writes > 0 && std::isfinite(w.unconstrained_s))
    out += fmt::format("; --max-writes {:g}: {:.5g} s against {:.5g} s without the limit ({:+.1f}%)", w.max_writes,
                       w.plan_s, w.unconstrained_s, 100.0 * (w.plan_s / w.unconstrained_s - 1));
  return out + "\n";
}

nlohmann::json write_json(const WriteReport& w) {
  nlohmann::json j = {{"write_bytes", w.write_bytes},
                      {"write_bound_bytes", w.write_bound_bytes},
                      {"write_ratio", w.write_bytes / w.write_bound_bytes},
                      {"read_bytes", w.read_bytes},
                      {"read_bound_bytes", w.read_bound_bytes},
                      {"read_ratio", w.read_bytes / w.read_bound_bytes}};
  if (w.max_writes > 0) j.update({{"max_writes", w.max_writes}, {"unconstrained_s", w.unconstrained_s}});
  return j;
}

ProgramWrites program_writes(const ir::Program& program, const Machine& machine,
                             const std::vector<std::optional<ContractionAnalysis>>& analyses) {
  std::vector<double> per_rank(static_cast<std::size_t>(machine.processors), 0.0);
  auto add = [&](const std::vector<std::uint64_t>& v) {
    for (std::size_t q = 0; q < v.size() && q < per_rank.size(); ++q) per_rank[q] += static_cast<double>(v[q]);
  };
  for (std::size_t i = 0; i < program.statements.size(); ++i) {
    if (i < analyses.size() && analyses[i]) {
      if (!analyses[i]->plan().feasible) continue;
      add(analyses[i]->plan().volumes.disk_write_bytes);
      add(analyses[i]->plan().redistribution.disk_write_bytes);
    } else if (program.statements[i].operands.size() == 1) {
      add(copy_volumes(program, program.statements[i], machine).disk_write_bytes);
    }
  }
  ProgramWrites w;
  w.write_bytes = *std::max_element(per_rank.begin(), per_rank.end());
  for (std::size_t t = 0; t < program.tensors.size(); ++t)
    if (program.tensors[t].role == ir::TensorRole::Output)
      w.bound_bytes += static_cast<double>(program.elements(static_cast<int>(t))) * machine.element_size_bytes;
  w.bound_bytes /= static_cast<double>(machine.processors);
  return w;
}

std::string program_writes_text(const ProgramWrites& w) {
  return fmt::format(
      "writes per rank over the program (through the store): {} against the outputs' share {}, {:.3f}x\n",
      human_bytes(w.write_bytes), human_bytes(w.bound_bytes), w.bound_bytes > 0 ? w.write_bytes / w.bound_bytes : 0.0);
}

nlohmann::json program_writes_json(const ProgramWrites& w) {
  return {{"write_bytes", w.write_bytes},
          {"bound_bytes", w.bound_bytes},
          {"ratio", w.bound_bytes > 0 ? w.write_bytes / w.bound_bytes : 0.0}};
}

}  // namespace tcec::costmodel

// bench/plan_bench.cpp — how long planning takes: the analysis of every
// candidate (6 methods × 6 orders × replicated operand) for each of the 48
// TCCG contractions on a 64-processor machine, against the budget of
// 50 ms per contraction. Prints milliseconds per contraction and the ratio to
// the budget (the baseline).
#include <chrono>
#include <cstdio>
#include <string>

#include "costmodel/analysis.h"
#include "frontend/frontend.h"

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : TCEC_DATA_DIR "/tccg_benchmark_48_TAPP.txt";
  auto r = tcec::frontend::parse_file(path, {{}, tcec::frontend::InputFormat::Tccg});
  if (!r.ok()) {
    std::fputs(r.diagnostics.render().c_str(), stderr);
    return 1;
  }
  tcec::costmodel::Machine m;
  m.processors = 64;
  m.memory_bytes = 64e6;
  m.network_bytes_per_s = 1e9;
  m.disk_read_bytes_per_s = m.disk_write_bytes_per_s = 200e6;
  constexpr int kRepeats = 20;
  double worst_ms = 0, total_ms = 0;
  for (const auto& s : r.program->statements) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kRepeats; ++i) tcec::costmodel::analyze(*r.program, s, m, {});
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / kRepeats;
    worst_ms = std::max(worst_ms, ms);
    total_ms += ms;
  }
  const double mean_ms = total_ms / r.program->statements.size();
  std::printf("planning, all candidates, %zu contractions: mean %.3f ms, worst %.3f ms per contraction\n",
              r.program->statements.size(), mean_ms, worst_ms);
  std::printf("ratio worst / budget (50 ms): %.4f\n", worst_ms / 50.0);
  return 0;
}

// bench/lower_bound_bench.cpp — how close the chosen plan's data movement comes
// to the COSMA lower bound (Kwasniewski et al. Theorem 1: 2·(mnk/P)/√S + mn/P
// words per rank, S = memory per rank in words) on large square products, with
// the paper's memory split (each tile a third) against the free split, side by
// side, on a machine whose disk and network bandwidths are equal. "Moved" = disk reads + bytes received in the compute stage, on the
// fullest rank. Goal (cost-model issue): within 1.15× with the free split.
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "costmodel/analysis.h"
#include "costmodel/method.h"
#include "costmodel/method_report.h"
#include "frontend/frontend.h"

namespace cm = tcec::costmodel;

int main() {
  std::printf("%-8s %4s %9s | %-46s %7s | %-46s %7s\n", "n", "P", "memory", "thirds: plan", "ratio", "optimal: plan",
              "ratio");
  for (long n : {4000L, 16000L, 64000L}) {
    for (long P : {4L, 16L, 64L}) {
      for (double memory : {24e6, 256e6}) {
        const std::string src = fmt::format(
            "range N = {};\nindex i, j, k : N;\ntensor A[N,N] input;\ntensor B[N,N] input;\n"
            "tensor C[N,N] output;\nC[i,j] += A[i,k] * B[j,k];\n",
            n);
        auto r = tcec::frontend::parse_source("square.tce", src, {});
        cm::Machine m;
        m.processors = P;
        m.memory_bytes = memory;
        // Equal disk and network bandwidths, so that the fastest plan is the one
        // that moves the fewest bytes (the bound counts both alike).
        m.network_bytes_per_s = m.disk_read_bytes_per_s = m.disk_write_bytes_per_s = 100e6;
        double ratio[2];
        std::string name[2];
        for (int split = 0; split < 2; ++split) {
          cm::PlanOptions o;
          o.split = split == 0 ? cm::MemorySplit::Thirds : cm::MemorySplit::Optimal;
          const cm::ContractionAnalysis a = cm::analyze(*r.program, r.program->statements[0], m, o);
          ratio[split] = cm::moved_bytes(a.plan().plan, a.plan().volumes, m) / a.lower_bound_bytes_per_rank;
          name[split] = cm::report_of(a.plan().plan).describe_plan(a.plan().plan);  // "plan inside-rotation (CAB)"
        }
        std::printf("%-8ld %4ld %7.0fMB | %-46s %7.3f | %-46s %7.3f\n", n, P, memory / 1e6, name[0].c_str(), ratio[0],
                    name[1].c_str(), ratio[1]);
      }
    }
  }
  return 0;
}

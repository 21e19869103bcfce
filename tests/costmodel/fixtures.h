// tests/costmodel/fixtures.h — problems and machines shared by the cost-model tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "costmodel/analysis.h"
#include "costmodel/costmodel.h"
#include "costmodel/model.h"
#include "costmodel/plan.h"
#include "frontend/frontend.h"

namespace tcec::costmodel::fixtures {

/// examples/NAME parsed (a test failure when it does not parse).
inline ir::Program example_program(const std::string& name) {
  auto r = frontend::parse_file(std::string(TCEC_SOURCE_DIR) + "/examples/" + name, {});
  EXPECT_TRUE(r.ok()) << r.diagnostics.render();
  return *r.program;
}

/// `text` parsed as a .tce file named t.tce (a test failure when it does not parse).
inline ir::Program parse_program(const std::string& text) {
  auto r = frontend::parse_source("t.tce", text, {});
  EXPECT_TRUE(r.ok()) << r.diagnostics.render();
  return *r.program;
}

/// Statement `statement` of `p` analysed on `machine` with only method `method` allowed
/// (--force-method; a test failure when the name is unknown).
inline ContractionAnalysis analyze_forced(const ir::Program& p, std::size_t statement, const Machine& machine,
                                          const std::string& method) {
  PlanOptions forced;
  EXPECT_TRUE(parse_method(method, &forced)) << method;
  return analyze(p, p.statements.at(statement), machine, forced);
}

/// C(I,J) += A(I,K)·B(J,K) with extents I, J, K and e-byte elements (sizes in bytes).
inline Problem cube(double I, double J, double K, double e = 8) { return {I, J, K, I * K * e, J * K * e, I * J * e}; }

/// Gao et al. Table 9 (docs/model.md "Reproducing Table 9"): extents 4000, 8-byte elements.
inline Problem table9_problem() { return cube(4000, 4000, 4000); }

/// Table 9's machine: P = 4, B_c = 200 MB/s, B_d = 8 MB/s, 24 MB per processor
/// (M = 8 MB per array), f_rep = √2, f_red = 1.4.
inline Machine table9_machine() {
  Machine m;
  m.processors = 4;
  m.memory_bytes = 24e6;
  m.network_bytes_per_s = 200e6;
  m.disk_read_bytes_per_s = m.disk_write_bytes_per_s = 8e6;
  m.replication_factor = std::sqrt(2.0);
  m.reduction_factor = 1.4;
  return m;
}

/// One disk bandwidth as in the paper; M = 1e6 elements (8 MB) per array.
inline Machine paper_machine(std::int64_t P, double disk_bytes_per_s, double network_bytes_per_s) {
  Machine m;
  m.processors = P;
  m.memory_bytes = 24e6;
  m.disk_read_bytes_per_s = m.disk_write_bytes_per_s = disk_bytes_per_s;
  m.network_bytes_per_s = network_bytes_per_s;
  return m;
}

/// A random macro-index group of 1 to 4 indices named prefix0, prefix1, … and a distribution
/// index prefix"d" (at a random position) of extent >= min_extent, with random uneven tile
/// counts (t2 may need resetting to 1 where the order has no second level).
inline GroupTiling random_group(std::mt19937_64& rng, const char* prefix, std::int64_t min_extent) {
  GroupTiling g;
  const int n = std::uniform_int_distribution<int>(0, 3)(rng);
  for (int i = 0; i < n; ++i) {
    IndexTiles x;
    x.name = std::string(prefix) + std::to_string(i);
    x.extent = std::uniform_int_distribution<std::int64_t>(1, 7)(rng);
    x.t1 = std::uniform_int_distribution<std::int64_t>(1, x.extent)(rng);
    x.t2 = std::uniform_int_distribution<std::int64_t>(1, x.extent / x.t1)(rng);
    g.indices.push_back(x);
  }
  // A distribution index large enough for any grid of the test, cut coarsely.
  IndexTiles d{std::string(prefix) + "d",
               std::uniform_int_distribution<std::int64_t>(min_extent, 3 * min_extent + 4)(rng), 1, 1};
  d.t1 = std::uniform_int_distribution<std::int64_t>(1, std::max<std::int64_t>(1, d.extent / (2 * min_extent)))(rng);
  g.dist = std::uniform_int_distribution<int>(0, n)(rng);
  g.indices.insert(g.indices.begin() + g.dist, d);
  return g;
}

/// The paper machine on P ranks with unlimited memory and collective factors 1.5 (f_rep) and
/// 1.25 (f_red), for tests about volumes rather than memory.
inline Machine roomy(std::int64_t P) {
  Machine m = paper_machine(P, 8e6, 200e6);
  m.memory_bytes = 1e18;
  m.replication_factor = 1.5;
  m.reduction_factor = 1.25;
  return m;
}

}  // namespace tcec::costmodel::fixtures

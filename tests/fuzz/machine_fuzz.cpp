// tests/fuzz/machine_fuzz.cpp — libFuzzer target: a machine file (`tcec --machine FILE`),
// parse_machine_source(); an accepted machine then replaces the machine of a small distributed
// program (as --machine does), so check_distributions() meets arbitrary machines. bench/fuzz.sh
// runs it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/frontend.h"
#include "fuzz_check.h"

namespace {

// Two distributed inputs and a distributed output (examples/distributed.tce without its machine).
constexpr const char* kProgram = R"(range N = 40;
index i, j, k : N;
tensor A[N,N] input;
tensor B[N,N] input;
tensor C[N,N] output;
distribute A[i,k] over (i);
distribute B[j,k] over (j, k);
distribute C[i,j] over (i) grid (4);
C[i,j] += A[i,k] * B[j,k];
)";

}  // namespace

/// One input: any bytes, as a machine file. Never crashes; aborts only on a broken fuzz_check.h rule.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string source(reinterpret_cast<const char*>(data), size);
  tcec::frontend::DiagnosticList diagnostics;
  tcec::frontend::Options options;
  options.machine = tcec::frontend::parse_machine_source(tcec::fuzz::kFile, source, diagnostics);
  tcec::fuzz::check_diagnostics(diagnostics, tcec::fuzz::kFile, source, options.machine.has_value());
  if (options.machine) {
    // Errors here are the program's (its distributions against the machine), located in it.
    const tcec::frontend::Result r = tcec::frontend::parse_source("program.tce", kProgram, options);
    tcec::fuzz::check_diagnostics(r.diagnostics, "program.tce", kProgram, r.program.has_value());
  }
  return 0;
}

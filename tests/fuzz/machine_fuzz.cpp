// tests/fuzz/machine_fuzz.cpp — libFuzzer target: a machine file (`tcec --machine FILE`),
// parse_machine_source(); an accepted machine then replaces the machine of a small distributed
// program (as --machine does in parse_source()), so check_distributions() meets arbitrary
// machines. The program is parsed once: only the machine's part runs per input. bench/fuzz.sh
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
    // As parse_source() with --machine: the program takes the machine, then its distributions
    // are checked against it; errors are the program's, located in it.
    static const tcec::ir::Program parsed = *tcec::frontend::parse_source("program.tce", kProgram, {}).program;
    tcec::ir::Program program = parsed;
    program.machine = options.machine;
    tcec::frontend::DiagnosticList checked;
    const bool ok = tcec::frontend::check_distributions(program, checked);
    tcec::fuzz::check_diagnostics(checked, "program.tce", kProgram, ok);
  }
  return 0;
}

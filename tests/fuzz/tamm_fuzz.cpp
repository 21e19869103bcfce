// tests/fuzz/tamm_fuzz.cpp — libFuzzer target: the TAMM importer's own part (`tcec --from tamm`,
// frontend/tamm/build.cpp build_program()) on arbitrary operation lists. The C++ parsing before it
// is Clang's (read_function()), so the target does not parse C++: it decodes the input bytes
// (FuzzedDataProvider) into what read_function() can return — tensor variables (parameters and
// locals over "occ", "virt", "all" or an unknown space), Scheduler operations (=, +=, -=, `= 0`,
// a coefficient, zero to three operands) and their labels (a few names, over those spaces), each
// at a line and column of a 40-line source — and builds the program over O = 4, V = 6, as
// import_tamm() does. The decoder keeps read_function()'s promises: every use names one of the
// function's tensors, `= 0` is an assignment without operands, any other operation has a tensor
// operand, coefficients are finite. Never crashes; aborts only on a broken fuzz_check.h rule (every diagnostic
// located in the source, an accepted program's IR invariants). bench/fuzz.sh runs it.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "frontend/tamm/tamm.h"
#include "fuzz_check.h"

namespace {

namespace tamm = tcec::frontend::tamm;

constexpr int kLines = 40, kColumns = 60;  // the synthetic source: kLines lines of kColumns blanks
constexpr const char* kSpaces[] = {"occ", "virt", "all", "occ", "virt", "other"};
constexpr const char* kLabels[] = {"h1", "h2", "h3", "p1", "p2", "p3", "i", "a"};
constexpr const char* kTensors[] = {"t1", "t2", "f1", "v2", "i1", "i2", "de", "r1"};

tcec::ir::SourceLocation location(FuzzedDataProvider& in) {
  return {in.ConsumeIntegralInRange(1, kLines), in.ConsumeIntegralInRange(1, kColumns)};
}

template <std::size_t N>
std::string pick(FuzzedDataProvider& in, const char* const (&names)[N]) {
  return names[in.ConsumeIntegralInRange<std::size_t>(0, N - 1)];
}

tamm::TensorUse use(FuzzedDataProvider& in, int tensors) {
  tamm::TensorUse u;
  u.tensor = in.ConsumeIntegralInRange(0, tensors - 1);  // read_function() binds every use it returns
  const int labels = in.ConsumeIntegralInRange(0, 5);
  for (int l = 0; l < labels; ++l) u.labels.push_back({pick(in, kLabels), pick(in, kSpaces), location(in)});
  u.text = "x(...)";
  u.loc = location(in);
  return u;
}

tamm::Function function_of(FuzzedDataProvider& in) {
  tamm::Function f;
  f.name = "f";
  f.loc = location(in);
  const int tensors = in.ConsumeIntegralInRange(1, 6);
  for (int t = 0; t < tensors; ++t) {
    tamm::TensorVar v{pick(in, kTensors), in.ConsumeBool(), {}, location(in)};
    if (!v.parameter) {
      const int rank = in.ConsumeIntegralInRange(0, 4);
      for (int d = 0; d < rank; ++d) v.spaces.push_back(pick(in, kSpaces));
    }
    f.tensors.push_back(std::move(v));
  }
  const int operations = in.ConsumeIntegralInRange(0, 12);
  for (int o = 0; o < operations && in.remaining_bytes() > 0; ++o) {
    tamm::Operation op;
    op.kind = static_cast<tamm::OpKind>(in.ConsumeIntegralInRange(0, 2));
    op.lhs = use(in, tensors);
    op.zero = in.ConsumeIntegralInRange(0, 7) == 0;
    if (op.zero) op.kind = tamm::OpKind::Assign;  // the reader reports `X += 0` and `X = 2`
    op.has_coefficient = in.ConsumeBool();        // finite: the reader reports the others
    op.coefficient = op.has_coefficient ? in.ConsumeFloatingPointInRange<double>(-1e6, 1e6) : 1.0;
    const int operands = op.zero ? 0 : in.ConsumeIntegralInRange(1, 3);  // a product has a tensor
    for (int k = 0; k < operands; ++k) op.operands.push_back(use(in, tensors));
    op.text = "op";
    op.loc = location(in);
    f.operations.push_back(std::move(op));
  }
  return f;
}

}  // namespace

/// One input: bytes decoded into an operation list. Never crashes; aborts only on a broken
/// fuzz_check.h rule.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const tamm::Function function = function_of(in);
  std::string source;
  for (int l = 0; l < kLines; ++l) source += std::string(kColumns - 1, ' ') + '\n';
  tcec::frontend::Result result;
  result.diagnostics.add_source(tcec::fuzz::kFile, source);
  tcec::frontend::Reporter reporter(result.diagnostics, tcec::fuzz::kFile);
  tcec::ir::Program program;
  program.file = tcec::fuzz::kFile;
  program.ranges.push_back({"O", 4, {}});
  program.ranges.push_back({"V", 6, {}});
  if (tamm::build_program(function, reporter, program)) result.program = std::move(program);
  tcec::fuzz::check_result(result, source);
  return 0;
}

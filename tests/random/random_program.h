// tests/random/random_program.h — random .tce programs and machines for the property tests
// (every plan tcec emits must pass the runtime's checks, and a sample runs end to end).
//
// A program has 1–3 ranges (extents from `Limits`), five index variables per range and 1–5
// statements. Each statement is a contraction C[I,J] op coef · A[I,K] · B[J,K] over 2–5
// distinct indices (|I|, |J|, |K| >= 0, in random orders in every tensor), or now and then a
// one-operand copy. A is an earlier result about half the time (a chain through
// intermediates), C an earlier result now and then (accumulation with `+=` / `-=`); other
// operands are fresh inputs. Results no later statement reads are outputs, the others
// intermediates. The machine: P in [1, max_processors], memory log-uniform from a few
// elements to twice the program's largest tensor, fixed network and disk bandwidths.
// Deterministic in the seed.
#pragma once

#include <cstdint>
#include <string>

namespace tcec::testing {

struct RandomLimits {
  std::int64_t max_extent = 300;  ///< extents are drawn log-uniform from [1, max_extent]
  std::int64_t max_processors = 9;
};

/// A random program with its machine block, as .tce text.
struct RandomProgram {
  std::string text;
  std::int64_t processors = 1;
};

/// The program of `seed` (same seed and limits, same text).
RandomProgram random_program(std::uint64_t seed, const RandomLimits& limits);

}  // namespace tcec::testing

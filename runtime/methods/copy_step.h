// runtime/methods/copy_step.h — a one-operand statement: out[...] op alpha · in[...], a copy or an
// addition with the indices possibly permuted (e.g. one term of an NWChem P(n) sum).
#pragma once

#include <vector>

#include "runtime/program/run.h"

namespace tcert {

/// The statement as the compiler writes it into the generated program.
struct CopySpec {
  std::string statement;  ///< source text, for messages
  TensorShape out, in;    ///< stored shapes (elements per dimension)
  /// For each stored dimension d of `out`, the stored dimension of `in` with the same index.
  std::vector<int> in_dim_of_out;
  double alpha = 1;         ///< coefficient (sign of -= folded in)
  bool accumulate = false;  ///< start from out's current version instead of zero
};

/// Runs `spec` on every rank: rank r computes the r-th balanced range of out's elements
/// (row-major) from run.input(in) — and out's current version when accumulate — and the
/// result becomes out's next version in run's store (Phase::WriteOut); or, when accumulate and
/// TensorStore::updates_in_place(out, {in}), out's latest version is updated where it is. One rank's
/// whole tensor from mapped files goes through the transposing kernel (kernel.h permute).
/// Collective. Throws Error when the shapes disagree with in_dim_of_out.
void copy_step(Run& run, const CopySpec& spec);

}  // namespace tcert

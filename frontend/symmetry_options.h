// frontend/symmetry_options.h — (private) --point-group, --restricted and --irreps: symmetry blocks
// given on the command line, for any input format (a .tce file may declare them itself).
#pragma once

#include "frontend/diagnostics.h"
#include "frontend/frontend.h"

namespace tcec::frontend {

/// Applies options.point_group (the point group, replacing the input's), options.restricted and
/// options.irreps (NAME=n0,n1,...: a range's spatial orbitals per irrep) to `program`, then
/// checks, as a `.tce` file's declarations are checked, that each range's irreps have one
/// number per irrep of the group and 2·Σ = its extent, and that every range of a tensor that is
/// not dense has them. Errors are command-line diagnostics ({0,0}: err_cli_*); false after any.
/// Nothing when none of the options is given.
bool apply_symmetry_options(ir::Program& program, const Options& options, Reporter& r);

/// With symmetry blocks: every statement (but the terms of an antisymmetriser,
/// Statement::antisymmetrized) keeps its result's antisymmetric runs: the indices of each run of
/// the result (ir::antisymmetric_runs()) come from one operand and lie in one run of it (that
/// operand not dense). Otherwise err_breaks_antisymmetry at the result, naming where each index
/// comes from; false after any. True without symmetry.
bool check_antisymmetry(const ir::Program& program, Reporter& r);

}  // namespace tcec::frontend

// frontend/nwchem.h — (private) importer for NWChem TCE equation trees.
#pragma once

#include <string>

#include "frontend/frontend.h"

namespace tcec::frontend {

/// Imports one factorised equation tree as emitted by NWChem's TCE (the comment
/// header of the generated Fortran, e.g. src/tce/ccsd/ccsd_t2.F), one equation per line:
///
///   C     i0 ( p3 p4 h1 h2 )_vt + = -1 * P( 2 ) * Sum ( h10 ) * t ( p3 h10 )_t * i1 ( h10 p4 h1 h2 )_v   DONE
///   C         i1 ( h10 p3 h1 h2 )_v + = 1 * v ( h10 p3 h1 h2 )_v
///
/// Lines: an optional prefix `C`, `c` or `!` (followed by a blank); `+ =` with or
/// without blanks; an optional coefficient, an integer or a fraction (`-1/2`);
/// factors joined by `*`: at most one `P( n )`, at most one `Sum ( idx... )`, and
/// one or two tensors `NAME ( idx... )` (`( )` is a scalar). `_tag` suffixes and
/// trailing words (DONE, NOPE, UNUSED (NOPE)) are ignored. Blank lines and lines
/// starting with `#` are skipped; any other line must be an equation.
///
/// Indices `h*` range over O (occupied), `p*` over V (virtual); both extents must
/// be given with -D O=N -D V=N (an error otherwise; there are no defaults).
///
/// Nesting: lines indented deeper than a line define the intermediate (`i1`,
/// `i2`, …, a name `i` + digits) that line uses as an operand; all consecutive
/// deeper lines (with their own children) sum into it. Each definition block is its
/// own tensor named `iN_L<line>` after the line number of its first defining line
/// (so `i1_L39` is the `i1` defined from line 39 on); its index labels are local
/// and map positionally onto the use site, whose index types must match. The
/// top-level left-hand side (`i0`) is the output. Every other operand is an input
/// `NAME_TYPES` (`v ( h10 p3 h1 h2 )` is `v_hphh` of shape (O,V,O,O)). All
/// tensors start at zero: every statement is `+=`; statements come in dependency
/// order (a block's statements before the statement that reads it).
///
/// `P( n )` antisymmetrises the left-hand side: its positions split into the upper
/// (first) and lower (second) half, each half into groups by index type; in each
/// group every placement of the first operand's indices (in their relative order)
/// into the group's positions, the second operand's in the rest, is a term signed by
/// the parity of the permutation; P(n)X sums all combinations. There must be
/// exactly n terms. As the TCE evaluates it, X = coefficient · (the product) is one
/// statement into a new intermediate `X_L<line>` (indexed like the left-hand side), and
/// each term adds ±X with the term's permuted result indices (a one-operand statement):
/// one contraction instead of n. (P( n ) of a single operand gives n such additions.)
/// `Sum ( ... )` must list exactly the indices the operands sum over.
///
/// A file with headers `### file: .../NAME.F` holds several trees: options.section
/// selects the tree under NAME's header (required when there is more than one).
/// Lines that break ir::Statement's rules (batch index, repeated index, …) are errors
/// at that line. Errors carry file:line:col.
Result import_nwchem(const std::string& file, std::string source, const Options& options);

}  // namespace tcec::frontend

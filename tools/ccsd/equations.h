// tools/ccsd/equations.h — the CCSD equations tcec-ccsd plans: NWChem TCE's equation trees
// holding the sections ccsd_e, ccsd_t1 and ccsd_t2 (`tcec --from nwchem`). Built into the
// executable (data/nwchem_tce_equation_trees.txt, embedded at build time by
// embed_equations.cmake), or read from the file --equations names.
#pragma once

#include <string>
#include <string_view>

namespace tcec::ccsd {

/// The equation trees' text and the name it goes by in diagnostics and in the checkpoint.
struct Equations {
  /// The file as given on the command line, or kBuiltinEquationsName.
  std::string name;
  /// The whole text (every section; the residuals parse ccsd_e, ccsd_t1 and ccsd_t2 of it).
  std::string text;
  /// What a checkpoint records of them, so that --resume refuses other equations: the file's
  /// absolute path, or for the built-in ones "built-in " and 16 hex digits of the text's hash.
  std::string identity;
};

/// The name of the built-in equations in diagnostics.
inline constexpr const char* kBuiltinEquationsName = "<built-in data/nwchem_tce_equation_trees.txt>";

/// The text of data/nwchem_tce_equation_trees.txt as it was when tcec-ccsd was built
/// (defined in the source embed_equations.cmake generates).
std::string_view builtin_equations_text();

/// The equations of `path`, or the built-in ones when `path` is empty. Throws
/// std::runtime_error ("cannot read the equations PATH") when the file cannot be read.
Equations load_equations(const std::string& path);

}  // namespace tcec::ccsd

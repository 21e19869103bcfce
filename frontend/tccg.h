// frontend/tccg.h — (private) importer for the TCCG benchmark format.
#pragma once

#include <string>

#include "frontend/frontend.h"

namespace tcec::frontend {

/// Imports a TCCG benchmark file (Springer & Bientinesi 2016, as in the TAPP
/// reference implementation's tccg_contractions.txt):
///   [tccg_NN]
///   indices = A-B-C        one letter per index; operand A, operand B, result C
///   extents = a:384 c:24   extent of every letter (elements)
///   repeats = 1            benchmark repetitions (ignored)
/// Each section becomes `C_NN[...] = A_NN[...] * B_NN[...]` with its own
/// indices `x_NN` over ranges `x_NN`, so sections never share sizes.
/// -D overrides apply to those range names. Errors carry file:line:col.
Result import_tccg(const std::string& file, std::string source, const Options& options);

}  // namespace tcec::frontend

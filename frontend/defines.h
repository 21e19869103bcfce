// frontend/defines.h — (private) the -D NAME=VALUE overrides, shared by the .tce
// frontend and the importers that need range sizes from the command line.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "frontend/diagnostics.h"

namespace tcec::frontend {

/// Parses -D NAME=VALUE overrides (VALUE a whole number from 1 to 2^40); reports
/// malformed ones (err_define_syntax, err_define_bad_value) and leaves them out.
std::map<std::string, std::uint64_t> parse_defines(const std::vector<std::string>& defines, Reporter& r);

}  // namespace tcec::frontend

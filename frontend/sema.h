// frontend/sema.h — (private) semantic checks: parse tree in, ir::Program out.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "TceParser.h"
#include "frontend/diagnostics.h"

namespace tcec::frontend {

/// Checks `tree` and appends what it declares to `program`. `defines` maps a
/// range name to the extent that replaces its declared one (-D NAME=VALUE,
/// already validated). Every problem is reported to `reporter`; only
/// statements that pass all checks are added.
/// `before_split`, when set, sees the program before products of three or more operands are
/// split (and only when no error was reported).
void check_program(grammar::TceParser::ProgramContext& tree, const std::map<std::string, std::uint64_t>& defines,
                   Reporter& reporter, ir::Program& program,
                   const std::function<void(const ir::Program&)>& before_split = {});

}  // namespace tcec::frontend

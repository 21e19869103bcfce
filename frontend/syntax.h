// frontend/syntax.h — (private) lexing and parsing of .tce text with the
// ANTLR4 parser generated from grammar/Tce.g4, reporting syntax errors.
#pragma once

#include <functional>
#include <string>

#include "TceParser.h"
#include "frontend/diagnostics.h"

namespace tcec::frontend {

/// Lexes and parses `text`. Invalid characters and syntax errors go to
/// `reporter`. If there were none, calls `consume` with the parse tree (valid
/// only during the call) and returns true.
bool parse_syntax(const std::string& text, Reporter& reporter,
                  const std::function<void(grammar::TceParser::ProgramContext&)>& consume);

/// Location of a token: 1-based line and column.
ir::SourceLocation location_of(const antlr4::Token* token);

}  // namespace tcec::frontend

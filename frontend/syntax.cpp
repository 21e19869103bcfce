// frontend/syntax.cpp — ANTLR4 lexing and parsing with clang-style syntax
// diagnostics (a custom error strategy replaces ANTLR's default messages).
#include "frontend/syntax.h"

#include <memory>
#include <vector>

#include <fmt/format.h>

#include "TceLexer.h"
#include "antlr4-runtime.h"

namespace tcec::frontend {

using grammar::TceLexer;
using grammar::TceParser;

ir::SourceLocation location_of(const antlr4::Token* token) {
  return {static_cast<int>(token->getLine()), static_cast<int>(token->getCharPositionInLine()) + 1};
}

namespace {

// Bytes the lexer must not see raw: control characters (other than
// white space) and non-ASCII bytes. They become DEL, which the grammar's
// INVALID rule catches outside comments and comments skip.
std::string lexer_safe(const std::string& text) {
  std::string out = text;
  for (char& ch : out) {
    auto c = static_cast<unsigned char>(ch);
    bool space = c == '\t' || c == '\n' || c == '\r' || c == '\f';
    if ((c < 0x20 && !space) || c >= 0x7f) ch = '\x7f';
  }
  return out;
}

std::string describe_token(const antlr4::Token* t) {
  if (t->getType() == antlr4::Token::EOF) return "end of file";
  return fmt::format("'{}'", t->getText());  // not "'" + text: GCC 12's -Wrestrict false positive
}

std::string describe_expected(antlr4::Parser* parser, const antlr4::misc::IntervalSet& set) {
  std::vector<std::string> names;
  for (std::size_t t : set.toList()) {
    if (t == antlr4::Token::EOF)
      names.push_back("end of file");
    else if (t == TceParser::ID)
      names.push_back("an identifier");
    else if (t == TceParser::INT)
      names.push_back("an integer");
    else if (t == TceParser::DECIMAL)
      names.push_back("a decimal number");
    else
      names.push_back(parser->getVocabulary().getDisplayName(t));
  }
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += (i + 1 == names.size()) ? " or " : ", ";
    out += names[i];
  }
  return out;
}

// Location just after the previous token (clang puts "expected ';'" there).
ir::SourceLocation after_previous(antlr4::Parser* parser) {
  const antlr4::Token* prev = parser->getTokenStream()->LT(-1);
  if (prev == nullptr) return location_of(parser->getCurrentToken());
  auto loc = location_of(prev);
  loc.column += static_cast<int>(prev->getText().size());
  return loc;
}

TceParser::MachineBlockContext* enclosing_machine(antlr4::ParserRuleContext* ctx) {
  for (auto* c = ctx; c != nullptr; c = dynamic_cast<antlr4::ParserRuleContext*>(c->parent)) {
    if (auto* m = dynamic_cast<TceParser::MachineBlockContext*>(c)) return m;
  }
  return nullptr;
}

class ErrorStrategy : public antlr4::DefaultErrorStrategy {
 public:
  explicit ErrorStrategy(Reporter& reporter) : reporter_(reporter) {}

 protected:
  // Once the error limit is passed (DiagnosticList::stopped()) nothing more can be reported:
  // the parse stops at its next recovery or sync point instead of reading on to the end.
  void recover(antlr4::Parser* parser, std::exception_ptr e) override {
    stop_when_done();
    DefaultErrorStrategy::recover(parser, e);
  }
  antlr4::Token* recoverInline(antlr4::Parser* parser) override {
    stop_when_done();
    return DefaultErrorStrategy::recoverInline(parser);
  }
  void sync(antlr4::Parser* parser) override {
    stop_when_done();
    DefaultErrorStrategy::sync(parser);
  }

  void reportNoViableAlternative(antlr4::Parser* parser, const antlr4::NoViableAltException& e) override {
    if (unterminated_machine(parser, e.getOffendingToken())) return;
    reporter_.report(DiagId::err_unexpected_here, location_of(e.getOffendingToken()),
                     describe_token(e.getOffendingToken()));
  }

  void reportInputMismatch(antlr4::Parser* parser, const antlr4::InputMismatchException& e) override {
    if (unterminated_machine(parser, e.getOffendingToken())) return;
    reporter_.report(DiagId::err_unexpected, location_of(e.getOffendingToken()), describe_token(e.getOffendingToken()),
                     describe_expected(parser, e.getExpectedTokens()));
  }

  void reportFailedPredicate(antlr4::Parser*, const antlr4::FailedPredicateException& e) override {
    reporter_.report(DiagId::err_unexpected_here, location_of(e.getOffendingToken()),
                     describe_token(e.getOffendingToken()));
  }

  void reportUnwantedToken(antlr4::Parser* parser) override {
    if (inErrorRecoveryMode(parser)) return;
    beginErrorCondition(parser);
    antlr4::Token* t = parser->getCurrentToken();
    if (unterminated_machine(parser, t)) return;
    reporter_.report(DiagId::err_unexpected, location_of(t), describe_token(t),
                     describe_expected(parser, getExpectedTokens(parser)));
  }

  void reportMissingToken(antlr4::Parser* parser) override {
    if (inErrorRecoveryMode(parser)) return;
    beginErrorCondition(parser);
    antlr4::Token* t = parser->getCurrentToken();
    if (unterminated_machine(parser, t)) return;
    reporter_.report(DiagId::err_expected, after_previous(parser), describe_expected(parser, getExpectedTokens(parser)),
                     describe_token(t));
  }

 private:
  void stop_when_done() const {
    if (reporter_.stopped()) throw antlr4::ParseCancellationException("too many errors");
  }

  // A machine block still open at end of file gets its own message and a note.
  bool unterminated_machine(antlr4::Parser* parser, antlr4::Token* t) {
    if (t->getType() != antlr4::Token::EOF) return false;
    auto* machine = enclosing_machine(parser->getContext());
    if (machine == nullptr) return false;
    reporter_.report(DiagId::err_unterminated_machine, location_of(t));
    for (auto* child : machine->children) {
      auto* leaf = dynamic_cast<antlr4::tree::TerminalNode*>(child);
      if (leaf != nullptr && leaf->getText() == "{") {
        reporter_.report(DiagId::note_machine_opened_here, location_of(leaf->getSymbol()));
      }
    }
    return true;
  }

  Reporter& reporter_;
};

// Lexes everything, reports INVALID tokens and drops them.
std::vector<std::unique_ptr<antlr4::Token>> lex(TceLexer& lexer, const std::string& original, Reporter& reporter) {
  std::vector<std::unique_ptr<antlr4::Token>> kept;
  auto tokens = lexer.getAllTokens();
  tokens.push_back(lexer.nextToken());  // EOF, at the true end of the text
  for (auto& token : tokens) {
    if (token->getType() != TceLexer::INVALID) {
      kept.push_back(std::move(token));
      continue;
    }
    if (reporter.full()) continue;
    auto byte = static_cast<unsigned char>(original.at(token->getStartIndex()));
    if (byte >= 0x20 && byte < 0x7f) {
      reporter.report(DiagId::err_invalid_character, location_of(token.get()), std::string(1, byte));
    } else {
      reporter.report(DiagId::err_invalid_byte, location_of(token.get()), static_cast<unsigned>(byte));
    }
  }
  return kept;
}

}  // namespace

bool parse_syntax(const std::string& text, Reporter& reporter,
                  const std::function<void(TceParser::ProgramContext&)>& consume) {
  antlr4::ANTLRInputStream input(lexer_safe(text));
  TceLexer lexer(&input);
  lexer.removeErrorListeners();
  const int errors_before = reporter.error_count();
  antlr4::ListTokenSource source(lex(lexer, text, reporter));
  antlr4::CommonTokenStream tokens(&source);
  TceParser parser(&tokens);
  parser.removeErrorListeners();
  parser.setErrorHandler(std::make_shared<ErrorStrategy>(reporter));
  TceParser::ProgramContext* tree = nullptr;
  try {
    tree = parser.program();
  } catch (const antlr4::ParseCancellationException&) {
    return false;  // past the error limit (ErrorStrategy::stop_when_done())
  }
  if (reporter.error_count() != errors_before) return false;
  consume(*tree);
  return true;
}

}  // namespace tcec::frontend

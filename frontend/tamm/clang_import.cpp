// frontend/tamm/clang_import.cpp — read_function(): one function of a TAMM program, read
// with Clang (libTooling); the TAMM importer's only translation unit that includes Clang.
//
// Reader's map:
//   blank_includes()    the file's #include lines become blanks (lines and columns unchanged)
//   Collector           Clang's errors and notes with their positions, filtered later
//   Reader              the walk over the function: declarations, label assignments and
//                       Scheduler chains, into a tamm::Function (rules in tamm.h)
//   Consumer, Action    find the function, instantiate a template with T = double, walk it
//   read_function()     runs Clang through clang::tooling::ToolInvocation on the text in memory
#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/Stmt.h>
#include <clang/AST/StmtCXX.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/FileManager.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Lexer.h>
#include <clang/Sema/Sema.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "frontend/tamm/tamm.h"

namespace tcec::frontend::tamm {

namespace {

using clang::dyn_cast;
using clang::isa;

// `text` with every preprocessor #include (#include_next, #import) line, continuation lines
// included, replaced by blanks, so that Clang skips the program's own headers.
std::string blank_includes(std::string text) {
  clang::LangOptions lang;
  lang.CPlusPlus = lang.CPlusPlus11 = lang.CPlusPlus14 = lang.CPlusPlus17 = true;  // raw strings are strings
  clang::Lexer lexer(clang::SourceLocation(), lang, text.data(), text.data(), text.data() + text.size());
  clang::Token token;
  std::vector<std::pair<std::size_t, std::size_t>> blanks;
  for (lexer.LexFromRawLexer(token); token.isNot(clang::tok::eof); lexer.LexFromRawLexer(token)) {
    if (!token.is(clang::tok::hash) || !token.isAtStartOfLine()) continue;
    const std::size_t start = token.getLocation().getRawEncoding() - clang::SourceLocation().getRawEncoding();
    lexer.LexFromRawLexer(token);
    if (!token.is(clang::tok::raw_identifier)) continue;
    const llvm::StringRef word = token.getRawIdentifier();
    if (word != "include" && word != "include_next" && word != "import") continue;
    std::size_t end = start;
    while (end < text.size() && (text[end] != '\n' || (end > start && text[end - 1] == '\\'))) ++end;
    blanks.emplace_back(start, end);
  }
  for (const auto& [start, end] : blanks)
    for (std::size_t k = start; k < end; ++k)
      if (text[k] != '\n' && text[k] != '\r') text[k] = ' ';
  return text;
}

// One error or note of Clang's, positioned when it has a location.
struct ClangMessage {
  bool note = false;
  bool in_main_file = false;
  unsigned offset = 0;  // in the main file
  std::string file;     // the stub header's path when not in the main file
  ir::SourceLocation loc;
  std::string text;
};

class Collector : public clang::DiagnosticConsumer {
 public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level != clang::DiagnosticsEngine::Note && level < clang::DiagnosticsEngine::Error) return;
    llvm::SmallString<256> text;
    info.FormatDiagnostic(text);
    ClangMessage m{level == clang::DiagnosticsEngine::Note, false, 0, "", {}, text.str().str()};
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const clang::SourceManager& sm = info.getSourceManager();
      const clang::SourceLocation at = sm.getFileLoc(info.getLocation());
      const clang::PresumedLoc p = sm.getPresumedLoc(at);
      m.in_main_file = sm.isInMainFile(at);
      m.offset = sm.getFileOffset(at);
      m.file = p.isValid() ? p.getFilename() : "";
      if (p.isValid()) m.loc = {static_cast<int>(p.getLine()), static_cast<int>(p.getColumn())};
    }
    messages_.push_back(std::move(m));
  }
  const std::vector<ClangMessage>& messages() const { return messages_; }

 private:
  std::vector<ClangMessage> messages_;
};

// The class `name` of namespace tamm (or std), under references and qualifiers.
bool is_class(clang::QualType type, llvm::StringRef name, llvm::StringRef ns = "tamm") {
  const clang::CXXRecordDecl* record = type.getNonReferenceType()->getAsCXXRecordDecl();
  if (!record || record->getName() != name) return false;
  const auto* parent = dyn_cast<clang::NamespaceDecl>(record->getDeclContext());
  return parent && parent->getName() == ns;
}

// `e` without what Clang adds and the source does not spell: implicit casts, temporaries,
// parentheses and implicit (converting or copying) constructor calls.
const clang::Expr* strip(const clang::Expr* e) {
  for (;;) {
    const clang::Expr* before = e;
    e = e->IgnoreImplicit()->IgnoreParens();
    if (const auto* c = dyn_cast<clang::CXXConstructExpr>(e);
        c && c->getNumArgs() >= 1 && !isa<clang::CXXTemporaryObjectExpr>(c) && !c->isListInitialization())
      e = c->getArg(0);
    if (e == before) return e;
  }
}

// Walks one function in source order into a Function (rules: tamm.h import_tamm()).
class Reader {
 public:
  Reader(clang::ASTContext& context, Reporter& reporter, Function& out)
      : context_(context), sm_(context.getSourceManager()), r_(reporter), out_(out) {}

  void function(const clang::FunctionDecl& fn) {
    for (const clang::ParmVarDecl* p : fn.parameters()) {
      if (is_class(p->getType(), "Tensor")) tensors_[p] = add_tensor(*p, true);
      if (is_class(p->getType(), "TiledIndexSpace")) spaces_[p] = "all";
    }
    if (fn.getBody()) statement(fn.getBody());
  }

 private:
  ir::SourceLocation location(clang::SourceLocation at) const {
    const clang::PresumedLoc p = sm_.getPresumedLoc(sm_.getFileLoc(at));
    if (p.isInvalid()) return {};
    return {static_cast<int>(p.getLine()), static_cast<int>(p.getColumn())};
  }
  // The source text of `range` (of the macro call when it is in a macro), blanks (newlines too)
  // collapsed to one space.
  std::string text(clang::SourceRange range) const {
    const clang::CharSourceRange file_range =
        clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(range), sm_, context_.getLangOpts());
    const llvm::StringRef raw =
        file_range.isValid() ? clang::Lexer::getSourceText(file_range, sm_, context_.getLangOpts()) : "";
    std::string out;
    for (char c : raw) {
      const bool blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
      if (!blank)
        out += c;
      else if (!out.empty() && out.back() != ' ')
        out += ' ';
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  }
  std::string text(const clang::Stmt* s) const { return text(s->getSourceRange()); }

  int add_tensor(const clang::VarDecl& v, bool parameter) {
    out_.tensors.push_back({v.getNameAsString(), parameter, {}, location(v.getLocation())});
    return static_cast<int>(out_.tensors.size()) - 1;
  }

  void statement(const clang::Stmt* s) {
    if (const auto* block = dyn_cast<clang::CompoundStmt>(s)) {
      for (const clang::Stmt* child : block->body()) statement(child);
    } else if (const auto* d = dyn_cast<clang::DeclStmt>(s)) {
      for (const clang::Decl* decl : d->decls()) declaration(decl);
    } else if (isa<clang::ForStmt, clang::WhileStmt, clang::DoStmt, clang::CXXForRangeStmt>(s)) {
      r_.report(DiagId::err_tamm_loop, location(s->getBeginLoc()));
    } else if (isa<clang::IfStmt, clang::SwitchStmt>(s)) {
      r_.report(DiagId::err_tamm_branch, location(s->getBeginLoc()));
    } else if (const auto* e = dyn_cast<clang::Expr>(s)) {
      expression(e);
    } else if (!isa<clang::NullStmt>(s) &&
               !(isa<clang::ReturnStmt>(s) && !dyn_cast<clang::ReturnStmt>(s)->getRetValue())) {
      r_.report(DiagId::err_tamm_statement, location(s->getBeginLoc()), s->getStmtClassName());
    }
  }

  void declaration(const clang::Decl* decl) {
    if (const auto* d = dyn_cast<clang::DecompositionDecl>(decl)) {  // auto [a, b] = MO.labels<2>("occ");
      std::vector<const clang::ValueDecl*> labels(d->bindings().begin(), d->bindings().end());
      if (d->getInit()) assign_labels(labels, d->getInit());
      return;
    }
    const auto* v = dyn_cast<clang::VarDecl>(decl);
    if (!v) return;  // using-declarations, typedefs, ...
    const clang::QualType type = v->getType();
    const clang::Expr* init = v->getInit();
    if (is_class(type, "TiledIndexSpace")) {
      if (!init) return;
      if (auto space = space_of(init)) spaces_[v] = *space;
    } else if (is_class(type, "TiledIndexLabel")) {
      if (init && !isa<clang::CXXConstructExpr>(strip(init))) assign_labels({v}, init);
    } else if (is_class(type, "Tensor")) {
      const int id = tensors_[v] = add_tensor(*v, false);
      if (init) declared_spaces(init, out_.tensors[id].spaces);
    } else if (!type.getNonReferenceType()->isArithmeticType() && !is_class(type, "Scheduler")) {
      r_.report(DiagId::err_tamm_declaration, location(v->getLocation()), v->getNameAsString(), type.getAsString());
    }
  }

  // The sub-space named by `e`: a TiledIndexSpace variable, or `X("occ")`.
  std::optional<std::string> space_of(const clang::Expr* e) {
    e = strip(e);
    if (const auto* ref = dyn_cast<clang::DeclRefExpr>(e)) {
      auto it = spaces_.find(ref->getDecl());
      if (it != spaces_.end()) return it->second;
    } else if (const auto* call = dyn_cast<clang::CXXOperatorCallExpr>(e);
               call && call->getOperator() == clang::OO_Call && call->getNumArgs() == 2 &&
               is_class(call->getArg(0)->getType(), "TiledIndexSpace")) {
      return string_literal(call->getArg(1));
    }
    r_.report(DiagId::err_tamm_space, location(e->getBeginLoc()), text(e));
    return std::nullopt;
  }

  std::optional<std::string> string_literal(const clang::Expr* e) {
    if (const auto* s = dyn_cast<clang::StringLiteral>(e->IgnoreImplicit()->IgnoreParens()))
      return s->getString().str();
    r_.report(DiagId::err_tamm_space_name, location(e->getBeginLoc()), text(e));
    return std::nullopt;
  }

  // The spaces of a local tensor's initializer, `{{O, V}, {1, 1}}`: its TiledIndexSpace
  // expressions in source order.
  void declared_spaces(const clang::Stmt* s, std::vector<std::string>& spaces) {
    const auto* e = dyn_cast<clang::Expr>(s);
    if (e && is_class(e->getType(), "TiledIndexSpace")) {
      const clang::Expr* inner = strip(e);
      if (isa<clang::DeclRefExpr, clang::CXXOperatorCallExpr>(inner)) {
        if (auto space = space_of(inner)) spaces.push_back(*space);
        return;
      }
    }
    for (const clang::Stmt* child : s->children())
      if (child) declared_spaces(child, spaces);
  }

  // `labels = source`: source is X.labels<N>("id"), X.label("id") or another label.
  void assign_labels(const std::vector<const clang::ValueDecl*>& labels, const clang::Expr* source) {
    source = strip(source);
    if (const auto* ref = dyn_cast<clang::DeclRefExpr>(source); ref && labels.size() == 1) {
      auto it = label_spaces_.find(ref->getDecl());
      if (it != label_spaces_.end()) label_spaces_[labels[0]] = it->second;
      return;
    }
    const auto* call = dyn_cast<clang::CXXMemberCallExpr>(source);
    const clang::CXXMethodDecl* method = call ? call->getMethodDecl() : nullptr;
    if (!method || !is_class(call->getObjectType(), "TiledIndexSpace") ||
        (method->getName() != "labels" && method->getName() != "label")) {
      r_.report(DiagId::err_tamm_labels, location(source->getBeginLoc()), text(source));
      return;
    }
    std::size_t count = 1;
    if (const clang::TemplateArgumentList* args = method->getTemplateSpecializationArgs())
      count = args->get(0).getAsIntegral().getZExtValue();
    if (count != labels.size()) {
      r_.report(DiagId::err_tamm_label_count, location(source->getBeginLoc()), labels.size(), count);
      return;
    }
    auto object = space_of(call->getImplicitObjectArgument());
    auto id = string_literal(call->getArg(0));
    if (!object || !id) return;
    for (const clang::ValueDecl* l : labels) label_spaces_[l] = *id == "all" ? *object : *id;
  }

  void expression(const clang::Expr* e) {
    e = strip(e);
    if (const auto* assign = dyn_cast<clang::CXXOperatorCallExpr>(e);
        assign && assign->getOperator() == clang::OO_Equal && label_assignment(*assign))
      return;
    if (is_class(e->getType(), "Scheduler") || e->getType()->isVoidType()) {
      if (chain(e)) return;
    }
    if (const auto* call = dyn_cast<clang::CallExpr>(e); call && call->getDirectCallee()) {
      r_.report(DiagId::err_tamm_unknown_call, location(e->getBeginLoc()),
                call->getDirectCallee()->getQualifiedNameAsString());
      return;
    }
    r_.report(DiagId::err_tamm_statement, location(e->getBeginLoc()), e->getStmtClassName());
  }

  // `std::tie(a, b) = ...` or `a = ...` on labels; false when the target is no label.
  bool label_assignment(const clang::CXXOperatorCallExpr& assign) {
    const clang::Expr* target = strip(assign.getArg(0));
    std::vector<const clang::ValueDecl*> labels;
    if (const auto* ref = dyn_cast<clang::DeclRefExpr>(target); ref && is_class(ref->getType(), "TiledIndexLabel")) {
      labels.push_back(ref->getDecl());
    } else if (const auto* tie = dyn_cast<clang::CallExpr>(target);
               tie && tie->getDirectCallee() && tie->getDirectCallee()->getQualifiedNameAsString() == "std::tie") {
      for (const clang::Expr* arg : tie->arguments()) {
        const auto* ref = dyn_cast<clang::DeclRefExpr>(strip(arg));
        if (!ref || !is_class(ref->getType(), "TiledIndexLabel")) {
          r_.report(DiagId::err_tamm_label, location(arg->getBeginLoc()), text(arg));
          return true;
        }
        labels.push_back(ref->getDecl());
      }
    } else {
      return false;
    }
    assign_labels(labels, assign.getArg(1));
    return true;
  }

  // A Scheduler chain, `sch.allocate(x)(op)(op).deallocate(x).execute()`; false when `e`
  // is not rooted in a Scheduler.
  bool chain(const clang::Expr* e) {
    std::vector<const clang::Expr*> links;  // outermost first
    for (;;) {
      e = strip(e);
      if (const auto* member = dyn_cast<clang::CXXMemberCallExpr>(e);
          member && is_class(member->getObjectType(), "Scheduler")) {
        links.push_back(member);
        e = member->getImplicitObjectArgument();
      } else if (const auto* call = dyn_cast<clang::CXXOperatorCallExpr>(e);
                 call && call->getOperator() == clang::OO_Call && is_class(call->getArg(0)->getType(), "Scheduler")) {
        links.push_back(call);
        e = call->getArg(0);
      } else {
        break;
      }
    }
    if (links.empty() || !is_class(e->getType(), "Scheduler")) return false;
    for (auto link = links.rbegin(); link != links.rend(); ++link) {
      if (const auto* call = dyn_cast<clang::CXXOperatorCallExpr>(*link)) {
        operation(call->getArg(1));
        continue;
      }
      const auto* member = dyn_cast<clang::CXXMemberCallExpr>(*link);
      const std::string name = member->getMethodDecl()->getNameAsString();
      if (name != "allocate" && name != "deallocate" && name != "execute")
        r_.report(DiagId::err_tamm_unknown_call, location(member->getExprLoc()), "tamm::Scheduler::" + name);
    }
    return true;
  }

  void operation(const clang::Expr* e) {
    e = strip(e);
    const auto* call = dyn_cast<clang::CXXOperatorCallExpr>(e);
    const bool ok = call && call->getNumArgs() == 2 && is_class(call->getArg(0)->getType(), "LabeledTensor") &&
                    (call->getOperator() == clang::OO_Equal || call->getOperator() == clang::OO_PlusEqual ||
                     call->getOperator() == clang::OO_MinusEqual);
    if (!ok) {
      r_.report(DiagId::err_tamm_operation, location(e->getBeginLoc()), text(e));
      return;
    }
    Operation op;
    op.kind = call->getOperator() == clang::OO_Equal       ? OpKind::Assign
              : call->getOperator() == clang::OO_PlusEqual ? OpKind::Add
                                                           : OpKind::Subtract;
    op.loc = location(call->getBeginLoc());
    op.text = text(call);
    auto lhs = tensor_use(call->getArg(0));
    const clang::Expr* rhs = strip(call->getArg(1));
    bool good = lhs.has_value();
    if (rhs->getType()->isArithmeticType()) {  // X(...) = value
      auto value = constant(rhs);
      if (value && (*value != 0 || op.kind != OpKind::Assign)) {
        r_.report(DiagId::err_tamm_set_value, op.loc, op.text, fmt::format("{}", *value));
        value.reset();
      }
      good = good && value.has_value();
      op.zero = true;
    } else {
      good = factors(rhs, op) && good;
    }
    if (!good) return;
    op.lhs = std::move(*lhs);
    out_.operations.push_back(std::move(op));
  }

  // The factors of a product into `op`: constants multiply its coefficient; false after reporting.
  bool factors(const clang::Expr* e, Operation& op) {
    e = strip(e);
    if (e->getType()->isArithmeticType()) {
      auto value = constant(e);
      if (!value) return false;
      op.coefficient *= *value;
      op.has_coefficient = true;
      return true;
    }
    if (const auto* call = dyn_cast<clang::CXXOperatorCallExpr>(e);
        call && call->getOperator() == clang::OO_Star && call->getNumArgs() == 2) {
      const bool left = factors(call->getArg(0), op);
      return factors(call->getArg(1), op) && left;
    }
    if (const auto* call = dyn_cast<clang::CXXOperatorCallExpr>(e);
        !call || call->getOperator() != clang::OO_Call || !is_class(call->getArg(0)->getType(), "Tensor")) {
      r_.report(DiagId::err_tamm_operand, location(e->getBeginLoc()), text(e));
      return false;
    }
    auto use = tensor_use(e);
    if (use) op.operands.push_back(std::move(*use));
    return use.has_value();
  }

  // The value Clang evaluates a constant factor to.
  std::optional<double> constant(const clang::Expr* e) {
    clang::Expr::EvalResult result;
    if (e->isValueDependent() || !e->EvaluateAsRValue(result, context_) || result.HasSideEffects) {
      r_.report(DiagId::err_tamm_runtime_coefficient, location(e->getBeginLoc()), text(e));
      return std::nullopt;
    }
    double value = 0;
    if (result.Val.isInt()) {
      const llvm::APSInt& i = result.Val.getInt();
      value = i.isSigned() ? static_cast<double>(i.getSExtValue()) : static_cast<double>(i.getZExtValue());
    } else if (result.Val.isFloat()) {
      llvm::APFloat f = result.Val.getFloat();
      bool lost = false;
      f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
      value = f.convertToDouble();
    }
    if (!std::isfinite(value) || !(result.Val.isInt() || result.Val.isFloat())) {
      r_.report(DiagId::err_bad_number, location(e->getBeginLoc()), text(e));
      return std::nullopt;
    }
    return value;
  }

  // `t1(p5, h6)`: a tensor variable under labels.
  std::optional<TensorUse> tensor_use(const clang::Expr* e) {
    e = strip(e);
    const auto* call = dyn_cast<clang::CXXOperatorCallExpr>(e);
    if (!call || call->getOperator() != clang::OO_Call) {
      r_.report(DiagId::err_tamm_operand, location(e->getBeginLoc()), text(e));
      return std::nullopt;
    }
    const auto* ref = dyn_cast<clang::DeclRefExpr>(strip(call->getArg(0)));
    auto tensor = ref ? tensors_.find(ref->getDecl()) : tensors_.end();
    if (tensor == tensors_.end()) {
      r_.report(DiagId::err_tamm_tensor, location(call->getArg(0)->getBeginLoc()), text(call->getArg(0)));
      return std::nullopt;
    }
    TensorUse use{tensor->second, {}, text(call), location(call->getBeginLoc())};
    bool good = true;
    for (unsigned k = 1; k < call->getNumArgs(); ++k) {
      const clang::Expr* arg = call->getArg(k);
      const auto* label = dyn_cast<clang::DeclRefExpr>(strip(arg));
      if (!label || !is_class(label->getType(), "TiledIndexLabel")) {
        r_.report(DiagId::err_tamm_label, location(arg->getBeginLoc()), text(arg));
        good = false;
        continue;
      }
      const std::string name = label->getDecl()->getNameAsString();
      auto space = label_spaces_.find(label->getDecl());
      if (space == label_spaces_.end()) {
        r_.report(DiagId::err_tamm_unassigned_label, location(arg->getBeginLoc()), name, name);
        good = false;
        continue;
      }
      use.labels.push_back({name, space->second, location(arg->getBeginLoc())});
    }
    if (!good) return std::nullopt;
    return use;
  }

  clang::ASTContext& context_;
  const clang::SourceManager& sm_;
  Reporter& r_;
  Function& out_;
  std::map<const clang::ValueDecl*, int> tensors_;               // -> out_.tensors
  std::map<const clang::ValueDecl*, std::string> spaces_;        // TiledIndexSpace variables
  std::map<const clang::ValueDecl*, std::string> label_spaces_;  // labels (variables, bindings)
};

// What the consumer found, for read_function.
struct Outcome {
  bool ran = false;
  std::optional<Function> function;
};

// Function definitions and function templates of the main file, in source order.
void collect_functions(const clang::DeclContext* context, const clang::SourceManager& sm,
                       std::vector<const clang::NamedDecl*>& out) {
  for (const clang::Decl* d : context->decls()) {
    if (!sm.isInMainFile(sm.getFileLoc(d->getLocation()))) continue;
    if (isa<clang::NamespaceDecl, clang::LinkageSpecDecl>(d)) {
      collect_functions(dyn_cast<clang::DeclContext>(d), sm, out);
    } else if (const auto* t = dyn_cast<clang::FunctionTemplateDecl>(d)) {
      if (t->getTemplatedDecl()->doesThisDeclarationHaveABody()) out.push_back(t);
    } else if (const auto* f = dyn_cast<clang::FunctionDecl>(d); f && f->doesThisDeclarationHaveABody()) {
      out.push_back(f);
    }
  }
}

class Consumer : public clang::ASTConsumer {
 public:
  Consumer(clang::CompilerInstance& ci, const std::string& file, const std::string& name, const Collector& collector,
           DiagnosticList& diagnostics, Outcome& outcome)
      : ci_(ci), file_(file), name_(name), collector_(collector), diagnostics_(diagnostics), outcome_(outcome) {}

  void HandleTranslationUnit(clang::ASTContext& context) override {
    outcome_.ran = true;
    Reporter r(diagnostics_, file_);
    const clang::SourceManager& sm = context.getSourceManager();
    std::vector<const clang::NamedDecl*> functions;
    collect_functions(context.getTranslationUnitDecl(), sm, functions);
    const clang::NamedDecl* chosen = choose(functions, r);
    if (!chosen) return;
    name_of_chosen_ = chosen->getNameAsString();
    const unsigned begin = sm.getFileOffset(sm.getFileLoc(chosen->getBeginLoc()));
    const unsigned end = sm.getFileOffset(sm.getFileLoc(chosen->getEndLoc()));
    template_offset_ = sm.getFileOffset(sm.getFileLoc(chosen->getLocation()));
    const int before = r.error_count();
    const clang::FunctionDecl* fn = report_clang(begin, end) ? nullptr : instantiate(*chosen, context, r);
    if (report_clang(begin, end) || !fn) {
      if (r.error_count() == before) r.report(DiagId::err_tamm_clang_failed, {}, file_);
      return;
    }
    Function out{chosen->getNameAsString(), {}, {}, {}};
    const clang::PresumedLoc p = sm.getPresumedLoc(sm.getFileLoc(chosen->getLocation()));
    out.loc = {static_cast<int>(p.getLine()), static_cast<int>(p.getColumn())};
    Reader(context, r, out).function(*fn);
    if (r.error_count() == before) outcome_.function = std::move(out);
  }

 private:
  const clang::NamedDecl* choose(const std::vector<const clang::NamedDecl*>& functions, Reporter& r) {
    std::vector<std::string> names;
    for (const clang::NamedDecl* f : functions) names.push_back(f->getNameAsString());
    const std::string list = fmt::format("{}", fmt::join(names, ", "));
    if (!name_.empty()) {
      for (const clang::NamedDecl* f : functions)
        if (f->getNameAsString() == name_) return f;
      report_clang(0, ~0u);
      r.report(DiagId::err_tamm_unknown_function, {}, name_, file_, names.empty() ? "none" : list);
    } else if (functions.size() == 1) {
      return functions[0];
    } else {
      report_clang(0, ~0u);
      if (functions.empty())
        r.report(DiagId::err_tamm_no_function, {}, file_);
      else
        r.report(DiagId::err_tamm_choose_function, {}, file_, functions.size(), list);
    }
    return nullptr;
  }

  // Reports Clang's errors (not yet reported) between the main-file offsets begin and end, and
  // those outside the main file, with their notes; true when there was one.
  bool report_clang(unsigned begin, unsigned end) {
    bool any = false, keep = false;
    const auto& messages = collector_.messages();
    for (; reported_ < messages.size(); ++reported_) {
      const ClangMessage& m = messages[reported_];
      if (!m.note) keep = !m.in_main_file || (m.offset >= begin && m.offset <= end);
      if (!keep || (m.note && !m.in_main_file)) continue;
      any = any || !m.note;
      Reporter report(diagnostics_, m.in_main_file ? file_ : m.file);
      if (m.note && m.offset == template_offset_ && m.text.rfind("in instantiation of", 0) == 0)
        report.report(DiagId::note_tamm_instantiated, m.loc, name_of_chosen_);  // Clang's "requested here" is tcec's
      else
        report.report(m.note ? DiagId::note_tamm_clang : DiagId::err_tamm_clang, m.loc, m.text);
    }
    return any;
  }

  // The function itself, or a function template's specialization for T = double.
  const clang::FunctionDecl* instantiate(const clang::NamedDecl& chosen, clang::ASTContext& context, Reporter& r) {
    const auto* t = dyn_cast<clang::FunctionTemplateDecl>(&chosen);
    if (!t) return dyn_cast<clang::FunctionDecl>(&chosen);
    const clang::TemplateParameterList* params = t->getTemplateParameters();
    if (params->size() != 1 || !isa<clang::TemplateTypeParmDecl>(params->getParam(0))) {
      const clang::SourceManager& sm = context.getSourceManager();
      const clang::PresumedLoc p = sm.getPresumedLoc(sm.getFileLoc(t->getLocation()));
      r.report(DiagId::err_tamm_template_parameters, {static_cast<int>(p.getLine()), static_cast<int>(p.getColumn())},
               t->getNameAsString(), params->size());
      return nullptr;
    }
    const clang::TemplateArgument element(context.DoubleTy);
    const clang::TemplateArgumentList* args = clang::TemplateArgumentList::CreateCopy(context, element);
    clang::Sema& sema = ci_.getSema();
    clang::FunctionDecl* specialization =
        sema.InstantiateFunctionDeclaration(const_cast<clang::FunctionTemplateDecl*>(t), args, t->getLocation());
    if (!specialization) return nullptr;
    sema.InstantiateFunctionDefinition(t->getLocation(), specialization, /*Recursive=*/true,
                                       /*DefinitionRequired=*/true);
    return specialization->getBody() ? specialization : nullptr;
  }

  clang::CompilerInstance& ci_;
  const std::string& file_;
  const std::string& name_;
  const Collector& collector_;
  DiagnosticList& diagnostics_;
  Outcome& outcome_;
  std::size_t reported_ = 0;
  unsigned template_offset_ = ~0u;  // the chosen function's name, in the main file
  std::string name_of_chosen_;
};

class Action : public clang::ASTFrontendAction {
 public:
  Action(const std::string& file, const std::string& name, const Collector& collector, DiagnosticList& diagnostics,
         Outcome& outcome)
      : file_(file), name_(name), collector_(collector), diagnostics_(diagnostics), outcome_(outcome) {}

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
    return std::make_unique<Consumer>(ci, file_, name_, collector_, diagnostics_, outcome_);
  }

 private:
  const std::string& file_;
  const std::string& name_;
  const Collector& collector_;
  DiagnosticList& diagnostics_;
  Outcome& outcome_;
};

}  // namespace

std::optional<Function> read_function(const std::string& file, const std::string& source, const std::string& name,
                                      const std::string& stub, DiagnosticList& diagnostics) {
  // The text in memory under the file's absolute path, over the real file system (for the stub).
  const std::string path = std::filesystem::absolute(file).lexically_normal().string();
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  memory->addFile(path, 0, llvm::MemoryBuffer::getMemBufferCopy(blank_includes(source), path));
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  overlay->pushOverlay(memory);
  auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);
  const std::vector<std::string> args = {
      "tcec", "-fsyntax-only",          "-std=c++17",      "-x",       "c++", "-nostdinc", "-nostdinc++",
      "-w",   "-fno-caret-diagnostics", "-ferror-limit=0", "-include", stub,  path};
  Collector collector;
  Outcome outcome;
  clang::tooling::ToolInvocation invocation(args, std::make_unique<Action>(file, name, collector, diagnostics, outcome),
                                            files.get());
  invocation.setDiagnosticConsumer(&collector);
  invocation.run();
  if (!outcome.ran) {
    Reporter r(diagnostics, file);
    for (const ClangMessage& m : collector.messages())
      if (!m.note) r.report(DiagId::err_tamm_clang, m.in_main_file ? m.loc : ir::SourceLocation{}, m.text);
    r.report(DiagId::err_tamm_clang_failed, {}, file);
    return std::nullopt;
  }
  return std::move(outcome.function);
}

}  // namespace tcec::frontend::tamm

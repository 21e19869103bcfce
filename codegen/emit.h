// codegen/emit.h — (private) the pieces emit_program() and emit_library_header() are made of: an indenting
// text writer, C++ literal and comment text, and the per-contraction emitters.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/codegen.h"

namespace tcec::codegen {

/// Appends lines of C++ at the current indentation (two spaces per level).
class CodeWriter {
 public:
  /// One line: the formatted text, indented, then '\n'.
  template <typename... Args>
  void line(fmt::format_string<Args...> format, Args&&... args) {
    raw(fmt::format(format, std::forward<Args>(args)...));
  }
  /// "<text> {" on one line, then one level deeper.
  template <typename... Args>
  void open(fmt::format_string<Args...> format, Args&&... args) {
    raw(fmt::format(format, std::forward<Args>(args)...) + " {");
    ++depth_;
  }
  /// One level out, then "}<tail>".
  void close(std::string_view tail = "") {
    --depth_;
    std::string text = "}";
    text += tail;
    raw(text);
  }
  void blank() { out_ += '\n'; }
  /// `text` as one line at the current indentation (no formatting).
  void raw(const std::string& text) {
    out_.append(static_cast<std::size_t>(2 * depth_), ' ');
    out_ += text;
    out_ += '\n';
  }
  std::string take() { return std::move(out_); }
  /// The text written so far.
  const std::string& text() const { return out_; }

 private:
  std::string out_;
  int depth_ = 0;
};

/// `text` as a C++ string literal with its quotes: ", \ and control or non-ASCII
/// bytes escaped ("\n", "\t", else three-digit octal), so any bytes round-trip.
std::string cpp_string_literal(std::string_view text);

/// `text` safe inside a // comment: control bytes (newline included) become '?'.
std::string comment_text(std::string_view text);

/// "{a, b, c}" of integers, for braced initialisers.
template <typename Range>
std::string braced_list(const Range& values) {
  return fmt::format("{{{}}}", fmt::join(values, ", "));
}

/// The stored shape of tensor number `tensor` of `program`: its name and the extents of its
/// dimensions (the runtime's TensorShape).
tcert::TensorShape tensor_shape(const ir::Program& program, int tensor);
/// `{"A", {4000, 4000}}`: the C++ initialiser of a TensorShape (name escaped).
std::string tensor_shape_text(const tcert::TensorShape& shape);

/// The function `void contraction_<number>(tcert::Run& run)` of one feasible plan:
/// comments (statement, macro-index form, plan, predicted bytes), the GemmSpec
/// constants, the GaoGemm, the loop nest (emit_compute) and finish().
/// `accumulate`: C starts from its tensor's current value (an earlier statement wrote it).
void emit_contraction(CodeWriter& w, const ir::Program& program, const costmodel::Machine& machine,
                      const costmodel::StatementPlan& plan, int number, bool accumulate);
/// The function `copy_N(tcert::Run& run)` of a one-operand statement (runtime/methods/copy_step.h).
void emit_copy(CodeWriter& w, const ir::Program& program, const ir::Statement& s, int number, bool accumulate);

/// The code generation of one method's plans (costmodel method.h): its fields of the runtime's
/// GemmSpec, and its executor with the compute phase. One per method; emitters.cpp lists them
/// and emitter_of() picks a plan's.
class MethodEmitter {
 public:
  virtual ~MethodEmitter() = default;
  /// Sets the method's fields of `spec` from `plan` (order, schedule, buffer capacities in
  /// elements from the plan's tile bytes on `machine`).
  virtual void fill_spec(const costmodel::Plan& plan, const costmodel::Machine& machine,
                         tcert::GemmSpec& spec) const = 0;
  /// The statements that set the method's schedule fields (emitted right after spec.plan).
  virtual void emit_spec_schedule(CodeWriter& w, const tcert::GemmSpec& spec) const = 0;
  /// The statements that set its buffer capacities (after the hand-off fields); may be none.
  virtual void emit_spec_buffers(CodeWriter& w, const tcert::GemmSpec& spec) const = 0;
  /// The executor `x` built from the `spec` in scope (moved) and its compute phase; the
  /// caller emits `x.finish();` after it.
  virtual void emit_executor(CodeWriter& w, const costmodel::Plan& plan) const = 0;
};

/// The emitter of `plan`'s method (emitters.cpp).
const MethodEmitter& emitter_of(const costmodel::Plan& plan);

/// The tile-count constants and `x.compute([&] { ... });` of a Gao plan: the nest of
/// costmodel::loop_nest(order) with the method's collectives (codegen.h).
/// Expects a `tcert::GaoGemm x` in scope in the emitted code.
void emit_compute(CodeWriter& w, const costmodel::Plan& plan);

}  // namespace tcec::codegen

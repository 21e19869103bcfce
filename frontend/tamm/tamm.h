// frontend/tamm/tamm.h — (private) the TAMM importer (`tcec --from tamm`): one function of a
// TAMM C++ program in, ir::Program out, in two passes:
//
//   read_function()   Clang (libTooling) parses the file with the stub header
//                     (tamm_stub.h) and walks the function's AST into a tamm::Function: its
//                     tensors and the Scheduler's operations in source order
//                     (clang_import.cpp, the one translation unit including Clang);
//   build_program()   checks the operations and makes the ir::Program: inputs, outputs,
//                     intermediates, statements (build.cpp, no Clang).
//
// import_tamm() (frontend/tamm/import.cpp) runs both; what it accepts is in its comment.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/frontend.h"

namespace tcec::frontend {

/// Imports one function of a TAMM program (TAMM's C++ embedded DSL, e.g. `ccsd_t2` of
/// NWChemEx/TAMM methods/cc/ccsd_canonical.hpp), options.function naming it (required when the
/// file defines several). The file's #include lines are skipped; Clang parses it as C++17
/// with frontend/tamm/tamm_stub.h included first (found by tamm_stub_path()); a function
/// template gets T = double. Read, in source order:
///
///   const TiledIndexSpace& O = MO("occ");            sub-spaces: "occ" is range O, "virt" V
///   Tensor<T> i1{{O, V}, {1, 1}};                     a local tensor: intermediate i1[O,V]
///   std::tie(h1, h2) = MO.labels<2>("occ");           labels (also auto [a, b] = ...,
///                                                     TiledIndexLabel a = MO.label("virt"))
///   sch.allocate(i1)(i1(h6, p5) = f1(h6, p5))         a Scheduler chain: each operation
///      (i1(h6, p5) += 0.5 * t1(p3, h4) * v2(h4, h6, p3, p5))   `X(...) = | += | -= c * A [* B]`
///      (de() = 0).deallocate(i1).execute();           is a statement, `X(...) = 0` clears X
///
/// Coefficients are what Clang evaluates the constant factors to. Tensor parameters: one only
/// read is an input, one block per index-type pattern, `NAME_TYPES` as the NWChem importer
/// names them (`v2(h4, h6, p3, p5)` is input `v2_hhpp` of shape (O,O,V,V); `de()` is `de`);
/// one written is an output that keeps its name (one block; its reads after the first write
/// read it); one whose first write adds to its value (`t2 += ...` in ccsd_t2) is updated in
/// place: input `t2_pphh`, copied into output `t2` just before that write. `X(...) = 0`
/// (or `X() = 0`) is folded into X's next write (`+=` becomes `=`; nothing when X holds no
/// values yet); reading X in between is an error. The -D O=N and -D V=N extents are required.
/// Anything else (a loop, a branch, an unknown call, a coefficient Clang cannot evaluate, a
/// label over another space, ...) is an error at Clang's source location, as are Clang's own
/// errors inside the function (errors elsewhere in the file are ignored).
Result import_tamm(const std::string& file, std::string source, const Options& options);

/// The stub header Clang includes first: PREFIX/include/tcec/tamm/tamm_stub.h beside an
/// installed tcec (PREFIX/bin/tcec, found from /proc/self/exe), else the source tree's
/// frontend/tamm/tamm_stub.h (path recorded by CMake). Empty when neither exists.
std::string tamm_stub_path();

}  // namespace tcec::frontend

namespace tcec::frontend::tamm {

/// An index label at one use: `h6` in `i1(h6, p5)`.
struct Label {
  std::string name;
  std::string space;  ///< the sub-space it was last assigned from: "occ", "virt", "all", ...
  ir::SourceLocation loc;
};

/// A labelled tensor, `t1(p5, h6)`; `de()` has no labels.
struct TensorUse {
  int tensor = -1;  ///< into Function::tensors
  std::vector<Label> labels;
  std::string text;  ///< as written, e.g. "t1(p5, h6)"
  ir::SourceLocation loc;
};

/// A tensor variable: a parameter of the function, or a local `Tensor<T> x{...}`.
struct TensorVar {
  std::string name;
  bool parameter = false;
  std::vector<std::string> spaces;  ///< a local's declared sub-spaces, in order
  ir::SourceLocation loc;
};

enum class OpKind { Assign, Add, Subtract };

/// One operation of a Scheduler chain: `lhs kind coefficient * operands[0] * ...`, or, with
/// `zero`, `lhs = 0` (no operands).
struct Operation {
  OpKind kind = OpKind::Assign;
  TensorUse lhs;
  bool zero = false;
  bool has_coefficient = false;  ///< a constant factor was written
  double coefficient = 1.0;      ///< the product of the constant factors
  std::vector<TensorUse> operands;
  std::string text;  ///< as written, blanks collapsed
  ir::SourceLocation loc;
};

/// What read_function() found.
struct Function {
  std::string name;
  ir::SourceLocation loc;
  std::vector<TensorVar> tensors;
  std::vector<Operation> operations;  ///< in source order
};

/// Parses `source` (the text of `file`) with Clang and the stub header `stub`, and reads the
/// function `name` (empty: the file's only function). Clang's errors inside the function, and
/// every construct the importer does not read, are reported into `diagnostics` (errors in
/// `file`, at Clang's line and column); nullopt then.
std::optional<Function> read_function(const std::string& file, const std::string& source, const std::string& name,
                                      const std::string& stub, DiagnosticList& diagnostics);

/// Builds the program of `function` (rules in import_tamm()'s comment) over `program`'s
/// ranges, which must be O and V, in that order. False after reporting.
bool build_program(const Function& function, Reporter& reporter, ir::Program& program);

}  // namespace tcec::frontend::tamm

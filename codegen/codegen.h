// codegen/codegen.h — the public face of code generation: (ir::Program, plans) in,
// one readable C++/MPI source file out, which calls the runtime (runtime/methods/gao/gao.h,
// runtime/program/run.h) in the loop nest of each plan; and the build of that file.
//
// Reader's map:
//   Diagnostic, check_program()   what code generation cannot run yet, at source locations
//   gemm_spec()                   the runtime's GemmSpec of a plan, as the program builds it
//   EmitOptions, emit_program()   the C++ text (one function per contraction, the generated
//                                 function, main() for a program); emit_library_header()
//   format_source()               that text in the project's clang-format style
//   Generated, generate()         plan + check + emit, as the driver runs them
//   Toolchain, build_program()    compile the text with the MPI C++ compiler against libtcert
//   run_command()                 run a program without a shell, capturing its output
//
// The emitted nest is costmodel::loop_nest(order) printed level by level, with the
// method's collectives placed exactly where costmodel/methods/gao/simulate.cpp counts them, so a
// generated program's measured per-rank bytes equal StatementPlan::volumes.
// Source: Gao et al. §3 (Fig. 3(b), the tiled loop nest of a disk placement order).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "costmodel/costmodel.h"
#include "diag/diag.h"
#include "ir/ir.h"
#include "runtime/spec/gemm_spec.h"

namespace tcec::codegen {

/// One message about the input (the engine's diag::Diagnostic, as the frontend's): `id` names it
/// in codegen/diagnostics.def; `file` is Program::file; `loc` is {0,0} for messages about the
/// whole program (rendered "tcec: error: ..."); a note belongs to the error before it.
using Diagnostic = diag::Diagnostic;

/// Checks that tcec can generate every statement of `program` with `plans`
/// (costmodel::plan_program's output for it). Errors, in this order:
///   err_declared_distribution  per tensor with a `distribute` declaration (the runtime reads
///                              and writes tensors as files all ranks see);
///   err_no_feasible_plan  per statement, the plan's reason, e.g. "P = 6 is not a perfect square".
/// One-operand statements (copies, additions) and chains of statements (a result read or
/// accumulated into by later statements) are always runnable.
/// Returns no diagnostics when the program can be generated.
std::vector<Diagnostic> check_program(const ir::Program& program, const std::vector<costmodel::StatementPlan>& plans);

/// The runtime's GemmSpec of one feasible plan: the very value the generated
/// `contraction_N` function builds (emit_program() prints it field by field), so a test can
/// hold a plan to the runtime's own checks (runtime/spec/spec_check.h check_spec()) without
/// compiling or running anything. `machine` is the one the plan was made for (8-byte
/// elements); `accumulate`: C starts from its tensor's current value (an earlier statement
/// wrote it). TCEC_ASSERT on an infeasible plan.
tcert::GemmSpec gemm_spec(const ir::Program& program, const costmodel::Machine& machine,
                          const costmodel::StatementPlan& plan, bool accumulate);

/// What tcec writes (`tcec --emit program|library`).
enum class EmitForm {
  /// DIR/<stem>.cpp: the function and a main() that parses the command line into its arguments
  /// (runtime/program/generated.h program_main) and calls it. Pros: runs as it is under mpirun.
  Program,
  /// DIR/<library_stem>.h and .cpp: the function alone, for a user's own MPI program
  /// (called on any communicator of P ranks, repeatedly). Cons: the user writes the main().
  Library,
};

/// What the emitted program calls itself, and its form.
struct EmitOptions {
  std::string name;  ///< program name, e.g. "matmul" (the runtime's ProgramInfo::name)
  EmitForm form = EmitForm::Program;
};

/// The stem of the library form's files (`<library_stem(name)>.h`, `.cpp`) of a program named
/// `name`: `name` with every byte other than an ASCII letter, a digit or '_' replaced by '_' and
/// runs of '_' made one (a double underscore is reserved in C++), prefixed by "tcec_" unless it
/// starts with a letter (a leading '_' dropped first). E.g. "matmul" → "matmul", "4-index" →
/// "tcec_4_index", "a b--c" → "a_b_c". cmake/tcecFunctions.cmake computes the same.
std::string library_stem(std::string_view name);
/// The C++ identifier of the generated function, `tcec_gen::<function_name(name)>`:
/// library_stem(name), suffixed by '_' when that is a C++ keyword ("new" → "new_").
std::string function_name(std::string_view name);

/// The generated C++ source: a header comment (input, machine), one function
/// `contraction_N(tcert::Run&)` per plan (statement, macro-index form, plan text,
/// predicted per-rank bytes, then the GemmSpec constants and the loop nest), `run_steps`
/// (the statements in order), `program_info` (name, P, memory, the inputs' and outputs' shapes),
/// the function `tcert::Status tcec_gen::<function_name(name)>(MPI_Comm, const
/// tcert::TensorLocations&, const tcert::RunOptions&)` (runtime/program/generated.h run_generated),
/// and for EmitForm::Program main() (program_main); for EmitForm::Library it includes
/// "<library_stem(name)>.h" instead. `machine` is the one `plans` were made for; its
/// element size must be 8 (the runtime's double). Precondition: check_program() found no
/// error (TCEC_ASSERT on infeasible plans).
std::string emit_program(const ir::Program& program, const costmodel::Machine& machine,
                         const std::vector<costmodel::StatementPlan>& plans, const EmitOptions& options);

/// The header of the library form, `<library_stem(name)>.h`: the declaration of the function
/// with a doc comment (source, P, memory, the inputs' and outputs' shapes), including only
/// <mpi.h>, runtime/program/options.h and runtime/base/status.h.
std::string emit_library_header(const ir::Program& program, const costmodel::Machine& machine,
                                const std::vector<costmodel::StatementPlan>& plans, const EmitOptions& options);

/// `source`, C++ text named `file_name`, formatted by clang-format's library
/// (clang::format::reformat) in the project's style: the repository's .clang-format, embedded
/// at build time. `tcec -o` writes generated programs (and the library form's files) through
/// it, so they pass `clang-format --style=file:.clang-format --dry-run --Werror`.
std::string format_source(const std::string& source, const std::string& file_name);

/// The result of generate(): the source (and with EmitForm::Library the header) when
/// `diagnostics` holds no error.
struct Generated {
  std::string source;
  std::string header;    ///< EmitForm::Library only
  int contractions = 0;  ///< contraction functions emitted
  int copies = 0;        ///< copy functions emitted (one-operand statements)
  std::vector<Diagnostic> diagnostics;
  bool ok() const { return diagnostics.empty(); }
};

/// The whole stage: needs program.machine (else err_no_machine) with 8-byte elements
/// (else err_element_size), plans every statement with `options`, checks and emits.
Generated generate(const ir::Program& program, const costmodel::PlanOptions& options, const EmitOptions& emit);
/// The same on a plan already made (costmodel::make_plan(), e.g. the one the driver also
/// reports): checks and emits plan.statements without planning again. Errors as above
/// (err_no_machine when plan.machine is unset).
Generated generate(const costmodel::ProgramPlan& plan, const EmitOptions& emit);

/// How generated programs are built: the MPI C++ compiler, the project's source root
/// (the include directory for "runtime/..."), libtcert.a and libtcert_spec.a, all from the build
/// tree.
struct Toolchain {
  std::string compiler;  ///< mpicxx found by CMake, or $TCEC_CXX when set and non-empty
  std::string source_root;
  std::string runtime_library;  ///< path of libtcert.a
  std::string spec_library;     ///< path of libtcert_spec.a (runtime/spec/, which libtcert uses)
  /// A program the compile step runs through (a compiler cache such as the one tcec was built
  /// with), or "" to compile and link in one call. $TCEC_CXX_LAUNCHER replaces it ("" for none).
  std::string launcher = {};
};
/// The tool chain of generated programs: when this tcec runs installed (its executable in
/// PREFIX/bin, with the runtime's headers in PREFIX/include/tcec/runtime and libtcert in
/// PREFIX/lib with libtcert_spec, as `cmake --install` lays them out), the installed runtime; otherwise the build
/// tree's (paths recorded by CMake in codegen/build_config.h). A non-empty $TCEC_CXX replaces
/// the compiler (a program name or path).
Toolchain toolchain();
/// The installed tool chain of a tcec whose executable is `executable` (see toolchain()), or
/// nullopt when it is not in an installed tree.
std::optional<Toolchain> installed_toolchain(const std::string& executable);

/// The compiler's argument vector: compiler -std=c++20 -O2 -I<root> SOURCE <libtcert.a>
/// -lopenblas -lfmt <the HDF5 libraries found at configure time> -o OUTPUT.
std::vector<std::string> build_command(const Toolchain& tools, const std::string& source, const std::string& output);

/// The compile step when the tool chain has a launcher: launcher compiler -std=c++20 -O2
/// -I<root> SOURCE -c -o OBJECT (the libraries come at the link, build_command's tail).
std::vector<std::string> compile_command(const Toolchain& tools, const std::string& source, const std::string& object);

/// Compiles `source` into the executable `executable`: builds `executable`.tmp, then
/// renames it, so a failed build leaves no `executable` (and no .tmp) behind. With a launcher
/// it compiles `executable`.o through it (compile_command) and links that object (build_command
/// with the object in place of the source), removing the object afterwards. Returns
/// false on failure with the compiler's combined stdout/stderr (or why it could not
/// start) in *output.
bool build_program(const Toolchain& tools, const std::string& source, const std::string& executable,
                   std::string* output);

/// Runs argv[0] (searched in PATH) with `argv`, without a shell, and waits. Its stdout
/// and stderr go, interleaved, into *output. Returns its exit status, 128 + the signal
/// when killed, or -1 when it could not be started (*output then says why).
int run_command(const std::vector<std::string>& argv, std::string* output);

}  // namespace tcec::codegen

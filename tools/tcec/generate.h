// tools/tcec/generate.h — `tcec FILE -o DIR [--emit program|library] [--build]`: the code
// generation pass of the driver.
#pragma once

#include <filesystem>
#include <string>

#include "codegen/codegen.h"
#include "costmodel/costmodel.h"
#include "ir/ir.h"

namespace tcec::tools {

/// Writes `text` to `path` through a temporary file in the same directory, renamed when
/// complete; false with *error ("cannot write 'P.tmp-123'", "cannot rename …") and no file left.
bool write_atomically(const std::filesystem::path& path, const std::string& text, std::string* error);

/// Generates `program` (stem: the input's file name without its extension, or the --section or
/// --function name), creating DIR when missing; every file, formatted in the project's style
/// (codegen::format_source), is written under a temporary name and renamed.
///   EmitForm::Program: DIR/<stem>.cpp; prints "tcec: wrote DIR/<stem>.cpp (N contractions[, M
///   copies])". With `build`, compiles it to DIR/<stem> (codegen::build_program) and prints
///   "tcec: built DIR/<stem>".
///   EmitForm::Library: DIR/<f>.h and DIR/<f>.cpp with f = codegen::library_stem(stem) (the
///   stem itself when it is an identifier); prints "tcec: wrote DIR/<f>.h and DIR/<f>.cpp (…):
///   tcec_gen::<function_name(stem)>()". `build` must be false.
/// Errors go to stderr: codegen diagnostics clang-style (FILE:LINE:COL: error: ..., source line,
/// caret), I/O errors and "tcec: error: building DIR/<stem> failed" after the compiler's output;
/// nothing is written when the program has diagnostics. Returns the exit status (0 or 1).
/// `plan` is the program's plan (costmodel::make_plan(); codegen::generate() emits it as made).
int generate_program(const costmodel::ProgramPlan& plan, const std::string& stem, const std::string& output_dir,
                     bool build, codegen::EmitForm form = codegen::EmitForm::Program);

}  // namespace tcec::tools

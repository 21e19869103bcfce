// tools/tcec/generate.cpp — the -o pass: generate, write DIR/<stem>.cpp (and the library form's
// header) atomically, build.
#include "generate.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "codegen/codegen.h"
#include "frontend/frontend.h"
#include "tools/diagnostics.h"

namespace tcec::tools {

namespace {

namespace fs = std::filesystem;

// Renders codegen diagnostics as the frontend renders its own (with the source line).
void print_diagnostics(const ir::Program& program, const std::vector<codegen::Diagnostic>& diagnostics) {
  frontend::DiagnosticList list;
  std::ifstream in(program.file, std::ios::binary);
  std::ostringstream source;
  source << in.rdbuf();
  list.add_source(program.file, source.str());
  for (const codegen::Diagnostic& d : diagnostics) list.add(d);
  std::fputs(list.render().c_str(), stderr);
}

}  // namespace

// Writes `text` to `path` through a temporary file in the same directory; false with *error.
bool write_atomically(const std::filesystem::path& path, const std::string& text, std::string* error) {
  const fs::path temporary = path.string() + fmt::format(".tmp-{}", getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      *error = message_text(ToolDiag::err_write_file, temporary.string());
      std::error_code ignored;
      fs::remove(temporary, ignored);
      return false;
    }
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) {
    *error = message_text(ToolDiag::err_rename_file, temporary.string(), path.string(), ec.message());
    fs::remove(temporary, ec);
    return false;
  }
  return true;
}

int generate_program(const costmodel::ProgramPlan& plan, const std::string& stem, const std::string& output_dir,
                     bool build, codegen::EmitForm form) {
  const ir::Program& program = *plan.program;
  const codegen::Generated generated = codegen::generate(plan, {stem, form});
  if (!generated.ok()) {
    print_diagnostics(program, generated.diagnostics);
    return 1;
  }
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) {
    report("tcec", ToolDiag::err_create_directory, output_dir, ec.message());
    return 1;
  }
  const bool library = form == codegen::EmitForm::Library;
  const std::string file_stem = library ? codegen::library_stem(stem) : stem;
  const fs::path source = fs::path(output_dir) / (file_stem + ".cpp"),
                 header = fs::path(output_dir) / (file_stem + ".h");
  std::string error;
  if ((library &&
       !write_atomically(header, codegen::format_source(generated.header, header.filename().string()), &error)) ||
      !write_atomically(source, codegen::format_source(generated.source, source.filename().string()), &error)) {
    report("tcec", ToolDiag::err_formed, error);
    return 1;
  }
  const std::string copies =
      generated.copies == 0 ? "" : fmt::format(", {} cop{}", generated.copies, generated.copies == 1 ? "y" : "ies");
  const std::string counts =
      fmt::format("{} contraction{}{}", generated.contractions, generated.contractions == 1 ? "" : "s", copies);
  if (library) {
    std::printf("tcec: wrote %s and %s (%s): tcec_gen::%s()\n", header.string().c_str(), source.string().c_str(),
                counts.c_str(), codegen::function_name(stem).c_str());
    return 0;
  }
  std::printf("tcec: wrote %s (%s)\n", source.string().c_str(), counts.c_str());
  if (!build) return 0;
  std::fflush(stdout);
  const fs::path executable = fs::path(output_dir) / stem;
  std::string output;
  if (!codegen::build_program(codegen::toolchain(), source.string(), executable.string(), &output)) {
    std::fputs(output.c_str(), stderr);
    report("tcec", ToolDiag::err_build_failed, executable.string());
    return 1;
  }
  std::fputs(output.c_str(), stderr);  // compiler warnings, if any
  std::printf("tcec: built %s\n", executable.string().c_str());
  return 0;
}

}  // namespace tcec::tools

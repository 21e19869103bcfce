// codegen/format.cpp — format_source(): generated C++ through clang-format's library in the
// project's style (the repository's .clang-format, embedded by CMake in codegen/format_style.h).
#include <clang/Format/Format.h>
#include <clang/Tooling/Core/Replacement.h>

#include "codegen/codegen.h"
#include "codegen/format_style.h"

namespace tcec::codegen {

std::string format_source(const std::string& source, const std::string& file_name) {
  clang::format::FormatStyle style = clang::format::getGoogleStyle(clang::format::FormatStyle::LK_Cpp);
  const std::error_code parsed = clang::format::parseConfiguration(format_style::kClangFormat, &style);
  TCEC_ASSERT(!parsed, "the embedded .clang-format parses");
  const clang::tooling::Replacements replacements = clang::format::reformat(
      style, source, {clang::tooling::Range(0, static_cast<unsigned>(source.size()))}, file_name);
  llvm::Expected<std::string> formatted = clang::tooling::applyAllReplacements(source, replacements);
  if (!formatted) {
    llvm::consumeError(formatted.takeError());
    TCEC_ASSERT(false, "clang-format's replacements apply to the text they were made for");
  }
  return *formatted;
}

}  // namespace tcec::codegen

// codegen/cpp_text.cpp — user text inside generated C++: string literals and comments.
#include "codegen/emit.h"

namespace tcec::codegen {

std::string cpp_string_literal(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      out += fmt::format("\\{:03o}", c);  // octal takes at most three digits: safe before any text
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string comment_text(std::string_view text) {
  std::string out(text);
  for (char& ch : out) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) ch = '?';
  }
  return out;
}

}  // namespace tcec::codegen

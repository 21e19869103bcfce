// runtime/fault.cpp — fault_point(): TCERT_FAULT=RANK:POINT kills that rank at that point.
#include "runtime/fault.h"

#include <csignal>
#include <cstdlib>
#include <string>

namespace tcert {

void fault_point(int rank, std::string_view point) {
  static const std::string wanted = [] {
    const char* text = std::getenv("TCERT_FAULT");
    return std::string(text == nullptr ? "" : text);
  }();
  if (wanted.empty()) return;
  const std::size_t colon = wanted.find(':');
  if (colon == std::string::npos || wanted.substr(0, colon) != std::to_string(rank)) return;
  if (std::string_view(wanted).substr(colon + 1) == point) std::raise(SIGKILL);
}

}  // namespace tcert

// runtime/base/fault.cpp — fault_point(): TCERT_FAULT=RANK:POINT kills that rank at that point.
#include "runtime/base/fault.h"

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
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

void counted_fault_point(int rank, const std::string& name) {
  static std::mutex lock;
  static std::map<std::string, std::uint64_t> calls;
  std::uint64_t n = 0;
  {
    const std::lock_guard<std::mutex> hold(lock);
    n = ++calls[name];
  }
  fault_point(rank, name + ":" + std::to_string(n));
}

}  // namespace tcert

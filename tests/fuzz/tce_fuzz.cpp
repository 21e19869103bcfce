// tests/fuzz/tce_fuzz.cpp — libFuzzer target: a .tce program (grammar/Tce.g4) through the whole
// front end, parse_source() with the default options. bench/fuzz.sh runs it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/frontend.h"
#include "fuzz_check.h"

/// One input: any bytes, as a .tce file. Never crashes; aborts only on a broken fuzz_check.h rule.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string source(reinterpret_cast<const char*>(data), size);
  tcec::frontend::Options options;
  options.format = tcec::frontend::InputFormat::Tce;
  tcec::fuzz::check_result(tcec::frontend::parse_source(tcec::fuzz::kFile, source, options), source);
  return 0;
}

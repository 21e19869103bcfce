// tests/fuzz/nwchem_fuzz.cpp — libFuzzer target: an NWChem TCE equation tree (`tcec --from nwchem`,
// frontend/nwchem.h) through parse_source(), with -D O=4 -D V=6 (without them every input is a
// command-line error). bench/fuzz.sh runs it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/frontend.h"
#include "fuzz_check.h"

/// One input: any bytes, as an equation tree. Never crashes; aborts only on a broken fuzz_check.h rule.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string source(reinterpret_cast<const char*>(data), size);
  tcec::frontend::Options options;
  options.format = tcec::frontend::InputFormat::Nwchem;
  options.defines = {"O=4", "V=6"};
  tcec::fuzz::check_result(tcec::frontend::parse_source(tcec::fuzz::kFile, source, options), source);
  return 0;
}

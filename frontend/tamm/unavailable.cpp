// frontend/tamm/unavailable.cpp — import_tamm() of a build without Clang's libTooling (the fuzz
// build, TCEC_FUZZ; frontend/CMakeLists.txt): `--from tamm` is a command-line error there.
#include "frontend/tamm/tamm.h"

namespace tcec::frontend {

Result import_tamm(const std::string& file, std::string /*source*/, const Options& /*options*/) {
  Result result;
  Reporter(result.diagnostics, file).report(DiagId::err_tamm_not_built, {});
  return result;
}

}  // namespace tcec::frontend

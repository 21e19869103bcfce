// costmodel/methods/sfc/sfc_method.cpp — sfc's entry in the registry (method.h): its identity and
// its model, plan codec and report.
#include "costmodel/methods/sfc/sfc_method.h"

namespace tcec::costmodel {

const Method& sfc_method() {
  static const SfcModel kModel;
  static const SfcCodec kCodec;
  static const SfcReport kReport;
  static const Method kMethod{"sfc", "sfc", false, false, false, kModel, kCodec, kReport};
  return kMethod;
}

}  // namespace tcec::costmodel

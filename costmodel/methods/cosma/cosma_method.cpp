// costmodel/methods/cosma/cosma_method.cpp — cosma's entry in the registry (method.h): its
// identity and its model, plan codec and report.
#include "costmodel/methods/cosma/cosma_method.h"

namespace tcec::costmodel {

const Method& cosma_method() {
  static const CosmaModel kModel;
  static const CosmaCodec kCodec;
  static const CosmaReport kReport;
  static const Method kMethod{"cosma", "cosma", false, false, false, kModel, kCodec, kReport};
  return kMethod;
}

}  // namespace tcec::costmodel

// costmodel/methods/tbs/tbs_method.cpp — tbs's entry in the registry (method.h): its identity and
// its model, plan codec and report.
#include "costmodel/methods/tbs/tbs_method.h"

namespace tcec::costmodel {

const Method& tbs_method() {
  static const TbsModel kModel;
  static const TbsCodec kCodec;
  static const TbsReport kReport;
  static const Method kMethod{"tbs", "tbs", false, false, false, kModel, kCodec, kReport};
  return kMethod;
}

}  // namespace tcec::costmodel

// costmodel/methods/gao/gao_method.cpp — the registry's entries of the six methods of Gao et al.
// (method.h): each one's identity and its model, plan codec and report.
#include "costmodel/methods/gao/gao_method.h"
#include "costmodel/methods/gao/gao.h"

namespace tcec::costmodel {

namespace {

/// One method of the six: its parts and its entry.
struct GaoEntry {
  GaoModel model;
  GaoCodec codec;
  GaoReport report;
  Method method;
  GaoEntry(Communication comm, Algorithm algorithm)
      : model(comm, algorithm),
        codec(comm, algorithm),
        report(comm, algorithm),
        method{method_name(comm, algorithm), "Gao", true, true, true, model, codec, report} {}
};

}  // namespace

const std::vector<const Method*>& gao_methods() {
  static const GaoEntry kEntries[] = {
      {Communication::Inside, Algorithm::Rotation},     {Communication::Inside, Algorithm::Replication},
      {Communication::Inside, Algorithm::Accumulation}, {Communication::Outside, Algorithm::Rotation},
      {Communication::Outside, Algorithm::Replication}, {Communication::Outside, Algorithm::Accumulation}};
  static const std::vector<const Method*> kList = [] {
    std::vector<const Method*> v;
    for (const GaoEntry& e : kEntries) v.push_back(&e.method);
    return v;
  }();
  return kList;
}

}  // namespace tcec::costmodel

// clang-format off
// TAMM import (--from tamm): tcec instantiates a template of one type parameter only.
using namespace tamm;

template <typename T, int N>
void energy(Scheduler& sch, Tensor<T>& e) {  // expected-error:6 {{function template 'energy' has 2 template parameters; tcec instantiates a template of one type parameter (the element type) with double}}
  sch(e() = 0);
}

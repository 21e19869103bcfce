// clang-format off
// TAMM import (--from tamm): an error Clang finds when tcec instantiates the template (T = double).
using namespace tamm;

template <typename T>
void energy(Scheduler& sch, const TiledIndexSpace& MO, Tensor<T>& e, const Tensor<T>& t) {  // expected-note:6 {{in 'energy' with T = double, as tcec instantiates it}}
  auto [i, a] = MO.labels<2>("occ");
  sch(e() += 0.5 * (t(i, a) + 1.0));  // expected-error:29 {{invalid operands to binary expression ('LabeledTensor<double>' and 'double')}}
}

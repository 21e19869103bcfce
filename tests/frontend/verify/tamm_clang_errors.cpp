// clang-format off
// TAMM import (--from tamm): Clang's own errors inside the imported function, at Clang's
// locations; errors elsewhere in the file (code the stub header does not declare) are ignored.
#include <vector>
using namespace tamm;

std::vector<int> elsewhere;

void energy(Scheduler& sch, const TiledIndexSpace& MO, Tensor<double>& e, const Tensor<double>& t) {
  auto [i, a] = MO.labels<2>("occ");
  sch(e() += t(i, a) * undeclared(a, i));  // expected-error:24 {{use of undeclared identifier 'undeclared'}}
  sch.run();  // expected-error:7 {{no member named 'run' in 'tamm::Scheduler'}}
}

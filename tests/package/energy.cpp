// The user project's TAMM function (tests/package): the CCSD energy as TAMM writes it, compiled
// by tcec_add_program(... FROM tamm FUNCTION energy) at build time.
#include "tamm/tamm.hpp"

using namespace tamm;

template <typename T>
void energy(Scheduler& sch, const TiledIndexSpace& MO, Tensor<T>& de, const Tensor<T>& t1, const Tensor<T>& t2,
            const Tensor<T>& f1, const Tensor<T>& v2) {
  const TiledIndexSpace& O = MO("occ");
  const TiledIndexSpace& V = MO("virt");
  Tensor<T> i1{{O, V}, {1, 1}};
  auto [p1, p2, p3] = MO.labels<3>("virt");
  auto [h1, h2, h3] = MO.labels<3>("occ");
  sch.allocate(i1)(i1(h1, p1) = f1(h1, p1))(i1(h1, p1) += 0.5 * t1(p2, h2) * v2(h2, h1, p2, p1))(de() = 0)(
         de() += t1(p1, h1) * i1(h1, p1))(de() += 0.25 * t2(p1, p2, h1, h2) * v2(h1, h2, p1, p2))
      .deallocate(i1)
      .execute();
}

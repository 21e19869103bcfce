// clang-format off
// TAMM import (--from tamm): operations Clang accepts but tcec's IR cannot express or forbids.
using namespace tamm;

void terms(Scheduler& sch, const TiledIndexSpace& MO, Tensor<double>& r, Tensor<double>& e, const Tensor<double>& a,
           const Tensor<double>& b) {
  const TiledIndexSpace& O = MO("occ");
  const TiledIndexSpace& V = MO("virt");
  Tensor<double> x{{O, O}, {1, 1}};  // expected-note:18 {{'x' declared here}}
  Tensor<double> y{O, V};
  Tensor<double> a_hh{O, O};  // expected-error:18 {{this tensor would be named 'a_hh', but 'a' (line 5) has a tensor of that name; rename one of them}}
  Tensor<double> z{MO, O};  // expected-error:18 {{dimension 1 of 'z' is over "all"; tcec supports "occ" (range O) and "virt" (range V)}}
  auto [i, j, k] = MO.labels<3>("occ");
  auto [p, q] = MO.labels<2>("virt");
  auto [m, n] = MO.labels<2>("all");
  sch(x(i, j) = a(i, k) * b(k, j))
     (x(i, j) = 0)
     (r(i, j) = x(i, j))  // expected-error:17 {{'x' is read after '= 0' at line 17 cleared it; tcec clears a tensor only through its next write ('=' or '+=')}}
     (y(i, j) = a(i, j))  // expected-error:12 {{index 'j' ranges over 'O' but dimension 2 of 'y' is over 'V'}}
     (y(i, p) = y(i, q) * b(q, p))  // expected-error:17 {{'y' is read before any operation writes it}}
     (r(i, j) = a(i, j))
     (r(i, p) += a(i, p))  // expected-error:7 {{'r' is written as 'r(i, j)' at line 21; an output keeps that one block, but this is 'r(i, p)'}}
     (a_hh(i, j) = b(i, j))
     (r(i, j) += a(i, k) * b(k, j) * a(j, j))  // expected-error:7 {{a product of 3 operands is not yet supported (at most 2)}}
     (r(i, j) += r(j, i))  // expected-error:18 {{tensor 'r' is both the result and an operand; this is not supported}}
     (r(i, j) += a(i, k) * b(i, k))  // expected-error:30 {{index 'i' is in the result and in both operands (a batch index); this is not supported}} expected-error:12 {{result index 'j' does not appear on the right-hand side}}
     (x(i, j, k) = a(i, j))  // expected-error:7 {{tensor 'x' has rank 2 but is used with 3 labels}}
     (z(i, j) = a(i, j))
     (e() = a(m, n))  // expected-error:15 {{label 'm' ranges over "all"; tcec supports labels over "occ" (range O) and "virt" (range V)}} expected-error:18 {{label 'n' ranges over "all"; tcec supports labels over "occ" (range O) and "virt" (range V)}}
     (e() = 0);  // expected-error:7 {{'e' is cleared here but not written again; tcec clears an output only through its next write}}
}

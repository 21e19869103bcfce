// clang-format off
// TAMM import (--from tamm): what the importer does not read, at Clang's source locations.
#include "tamm/tamm.hpp"
using namespace tamm;

void helper();
TiledIndexSpace make_space();

template <typename T>
void residual(Scheduler& sch, const TiledIndexSpace& MO, Tensor<T>& r, const Tensor<T>& a, const Tensor<T>& b,
              T scale, const char* name) {
  TiledIndexLabel h1, h2, h3, h4;
  std::tie(h1, h2, h3) = MO.labels<3>("occ");
  std::tie(h1, h2) = MO.labels<3>("occ");  // expected-error:22 {{std::tie of 2 labels is assigned 3 labels}}
  std::tie(h1, h2) = MO.labels<2>(name);  // expected-error:35 {{expected the name of an index space as a string literal such as "occ", got 'name'}}
  h4 = h1;
  std::tie(h4) = std::tie(h1);  // expected-error:18 {{expected labels from an index space, such as MO.labels<2>("occ") or MO.label("virt"), got 'std::tie(h1)'}}
  const TiledIndexSpace& S = make_space();  // expected-error:30 {{cannot tell which index space 'make_space()' is: expected MO("occ"), MO("virt") or a variable initialised with one}}
  double half = 0.5;
  constexpr double quarter = 0.25;
  auto term = a(h1, h3) * b(h3, h2);  // expected-error:8 {{declaration of 'term' of type 'Term<double>' is not supported; tcec reads index spaces, labels, tensors and constants}}
  sch(r(h1, h2) = scale * a(h1, h3) * b(h3, h2))  // expected-error:19 {{coefficient 'scale' is not a compile-time constant (Clang cannot evaluate it); tcec needs its value to plan}}
     (r(h1, h2) += half * a(h1, h3) * b(h3, h2))  // expected-error:20 {{coefficient 'half' is not a compile-time constant (Clang cannot evaluate it); tcec needs its value to plan}}
     (r(h1, h2) += quarter * a(h1, h3) * b(h3, h2))
     (r(h1, h2) += a(h1, 0) * b(h3, h2))  // expected-error:26 {{expected an index label, got '0'}}
     (r(h1, h2) = term);  // expected-error:19 {{expected a labelled tensor such as 't1(p5, h6)' or a constant, got 'term'}}
  for (int k = 0; k < 2; ++k) sch(r(h1, h2) += a(h1, h3) * b(h3, h2));  // expected-error:3 {{a loop is not supported: tcec imports the straight-line operations of a Scheduler chain}}
  if (scale > 0) sch(r(h1, h2) += a(h1, h3) * b(h3, h2));  // expected-error:3 {{a conditional is not supported: tcec imports the straight-line operations of a Scheduler chain}}
  helper();  // expected-error:3 {{call to 'helper' is not supported; tcec reads Scheduler chains of operations, allocate, deallocate and execute}}
  sch;  // expected-error:3 {{this statement is not supported (DeclRefExpr); tcec reads declarations of index spaces, labels and tensors, label assignments and Scheduler chains}}
  sch(r(h1, h2) = 1.0);  // expected-error:7 {{'r(h1, h2) = 1.0' sets every element to 1; only '= 0' is supported}}
  sch(r(h1, h2) = 0)(r(h1, h2) = Tensor<T>{}(h1, h2));  // expected-error:34 {{expected a tensor parameter or local tensor, got 'Tensor<T>{}'}}
}

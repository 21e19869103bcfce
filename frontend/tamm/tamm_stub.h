// frontend/tamm/tamm_stub.h — the TAMM declarations `tcec --from tamm` parses a TAMM program
// with, instead of TAMM's own headers (installed as include/tcec/tamm/tamm_stub.h).
//
// Clang reads it as a forced include (-include) before the program, whose own #include lines
// are skipped, so a TAMM file parses without TAMM, GA or the standard library. It declares what
// straight-line TAMM code uses (TAMM, github.com/NWChemEx/TAMM, methods/cc/ccsd_canonical.hpp):
//
//   const TiledIndexSpace& O = MO("occ");                  // a sub-space of the MO space
//   Tensor<T> i1{{O, V}, {1, 1}};                           // a local tensor: an intermediate
//   TiledIndexLabel h1, p1;  std::tie(h1, h2) = MO.labels<2>("occ");  // or auto [p1, p2] = ...
//   sch.allocate(i1)(i1(h6, p5) = f1(h6, p5))(i1(h6, p5) += 0.5 * t1(p3, h4) * v2(h4, h6, p3, p5))
//      (de() = 0).deallocate(i1).execute();
//
// Nothing here is defined: the file is parsed, never compiled or linked. The types only have to
// make the expressions above well-formed, so that Clang resolves every operator to one of these
// declarations and the importer (frontend/tamm/clang_import.cpp) reads the calls.
#pragma once

namespace std {

// The tuple protocol for `std::tie(a, b) = MO.labels<2>("occ")` and `auto [a, b] = ...`.
template <typename... T>
class tuple {
 public:
  tuple();
  tuple(const tuple&);
  template <typename... U>
  tuple& operator=(const tuple<U...>& other);
};
template <typename... T>
tuple<T&...> tie(T&... values);
template <typename T>
struct tuple_size;
template <typename... T>
struct tuple_size<tuple<T...>> {
  static constexpr decltype(sizeof(0)) value = sizeof...(T);
};
template <decltype(sizeof(0)) I, typename T>
struct tuple_element;
template <decltype(sizeof(0)) I, typename Head, typename... Tail>
struct tuple_element<I, tuple<Head, Tail...>> : tuple_element<I - 1, tuple<Tail...>> {};
template <typename Head, typename... Tail>
struct tuple_element<0, tuple<Head, Tail...>> {
  using type = Head;
};
template <decltype(sizeof(0)) I, typename... T>
typename tuple_element<I, tuple<T...>>::type& get(tuple<T...>& t);
template <decltype(sizeof(0)) I, typename... T>
typename tuple_element<I, tuple<T...>>::type&& get(tuple<T...>&& t);

}  // namespace std

namespace tamm {

class ExecutionContext {};

/// An index label (`h1`, `p5`): ranges over the space of the labels<N>() or label() call
/// that assigned it.
class TiledIndexLabel {
 public:
  TiledIndexLabel();
};

namespace stub {
// std::tuple of N labels: the type of TiledIndexSpace::labels<N>().
template <decltype(sizeof(0)) N, typename... L>
struct Labels {
  using type = typename Labels<N - 1, TiledIndexLabel, L...>::type;
};
template <typename... L>
struct Labels<0, L...> {
  using type = std::tuple<L...>;
};
}  // namespace stub

/// An index space: the MO space (a parameter) or a named sub-space of it, `MO("occ")`.
class TiledIndexSpace {
 public:
  TiledIndexSpace();
  /// The sub-space `id` ("occ", "virt", ...).
  TiledIndexSpace operator()(const char* id) const;
  /// One label over the sub-space `id` ("all": this space).
  TiledIndexLabel label(const char* id = "all", int start = 0) const;
  /// N labels over the sub-space `id` ("all": this space).
  template <decltype(sizeof(0)) N>
  typename stub::Labels<N>::type labels(const char* id = "all", int start = 0) const;
};

/// The index spaces of a tensor declaration, `{O, V}` (at most 8).
struct IndexSpaces {
  TiledIndexSpace spaces[8];
};
/// TAMM's spin mask of a tensor declaration, `{1, 1}` (ignored by tcec).
struct SpinMask {
  int upper_lower[8];
};

template <typename T>
class LabeledTensor;
template <typename T>
class Term;

/// One assignment `(X(...) = ...)` or update `(X(...) += ...)` handed to the Scheduler.
template <typename T>
class Op {};

/// A tensor: a function parameter (an input, an output or both) or a local (an intermediate).
template <typename T>
class Tensor {
 public:
  Tensor();
  Tensor(IndexSpaces spaces, SpinMask spin = {});
  Tensor(const TiledIndexSpace& first);
  Tensor(const TiledIndexSpace& first, const TiledIndexSpace& second);
  Tensor(const TiledIndexSpace& first, const TiledIndexSpace& second, const TiledIndexSpace& third);
  Tensor(const TiledIndexSpace& first, const TiledIndexSpace& second, const TiledIndexSpace& third,
         const TiledIndexSpace& fourth);
  /// The tensor under labels: `t1(p5, h6)`; `de()` is the whole tensor.
  template <typename... Label>
  LabeledTensor<T> operator()(const Label&... labels) const;
};

/// `X(i, j)`: the left-hand side of an operation or a factor of a product.
template <typename T>
class LabeledTensor {
 public:
  LabeledTensor(const LabeledTensor& other);
  Op<T> operator=(const LabeledTensor& rhs) const;
  Op<T> operator=(const Term<T>& rhs) const;
  Op<T> operator=(T value) const;
  Op<T> operator+=(const Term<T>& rhs) const;
  Op<T> operator-=(const Term<T>& rhs) const;

  friend Term<T> operator*(T alpha, const LabeledTensor& a);
  friend Term<T> operator*(const LabeledTensor& a, T alpha);
  friend Term<T> operator*(const LabeledTensor& a, const LabeledTensor& b);
};

/// A product of a coefficient and labelled tensors.
template <typename T>
class Term {
 public:
  Term(const LabeledTensor<T>& a);
  friend Term operator*(T alpha, const Term& t);
  friend Term operator*(const Term& t, T alpha);
  friend Term operator*(const Term& t, const LabeledTensor<T>& b);
};

/// Runs operations in the order they are chained: `sch(op1)(op2).execute()`.
class Scheduler {
 public:
  Scheduler();
  explicit Scheduler(ExecutionContext& ec);
  template <typename T>
  Scheduler& operator()(const Op<T>& op);
  template <typename... Tensors>
  Scheduler& allocate(const Tensors&... tensors);
  template <typename... Tensors>
  Scheduler& deallocate(const Tensors&... tensors);
  void execute();
};

}  // namespace tamm

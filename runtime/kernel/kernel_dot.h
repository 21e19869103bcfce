// runtime/kernel/kernel_dot.h — (private) contract() as inner products along K, for a product with a
// few rows on one side whose other operand holds K innermost: that operand is read in place, in
// its stored order, with no packing.
#pragma once

#include <cstdint>

#include "runtime/kernel/kernel.h"
#include "runtime/kernel/kernel_plan.h"

namespace tcert::detail {

/// The most elements the small side's outer group (I or J) has for dot().
constexpr std::int64_t kDotMaxSide = 16;

/// Whether dot() computes `x` with `ws`: the CPU has AVX-512 (gett_vectorized()),
/// ws.inner_products and ws.scheme is not Ttgt; one side's outer group (I of A or J of B) has
/// 2 … kDotMaxSide elements (the small side) and the other's as many or more (the big side); the big
/// operand's innermost stored dimension of extent > 1 is a K index, and its trailing K dimensions
/// hold runs of at least 32 consecutive elements; and the small operand copied in K order fits
/// GETT's bound for its column block (n·|K| ≤ ws.gett_kc·ws.gett_nc elements).
bool dot_applies(const Indexing& x, const Workspace& ws);

/// Where dot_applies(x, ws): C = alpha·A·Bᵀ + beta·C on row-major A, B and C (extents of the
/// layout), and returns true; elsewhere returns false and does nothing. The small operand is
/// copied into ws.b in the big operand's K order, the n columns' values of each k together (n·|K|
/// elements). The big operand is read in place, in its stored order, 8 rows at a time (fewer
/// where C's rows stop being consecutive), the next 8 rows' lines and the next block's lines of C
/// fetched ahead: per 8 elements of K, 8 vector loads and an 8×8 register transpose give
/// one vector of the 8 rows per k, which n FMAs with broadcast columns add into n accumulators,
/// one vector of C each at the end. GETT packs each element of the big operand (a register
/// transpose and a store, K innermost) and then uses it for n ≤ 16 columns only: on T1 × v_pppp
/// in tcec-ccsd (|I| = 10, |J| = 38³, |K| = 38, K innermost in v_pppp) it ran at 13 GFLOP/s,
/// packing about half the time; this at 16–20 (cold and warm data, kb side by side: 3.6 -> 2.4
/// ms).
/// Throws nothing (std::bad_alloc aside); the layout must be validated.
bool dot(const Indexing& x, double alpha, const double* A, const double* B, double beta, double* C, Workspace& ws);

}  // namespace tcert::detail

// runtime/kernel/kernel_gemv.h — (private) contract() where |I| = 1 or |J| = 1: a matrix–vector or a
// dot product, computed by walking the matrix operand in its stored order, with no packing and
// no workspace.
#pragma once

#include "runtime/kernel/kernel_plan.h"

namespace tcert::detail {

/// C = alpha·A·Bᵀ + beta·C for a layout whose |I| or |J| is 1 (`x`: its ids, kernel_plan.h),
/// on row-major A, B and C (extents of the layout). The matrix operand (B when |I| = 1, else A)
/// is read once, in its stored order, as runs of its innermost dimensions (merged where they are
/// also consecutive in the vector operand and in C); each run is one BLAS ddot (the innermost
/// index is summed) or daxpy (it indexes C), or a plain loop when shorter than 8 elements. The
/// vector and C are read and written where the strides lead. Memory-bound: 8 bytes of the
/// matrix per 2 flops. GETT's 16×14 register tiles would compute up to 224 times the flops and
/// pack every element (the CCSD energy's dot, |K| = 144,400, in tcec-ccsd: 2.4 ms, here 0.24 ms;
/// 0.1 ms on warm data).
/// Throws nothing; the layout must be validated and |I| or |J| must be 1.
void gemv(const Indexing& x, double alpha, const double* A, const double* B, double beta, double* C);

}  // namespace tcert::detail

// runtime/kernel/kernel_simd.h — (private) x86-64 SIMD helpers shared by the permutation and the
// GETT kernels: whether the CPU has AVX-512 (checked once at run time) and the 8×8 register
// transpose. Only compiled on x86-64 with GCC or Clang (TCERT_HAVE_X86_KERNELS).
#pragma once

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define TCERT_HAVE_X86_KERNELS 1

namespace tcert::detail {

/// True when the CPU has AVX-512 F (checked once).
inline bool has_avx512() {
  static const bool yes = (__builtin_cpu_init(), __builtin_cpu_supports("avx512f"));
  return yes;
}

// GCC 12 warns inside its own intrinsics (_mm512_undefined_pd); nothing here is uninitialized.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"

/// Transposes the 8×8 block held in r[0..7] (r[i] = row i, 8 doubles) in place: 24 shuffles.
__attribute__((target("avx512f"))) inline void transpose_8x8(__m512d r[8]) {
  __m512d t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]);
  }
  const __m512i even = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
  const __m512i odd = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm512_permutex2var_pd(t[i], even, t[i + 2]);          // rows i..i+3 of columns 0 | 4
    u[i + 1] = _mm512_permutex2var_pd(t[i], odd, t[i + 2]);       // columns 2 | 6
    u[i + 2] = _mm512_permutex2var_pd(t[i + 1], even, t[i + 3]);  // columns 1 | 5
    u[i + 3] = _mm512_permutex2var_pd(t[i + 1], odd, t[i + 3]);   // columns 3 | 7
  }
  const int order[4] = {0, 2, 1, 3};  // u index holding columns c | c+4, for c = 0..3
  for (int c = 0; c < 4; ++c) {
    r[c] = _mm512_shuffle_f64x2(u[order[c]], u[4 + order[c]], 0x44);
    r[c + 4] = _mm512_shuffle_f64x2(u[order[c]], u[4 + order[c]], 0xEE);
  }
}

#pragma GCC diagnostic pop

}  // namespace tcert::detail

#endif

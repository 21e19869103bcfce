// runtime/kernel/kernel.h — the local (one-rank, in-core) tile contraction kernel:
// tensor permutation, TTGT contraction and the GEMM tile kernel.
//
// Reader's map:
//   TensorView, ConstTensorView   a row-major tensor: pointer plus extents.
//   ContractionLayout             C(I,J) = A(I,K)·B(J,K)ᵀ: index groups and permutations.
//   layout_from_labels()          builds a layout from einsum-style letters ("abcp,pd->abcd").
//   permute(), permute_strided()  out = alpha·transpose(in) + beta·out, cache-blocked (StoreHint).
//   Workspace, AlignedAllocator   reusable, aligned scratch memory of contract().
//   contract()                    TTGT: permute what must be permuted (in cache-sized chunks),
//                                 dgemm, permute back.
//   gemm_tile()                   the tile kernel of out-of-core plans (row-major dgemm, B transposed).
//
// Implementation: kernel.cpp (layouts, gemm_tile), kernel_permute.cpp, kernel_plan.{h,cpp}
// (how contract() splits the work) and kernel_contract.cpp.
// All sizes, extents and leading dimensions count elements (doubles), never bytes.
// The macro-index form is Gao et al. §2, Eq. 2.2; TTGT ("transpose-transpose-GEMM-
// transpose") is the classic scheme of the TCE (Hirata 2003) and of Springer &
// Bientinesi 2016 §2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tcert {

/// A mutable tensor stored row-major (C order): the last extent varies fastest.
/// Rank 0 (no extents) is a scalar holding one element.
struct TensorView {
  double* data = nullptr;
  std::vector<std::int64_t> extents;  ///< elements along each dimension, outermost first
};

/// The read-only variant of TensorView.
struct ConstTensorView {
  const double* data = nullptr;
  std::vector<std::int64_t> extents;  ///< elements along each dimension, outermost first
};

/// Number of elements of a row-major tensor of these extents (1 for rank 0).
/// Throws std::invalid_argument on a negative extent.
std::int64_t element_count(const std::vector<std::int64_t>& extents);

/// The macro-index GEMM form of a binary contraction, C(I,J) = alpha·A(I,K)·B(J,K)ᵀ + beta·C(I,J)
/// (Gao et al. §2, Eq. 2.2). I, J and K are groups of indices; `extents_I[p]` is the extent
/// (elements) of the p-th index of I in GEMM order, likewise for J and K.
///
/// `perm_X[p]` is the dimension of X, as stored, that holds the p-th index of X's GEMM order:
/// [I..., K...] for A, [J..., K...] for B, [I..., J...] for C. The identity means "already in
/// GEMM layout". This is the convention of ir::MacroIndexGemm and of numpy.transpose(axes).
///
/// Example: `C[a,b,c,d] += A[a,b,c,p] * B[p,d]`. I = (a,b,c), J = (d), K = (p).
/// A = [a,b,c,p] is already [I,K]: perm_A = (0,1,2,3). B = [p,d] must become [J,K] = [d,p]:
/// perm_B = (1,0). C = [a,b,c,d] is already [I,J]: perm_C = (0,1,2,3).
/// So dimension perm_A[p] of A, as stored, has the extent of GEMM position p (see extents_A()).
struct ContractionLayout {
  std::vector<std::int64_t> extents_I, extents_J, extents_K;
  std::vector<int> perm_A, perm_B, perm_C;

  /// Stored (row-major) extents of A, B and C implied by the groups and permutations.
  /// Throw std::invalid_argument when the layout is inconsistent (see validate()).
  std::vector<std::int64_t> extents_A() const;
  std::vector<std::int64_t> extents_B() const;
  std::vector<std::int64_t> extents_C() const;
  /// |I|, |J|, |K|: products of the group extents (elements).
  std::int64_t m() const;
  std::int64_t n() const;
  std::int64_t k() const;
  /// Floating-point operations of one contract(): 2·|I|·|J|·|K|.
  double flops() const;
  /// Throws std::invalid_argument naming the problem when a perm_X has the wrong length
  /// (|I|+|K| for A, |J|+|K| for B, |I|+|J| for C), is not a permutation, or an extent is negative.
  void validate() const;
};

/// Builds the layout of the einsum `c = a * b` from one letter per dimension, e.g. a = "abcp",
/// b = "pd", c = "abcd", with the extent (elements) of every letter. As ir::macro_index_gemm:
/// I = letters of c found in a and J = letters of c found in b, both in c's order; K = letters
/// of a not in c, in a's order. Throws std::invalid_argument when a letter repeats within one
/// tensor, has no extent, is in all three (a batch index), or is summed in only one operand.
ContractionLayout layout_from_labels(const std::string& a, const std::string& b, const std::string& c,
                                     const std::map<char, std::int64_t>& extents);

/// Where permute() writes. Streaming uses non-temporal stores (they bypass the caches and skip
/// the read-for-ownership of each output line): faster for outputs much larger than the last-level
/// cache that are not read again soon, slower for outputs read right away. Only used when beta == 0.
enum class StoreHint {
  Auto,       ///< Streaming when the output exceeds kStreamingBytes, Cached otherwise
  Cached,     ///< ordinary stores
  Streaming,  ///< non-temporal stores where the output is suitably aligned
};

/// Output size (bytes) above which StoreHint::Auto streams: half of a 32 MiB last-level cache.
inline constexpr std::int64_t kStreamingBytes = std::int64_t{16} << 20;

/// The strided form of permute(): `in` has extents_in[d] elements along dimension d, spaced
/// strides_in[d] elements apart; output dimension q is input dimension perm[q], spaced
/// strides_out[q] elements apart in `out`. Strides are in elements and may describe a sub-box of a
/// larger tensor (a tile); the output elements must be distinct and must not overlap `in`.
/// Fastest when one input and one output dimension have stride 1. Throws std::invalid_argument
/// when perm is not a permutation, a size differs from the rank, or an extent is negative.
void permute_strided(const double* in, const std::vector<std::int64_t>& extents_in,
                     const std::vector<std::int64_t>& strides_in, const std::vector<int>& perm, double* out,
                     const std::vector<std::int64_t>& strides_out, double alpha = 1.0, double beta = 0.0,
                     StoreHint hint = StoreHint::Auto);

/// out = alpha·in' + beta·out, where in' is `in` with its dimensions reordered: dimension q of
/// `out` is dimension perm[q] of `in`, so out's extents are extents_in[perm[q]] (numpy's
/// `transpose(in, perm)`). Both are row-major and must not overlap. With beta == 0, `out` is
/// only written (NaNs in it do not propagate).
///
/// Algorithm: drop extent-1 dimensions and fuse dimensions that stay adjacent; an identity is
/// then one memcpy (alpha = 1, beta = 0) or one axpby. If the innermost dimension stays
/// innermost, rows are copied; otherwise each 2-D slice spanned by the innermost dimension of
/// `in` and that of `out` is transposed in 64×64 blocks of 8×8 register tiles (AVX-512 when the
/// CPU has it). The loops around rows or slices run in input order, so that reads are
/// sequential. Outputs larger than kStreamingBytes are written with non-temporal stores (see
/// StoreHint). Throws std::invalid_argument when perm is not a permutation of 0..rank-1 or an
/// extent is negative.
void permute(const double* in, const std::vector<std::int64_t>& extents_in, const std::vector<int>& perm, double* out,
             double alpha = 1.0, double beta = 0.0, StoreHint hint = StoreHint::Auto);

/// Raw storage for Workspace: 64-byte aligned; from 4 MiB on, 2 MiB aligned and advised for
/// transparent huge pages (Linux madvise, as numpy does for large arrays). Throws std::bad_alloc.
void* aligned_allocate(std::size_t bytes);
void aligned_free(void* p) noexcept;

/// A std::allocator replacement over aligned_allocate(), for vectors that feed permute/dgemm.
template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(aligned_allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t) noexcept { aligned_free(p); }
  friend bool operator==(const AlignedAllocator&, const AlignedAllocator&) { return true; }
};

namespace detail {

/// Element offsets of the macro-index operands of gett() (kernel_gett.h): element (i,k) of X is
/// X[row_x[i] + col_x[k]], element (j,k) of Y is Y[row_y[j] + col_y[k]] and element (i,j) of C is
/// C[row_c[i] + col_c[j]], for i < M = row_x.size() = row_c.size(), j < N = row_y.size() =
/// col_c.size(), k < K = col_x.size() = col_y.size().
struct GettTables {
  std::vector<std::int64_t> row_x, col_x, row_y, col_y, row_c, col_c;
  /// Chains of X's rows (0: none): X's stride-1 index is the second-to-last row index, with
  /// x_chain_extent values, and the last row index has x_chain values, a multiple of 8. Row
  /// r + j·x_chain then lies j elements after row r in X, so 8 groups of 8 rows pack by register
  /// transposes although neither X's rows nor its K run in memory (TCCG's intensli cases).
  std::int64_t x_chain = 0, x_chain_extent = 0;
  /// With chains: X's innermost K index steps 64 KiB or more (gett_chain_k_outer()), so blocks
  /// pack k-outer over the chains in memory order, and hold longer runs (gett_blocks()).
  bool x_chain_k_outer = false;
  /// Groups of C's rows (gett_groups()): the rows are ordered [others, X's innermost / 8, C's
  /// innermost, X's innermost % 8], so a panel is two runs of 8 in X (read straight from X) and
  /// every 4 panels (64 rows) hold 8 consecutive values of C's innermost index for 8 values of
  /// X's: their register tiles go to C through 8×8 register transposes, in runs of 8. No chains.
  bool c_groups = false;
};

}  // namespace detail

/// Reusable scratch memory of contract(): a: a chunk of the permuted row operand (GETT: its
/// packed block), b: the permuted column operand (GETT: its packed block), c: a block of the
/// product before it is permuted into C. Buffers
/// grow to the largest request and are kept, so a loop over tiles allocates once.
struct Workspace {
  using Buffer = std::vector<double, AlignedAllocator<double>>;
  Buffer a, b, c;
  /// Target size (bytes) of a chunk of the row operand and of a block of C: they should stay in
  /// the L2/L3 cache between the permutation and the dgemm that uses them.
  std::int64_t chunk_bytes = std::int64_t{2} << 20;
  /// Chunks keep at least this many rows and columns (elements): smaller dgemms lose efficiency.
  std::int64_t min_chunk_side = 128;
  /// For tests: always cut the chunks down to chunk_bytes (as far as min_chunk_side allows), even
  /// where the time model of kernel_plan.cpp prefers larger chunks or none.
  bool always_chunk = false;
  /// How contract() runs: the cheaper of TTGT and GETT by the time model (Auto; GETT only where
  /// the CPU has AVX-512), or always one of them (for tests and benchmarks).
  enum class Scheme { Auto, Ttgt, Gett } scheme = Scheme::Auto;
  /// GETT's cache blocks (elements): rows of C per packed block of the row operand (kept in L2,
  /// rounded up to 16), K per block, and columns of C per packed block of the column operand
  /// (kept in L3, rounded up to 14). a then holds gett_mc·gett_kc elements and b gett_kc·gett_nc.
  std::int64_t gett_mc = 192, gett_kc = 384, gett_nc = 2016;
  /// Whether a product with at most 16 elements on one side, whose other operand holds K
  /// innermost, may run as inner products (kernel_dot.h) under Scheme::Auto and Scheme::Gett (it
  /// packs nothing, and its workspace stays within GETT's). Tests turn it off to test GETT there.
  bool inner_products = true;
  /// GETT writes a C of more than this many bytes with non-temporal stores (past the caches, no
  /// read for ownership) when it writes each element once: beta == 0 and K within one K block.
  /// C of that size would not stay in cache anyway; 0 streams every such C (for tests).
  std::int64_t gett_stream_bytes = std::int64_t{16} << 20;
  /// GETT's offset tables, refilled in place by each call, so that a product with a long |I|,
  /// |J| or |K| does not allocate them (and fault their pages in) again: 2·(|I| + |J| + |K|)
  /// elements. Allocated per call, the CCSD energy's (|K| = 144400) cost 3.7 ms for a 0.07 ms dot.
  detail::GettTables gett_tables;

  /// Frees the buffers a, b and c when together they hold more than `bytes`, and the tables when
  /// they hold more than `bytes` (their capacity; their memory goes back to the heap).
  void trim(std::size_t bytes);
};

/// C = alpha·A·Bᵀ + beta·C in the macro-index form `layout` (TTGT: transpose, transpose, GEMM,
/// transpose). A, B and C are stored row-major with extents layout.extents_A(), extents_B(),
/// extents_C(); C must not overlap A or B. With beta == 0, C is only written.
///
/// Algorithm. The orders inside I, J and K are free, so the kernel tries I in C's or A's order,
/// J in C's or B's order and K in A's or B's order. In each candidate an operand stored as
/// [I,K] or [K,I] (A), [J,K] or [K,J] (B) goes to dgemm as is, with its transpose flag; C stored
/// as [I,J] or [J,I] is written by dgemm directly (for [J,I] the operands swap roles: Cᵀ = B·Aᵀ);
/// a C that must be permuted may be computed either way. Calling the operand that shares the
/// rows of dgemm's output X and the other Y:
///   - Y, if interleaved, is permuted once into ws.b;
///   - X, if interleaved, is permuted one box of row indices at a time into ws.a, sized to stay
///     in cache (ws.chunk_bytes) for the dgemm that reads it;
///   - if C is interleaved, each block of rows × columns goes from dgemm into ws.c (cache
///     resident) and is then permuted into C with beta (non-temporal stores for a large C).
/// Candidates and box sizes are priced by a time model (dgemm efficiency by shape, measured for
/// OpenBLAS on one core, plus the elements each permutation moves through memory, more when a
/// temporary does not fit in cache) and the cheapest runs: one dgemm when nothing is chunked.
///
/// GETT (Springer & Bientinesi 2016), the other candidate where the CPU has AVX-512: tcert's own
/// blocked GEMM (16×14 register tiles, BLIS-style packing) whose packing reads A and B straight
/// from their stored layouts and whose register tiles are written straight into C, so nothing is
/// permuted through memory; its rows are those of the operand holding C's innermost index. It
/// runs at about 0.9 of OpenBLAS's dgemm on plain products here and wins where TTGT would
/// permute a large operand or C. Workspace::scheme forces either. GETT's own memory: its packed
/// blocks in ws.a and ws.b (Workspace::gett_mc etc.) and tables of 2·(|I| + |J| + |K|) offsets
/// (8 bytes each) in ws.gett_tables.
/// A product with |I| = 1 or |J| = 1 is a matrix–vector (or dot) product, memory-bound: it runs
/// as one (kernel_gemv.h), whatever ws.scheme, with no packing and no workspace. One with 2 … 16
/// elements on one side whose other operand holds K innermost runs as inner products along K
/// (kernel_dot.h; AVX-512, Workspace::inner_products, not under Scheme::Ttgt): the large operand
/// is read in place, where GETT would pack each of its elements for at most 16 columns.
/// Throws std::invalid_argument when the layout is inconsistent or |I|, |J|, |K| ≥ 2^31.
void contract(const ContractionLayout& layout, double alpha, const double* A, const double* B, double beta, double* C,
              Workspace& ws);

/// contract() on views: checks that A, B and C have the extents the layout implies
/// (layout.extents_A() etc.) and throws std::invalid_argument naming the first mismatch.
void contract(const ContractionLayout& layout, double alpha, const ConstTensorView& A, const ConstTensorView& B,
              double beta, const TensorView& C, Workspace& ws);

/// The BLAS kernels a process uses, set right before anything else runs. OpenBLAS before 0.3.25
/// (Debian 12 ships 0.3.21) does not know Intel CPUs newer than its tables by model number (e.g.
/// Emerald Rapids, family 6 model 207) and falls back to its Prescott (SSE3) kernels: dgemm at
/// 15 GFLOP/s per core here instead of 67 (OpenBLAS issue 4267, fixed upstream by choosing by CPU
/// features). When the library reports Prescott on a CPU with AVX-512 (F, CD, BW, DQ, VL) or AVX2
/// and FMA, and OPENBLAS_CORETYPE is not set, this sets it to SkylakeX or Haswell and executes the
/// program again with the same arguments (`/proc/self/exe`; the library reads the variable only
/// when it loads). Call first in main(), before MPI_Init and before any thread starts: it returns
/// when nothing is to be done or the exec fails, and does not return otherwise. A no-op with
/// another BLAS. program_main(), run_program() and the benchmarks call it; a program that calls
/// generated code as a library should export OPENBLAS_CORETYPE itself on such CPUs.
void use_native_blas_kernels(char** argv);

/// The kernels the BLAS uses (OpenBLAS: openblas_get_corename(), e.g. "SkylakeX"), or "" for
/// another BLAS. Generated programs write it to their trace (`blas_kernels`).
std::string blas_kernels();

/// Gives the tile kernel's BLAS max(1, cores / ranks_on_node) threads, and no more than the
/// process may run on (its CPU affinity: mpirun binds one rank to one core), so that the ranks of
/// a node do not run more threads than it has cores (oversubscribed BLAS threads spin against
/// each other: 5.5x slower on a 2-core node with 4 ranks; two on the one core of a bound rank,
/// tcec-ccsd 1.5% slower). Leaves the BLAS alone when the user set OPENBLAS_NUM_THREADS or
/// OMP_NUM_THREADS. Returns the threads in use. run_program() calls it.
int share_cores(int ranks_on_node);

/// C(m×n) = alpha·A(m×k)·B(n×k)ᵀ + beta·C, all row-major with leading dimensions (elements
/// between consecutive rows) lda ≥ k, ldb ≥ k, ldc ≥ n: exactly cblas_dgemm(CblasRowMajor,
/// CblasNoTrans, CblasTrans, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc). The tile kernel of
/// out-of-core plans: A and B are tiles of the macro-index operands, C the resident tile.
/// Throws std::invalid_argument when a leading dimension is too small.
void gemm_tile(std::size_t m, std::size_t n, std::size_t k, double alpha, const double* A, std::size_t lda,
               const double* B, std::size_t ldb, double beta, double* C, std::size_t ldc);

}  // namespace tcert

// runtime/kernel/kernel.cpp — the contraction layout and its checks, layout_from_labels(), gemm_tile()
// and the workspace allocator. permute() is in kernel_permute.cpp, contract() in kernel_contract.cpp.
#include "runtime/kernel/kernel.h"

#include "runtime/base/counters.h"

#include <cblas.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

namespace tcert {

namespace {

std::int64_t product(const std::vector<std::int64_t>& v) {
  std::int64_t p = 1;
  for (std::int64_t e : v) p *= e;
  return p;
}

void check_perm(const std::vector<int>& perm, std::size_t rank, const char* name) {
  if (perm.size() != rank) {
    throw std::invalid_argument(std::string("contract: ") + name + " has " + std::to_string(perm.size()) +
                                " entries, the layout needs " + std::to_string(rank));
  }
  std::vector<bool> seen(rank, false);
  for (int p : perm) {
    if (p < 0 || p >= static_cast<int>(rank) || seen[p]) {
      throw std::invalid_argument(std::string("contract: ") + name + " is not a permutation");
    }
    seen[p] = true;
  }
}

/// Stored extents: dimension perm[p] has the extent of GEMM position p of [first..., second...].
std::vector<std::int64_t> stored_extents(const std::vector<int>& perm, const std::vector<std::int64_t>& first,
                                         const std::vector<std::int64_t>& second) {
  std::vector<std::int64_t> out(perm.size());
  for (std::size_t p = 0; p < perm.size(); ++p) out[perm[p]] = p < first.size() ? first[p] : second[p - first.size()];
  return out;
}

void check_extents(const char* name, const std::vector<std::int64_t>& actual,
                   const std::vector<std::int64_t>& expected) {
  if (actual == expected) return;
  auto text = [](const std::vector<std::int64_t>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
  };
  throw std::invalid_argument(std::string("contract: ") + name + " has extents " + text(actual) +
                              ", the layout needs " + text(expected));
}

}  // namespace

void* aligned_allocate(std::size_t bytes) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  const bool huge = bytes >= 2 * kHuge;
  const std::size_t align = huge ? kHuge : 64;
  void* p = std::aligned_alloc(align, (std::max<std::size_t>(bytes, 1) + align - 1) / align * align);
  if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  if (huge) madvise(p, bytes / kHuge * kHuge, MADV_HUGEPAGE);  // a hint: failure is harmless
#endif
  return p;
}

void aligned_free(void* p) noexcept { std::free(p); }

void Workspace::trim(std::size_t bytes) {
  if (8 * (a.capacity() + b.capacity() + c.capacity()) > bytes) Buffer().swap(a), Buffer().swap(b), Buffer().swap(c);
  const detail::GettTables& t = gett_tables;
  const std::size_t tables = t.row_x.capacity() + t.col_x.capacity() + t.row_y.capacity() + t.col_y.capacity() +
                             t.row_c.capacity() + t.col_c.capacity();
  if (8 * tables > bytes) gett_tables = detail::GettTables();  // 64-bit offsets
}

std::int64_t element_count(const std::vector<std::int64_t>& extents) {
  for (std::int64_t e : extents) {
    if (e < 0) throw std::invalid_argument("negative extent " + std::to_string(e));
  }
  return product(extents);
}

void ContractionLayout::validate() const {
  for (const auto* g : {&extents_I, &extents_J, &extents_K}) element_count(*g);
  check_perm(perm_A, extents_I.size() + extents_K.size(), "perm_A");
  check_perm(perm_B, extents_J.size() + extents_K.size(), "perm_B");
  check_perm(perm_C, extents_I.size() + extents_J.size(), "perm_C");
}

std::vector<std::int64_t> ContractionLayout::extents_A() const {
  validate();
  return stored_extents(perm_A, extents_I, extents_K);
}
std::vector<std::int64_t> ContractionLayout::extents_B() const {
  validate();
  return stored_extents(perm_B, extents_J, extents_K);
}
std::vector<std::int64_t> ContractionLayout::extents_C() const {
  validate();
  return stored_extents(perm_C, extents_I, extents_J);
}
std::int64_t ContractionLayout::m() const { return product(extents_I); }
std::int64_t ContractionLayout::n() const { return product(extents_J); }
std::int64_t ContractionLayout::k() const { return product(extents_K); }
double ContractionLayout::flops() const {
  return 2.0 * static_cast<double>(m()) * static_cast<double>(n()) * static_cast<double>(k());
}

ContractionLayout layout_from_labels(const std::string& a, const std::string& b, const std::string& c,
                                     const std::map<char, std::int64_t>& extents) {
  for (const std::string* s : {&a, &b, &c}) {
    for (char ch : *s) {
      if (std::count(s->begin(), s->end(), ch) != 1) throw std::invalid_argument(std::string("label repeats: ") + ch);
      if (!extents.count(ch)) throw std::invalid_argument(std::string("label has no extent: ") + ch);
    }
  }
  auto has = [](const std::string& s, char ch) { return s.find(ch) != std::string::npos; };
  std::string I, J, K;
  for (char ch : c) {
    if (has(a, ch) == has(b, ch)) {
      throw std::invalid_argument(std::string("result label not in exactly one operand: ") + ch);
    }
    (has(a, ch) ? I : J) += ch;
  }
  for (char ch : a + b) {
    if (!has(c, ch) && has(a, ch) != has(b, ch)) {
      throw std::invalid_argument(std::string("label summed in one operand: ") + ch);
    }
  }
  for (char ch : a) {
    if (!has(c, ch)) K += ch;
  }
  ContractionLayout l;
  for (char ch : I) l.extents_I.push_back(extents.at(ch));
  for (char ch : J) l.extents_J.push_back(extents.at(ch));
  for (char ch : K) l.extents_K.push_back(extents.at(ch));
  for (char ch : I + K) l.perm_A.push_back(static_cast<int>(a.find(ch)));
  for (char ch : J + K) l.perm_B.push_back(static_cast<int>(b.find(ch)));
  for (char ch : I + J) l.perm_C.push_back(static_cast<int>(c.find(ch)));
  return l;
}

void contract(const ContractionLayout& layout, double alpha, const ConstTensorView& A, const ConstTensorView& B,
              double beta, const TensorView& C, Workspace& ws) {
  check_extents("A", A.extents, layout.extents_A());
  check_extents("B", B.extents, layout.extents_B());
  check_extents("C", C.extents, layout.extents_C());
  contract(layout, alpha, A.data, B.data, beta, C.data, ws);
}

void use_native_blas_kernels(char** argv) {
#if defined(OPENBLAS_VERSION) && defined(__GNUC__) && defined(__x86_64__)
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;  // the user's choice, or this function's
  const char* core = openblas_get_corename();
  if (core == nullptr || std::string(core) != "Prescott") return;
  __builtin_cpu_init();
  const char* native = nullptr;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    native = "SkylakeX";
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    native = "Haswell";
  if (native == nullptr || ::setenv("OPENBLAS_CORETYPE", native, 1) != 0) return;
  ::execv("/proc/self/exe", argv);  // returns only on failure: go on with Prescott
#else
  (void)argv;
#endif
}

std::string blas_kernels() {
#if defined(OPENBLAS_VERSION)
  const char* core = openblas_get_corename();
  return core != nullptr ? core : "";
#else
  return "";
#endif
}

int share_cores(int ranks_on_node) {
  if (std::getenv("OPENBLAS_NUM_THREADS") != nullptr || std::getenv("OMP_NUM_THREADS") != nullptr)
    return openblas_get_num_threads();
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int threads = std::max(1, cores / std::max(1, ranks_on_node));
#if defined(__linux__)
  cpu_set_t allowed;
  if (::sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    threads = std::min(threads, std::max(1, CPU_COUNT(&allowed)));
#endif
  openblas_set_num_threads(threads);
  return threads;
}

void gemm_tile(std::size_t m, std::size_t n, std::size_t k, double alpha, const double* A, std::size_t lda,
               const double* B, std::size_t ldb, double beta, double* C, std::size_t ldc) {
  if (lda < k || ldb < k || ldc < n) {
    throw std::invalid_argument("gemm_tile: leading dimension too small (lda " + std::to_string(lda) + ", ldb " +
                                std::to_string(ldb) + " need >= k " + std::to_string(k) + "; ldc " +
                                std::to_string(ldc) + " needs >= n " + std::to_string(n) + ")");
  }
  if (std::max({m, n, k}) > 2147483647u) throw std::invalid_argument("gemm_tile: m, n or k exceeds 2^31-1");
  if (m == 0 || n == 0) return;
  const auto ld = [](std::size_t v) { return static_cast<int>(std::max<std::size_t>(v, 1)); };
  const Stopwatch clock;
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
              alpha, A, ld(lda), B, ld(ldb), beta, C, ld(ldc));
  counters().add_kernel_time(clock.seconds());
}

}  // namespace tcert

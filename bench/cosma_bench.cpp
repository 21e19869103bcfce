// bench/cosma_bench.cpp — tcec's COSMA executor (tcert::CosmaGemm) against ScaLAPACK's pdgemm
// (Debian's libscalapack-openmpi, BLACS included) on the four shapes of the COSMA issue
// (issue 5 acceptance), side by side in one MPI run.
//
// Usage:  OPENBLAS_NUM_THREADS=1 mpirun --oversubscribe -np 4 build/bin/cosma_bench
//             [--scale F] [--nb NB] [--reps N] [--seed N]
//   (as root add OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1).
//   --scale F  multiplies every extent by F (default 1; e.g. 0.25 for a quick run)
//   --nb NB    ScaLAPACK block size (default 128), square NB × NB blocks
//   --reps N   runs of each side per shape, interleaved per shape (tcec, then pdgemm); the
//              fastest run is reported (default 3: 4 ranks on 2 cores make single runs noisy)
//   --seed N   seed of the random inputs (default 7)
// OpenBLAS must be single-threaded for both sides: set OPENBLAS_NUM_THREADS=1 in the
// environment (OpenBLAS reads it when it loads; mpirun passes it on to local ranks). The
// program also calls openblas_set_num_threads(1) and warns when the variable is not 1.
//
// Shapes, at scale 1 (m×n×k, all with m·n·k = 4000³ = 6.4e10 multiply-adds, so the times are
// comparable): square 4000×4000×4000, largeK 1000×1000×64000, largeM 64000×1000×1000,
// flat 16000×16000×250. (The largeK 1000×1000×32000, largeM 32000×1000×1000 and flat
// 8000×8000×250 do 2× and 4× fewer; they are stretched along their long dimensions here.) Inputs are the same on both sides: A(i,k) = element i·k_ext + k and
// B(j,k) = element k·n + j of tcert's counter-based random tensors "A" [m,k] and "B" [k,n]
// (runtime/base/random.h), so both compute C = A·Bᵀ on identical data. Largest footprint (flat):
// C is 2 GB for each side, in memory one side at a time.
//
// Per shape:
//  1. tcec: CosmaGemm with unlimited memory (S = +inf, grid and rounds from
//     costmodel::cosma_strategy), compute phase as generated programs run it: read_slices(0),
//     allgather_B, then per round gather_A_and_multiply (A's ring overlapped with the multiply,
//     the next round's slices double-buffered); then reduce_scatter_C. Time = the compute
//     phase's wall seconds, max over ranks (run.records(): includes the scratch-disk reads of
//     the rounds that stream, none at S = +inf where t = 1; not the load phase that lays the
//     inputs out, nor the write-out of C's pieces from memory). Bytes sent/received
//     per rank = tcert's counters (rec.measured), checked equal to costmodel::cosma_volumes
//     (and disk bytes too); sampled values checked by tcert's --verify.
//  2. ScaLAPACK: pdgemm_("N","T") on a pr×pc BLACS grid (2×2 for P = 4), NB×NB blocks,
//     C = A·Bᵀ with A m×k, B n×k, C m×n block-cyclic. Time = pdgemm wall seconds after a
//     barrier, max over ranks. Bytes = counted with PMPI wrappers (pdgemm_counting.h) switched
//     on only around the pdgemm call (so tcec's own traffic, which tcert counts, is never in
//     them); the output lists the calls pdgemm made per MPI function. Sampled values checked against a long-double reference.
//  3. One line per shape and the geometric mean of the time ratios tcec/pdgemm.
// Exit status: 0, or 1 when tcec's bytes differ from the prediction or a check fails.
// Units: extents in elements, bytes, seconds (printed MB = 1e6 bytes, M doubles = 1e6·8 bytes).
#include <cblas.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bench/pdgemm_counting.h"
#include "costmodel/methods/cosma/cosma.h"
#include "runtime/base/error.h"
#include "runtime/base/random.h"
#include "runtime/kernel/kernel.h"
#include "runtime/methods/cosma/cosma.h"
#include "runtime/program/run.h"

// ScaLAPACK / BLACS (Debian's libscalapack-openmpi: 32-bit integers; PBLAS and the C BLACS
// interface take no hidden string lengths; numroc_ and descinit_ are Fortran, by reference).
extern "C" {
void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int not_done);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc, const int* icsrc,
               const int* ictxt, const int* lld, int* info);
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
             const double* a, const int* ia, const int* ja, const int* desca, const double* b, const int* ib,
             const int* jb, const int* descb, const double* beta, double* c, const int* ic, const int* jc,
             const int* descc);
}

namespace {

namespace cm = tcec::costmodel;
namespace pc = pdgemm_counting;
using i64 = std::int64_t;
using u64 = std::uint64_t;

/// One problem C(m×n) = A(m×k)·B(n×k)ᵀ (extents in elements).
struct Shape {
  const char* name;
  i64 m, n, k;
};

/// The command line.
struct Options {
  double scale = 1;  ///< multiplies every extent
  int nb = 128;      ///< ScaLAPACK block size (elements)
  u64 seed = 7;      ///< seed of the random inputs
  int reps = 3;      ///< runs of each side per shape; the fastest is reported
};

/// Parses --scale F, --nb NB, --reps N, --seed N (--help prints the usage). Throws tcert::Error on a
/// bad argument.
Options parse_options(int argc, char** argv, bool& help) {
  Options o;
  help = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw tcert::Error("option " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--scale") {
      o.scale = std::stod(value());
      if (!(o.scale > 0)) throw tcert::Error("--scale must be > 0");
    } else if (a == "--nb") {
      o.nb = std::stoi(value());
      if (o.nb < 1) throw tcert::Error("--nb must be >= 1");
    } else if (a == "--reps") {
      o.reps = std::stoi(value());
      if (o.reps < 1) throw tcert::Error("--reps must be >= 1");
    } else if (a == "--seed") {
      o.seed = std::stoull(value());
    } else if (a == "--help" || a == "-h") {
      help = true;
    } else {
      throw tcert::Error("unknown option " + a + " (try --help)");
    }
  }
  return o;
}

/// Extent e scaled by f, at least 1 (elements).
i64 scaled(i64 e, double f) { return std::max<i64>(1, std::llround(static_cast<double>(e) * f)); }

/// Maximum of a per-rank vector (0 when empty).
template <class T>
T max_of(const std::vector<T>& v) {
  return v.empty() ? T{} : *std::max_element(v.begin(), v.end());
}

/// Maximum of `value` over the ranks of MPI_COMM_WORLD (seconds, bytes, errors: any double).
double max_over_ranks(double value) {
  double out = 0;
  PMPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

/// Maximum of an unsigned 64-bit value over the ranks of MPI_COMM_WORLD (bytes, counts).
u64 max_over_ranks_u64(u64 value) {
  u64 out = 0;
  PMPI_Allreduce(&value, &out, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

/// Sum of an unsigned 64-bit value over the ranks of MPI_COMM_WORLD (counts).
u64 sum_over_ranks_u64(u64 value) {
  u64 out = 0;
  PMPI_Allreduce(&value, &out, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

/// A(i, kk) of the shared inputs: element i·k + kk of tensor "A" [m, k].
double a_value(u64 seed, const Shape& s, i64 i, i64 kk) {
  static const u64 id = tcert::tensor_id_of("A");
  return tcert::random_element(seed, id, static_cast<u64>(i * s.k + kk));
}

/// B(j, kk) of the shared inputs: element kk·n + j of tensor "B" [k, n].
double b_value(u64 seed, const Shape& s, i64 j, i64 kk) {
  static const u64 id = tcert::tensor_id_of("B");
  return tcert::random_element(seed, id, static_cast<u64>(kk * s.n + j));
}

// ------------------------------------------------------------------------------------------
// tcec

/// tcec's result for one shape (bytes and seconds, max over ranks).
struct TcecResult {
  cm::CosmaGrid grid;
  double seconds = 0;                                             ///< compute phase, max over ranks
  double disk_seconds = 0, comm_seconds = 0, kernel_seconds = 0;  ///< busy time, max over ranks
  u64 max_recv_bytes = 0, max_sent_bytes = 0;
  bool matches_prediction = true;  ///< all 4 volumes, every rank
  std::string mismatch;            ///< first difference, when not
};

/// The GemmSpec of C(I,J) += A(I,K)·B(J,K)ᵀ for one shape: A stored [m,k], B stored [k,n],
/// C stored [m,n]; grid and predicted per-rank bytes from the cost model.
tcert::GemmSpec tcec_spec(const Shape& s, const cm::CosmaGrid& g, const cm::PlanVolumes& v) {
  tcert::GemmSpec spec;
  spec.statement = std::string("cosma_bench ") + s.name;
  spec.plan = "cosma";
  spec.I = {{{s.m, 1, 1}}, -1};
  spec.J = {{{s.n, 1, 1}}, -1};
  spec.K = {{{s.k, 1, 1}}, -1};
  tcert::CosmaSpec& cosma = spec.method.emplace<tcert::CosmaSpec>();
  cosma.grid[0] = g.pm, cosma.grid[1] = g.pn, cosma.grid[2] = g.pk;
  cosma.rounds = g.rounds;
  spec.A = {{"A", {s.m, s.k}}, {0, 1}};
  spec.B = {{"B", {s.k, s.n}}, {1, 0}};
  spec.C = {{"C", {s.m, s.n}}, {0, 1}};
  spec.alpha = 1.0;
  spec.predicted = cm::rank_volumes(v);
  spec.predicted_seconds = v.time_s;
  return spec;
}

/// Runs one shape through tcert::CosmaGemm with S = +inf on all P ranks (collective) and
/// checks every rank's measured compute-phase bytes against cosma_volumes().
TcecResult run_tcec(tcert::Run& run, const Shape& s, i64 P) {
  const double S = std::numeric_limits<double>::infinity();
  const cm::CosmaStrategy strategy = cm::cosma_strategy(s.m, s.n, s.k, P, S);
  if (!strategy.feasible)
    throw tcert::Error(std::string("cosma_strategy infeasible for ") + s.name + ": " + strategy.reason);
  cm::Machine machine;
  machine.processors = P;
  machine.element_size_bytes = 8;
  machine.memory_bytes = S;
  machine.network_bytes_per_s = machine.disk_read_bytes_per_s = machine.disk_write_bytes_per_s = 1e9;
  const cm::PlanVolumes v = cm::cosma_volumes(strategy.grid, s.m, s.n, s.k, machine, 0, P);
  TcecResult r;
  r.grid = strategy.grid;
  {
    tcert::CosmaGemm x(run, tcec_spec(s, strategy.grid, v));
    x.compute([&] {  // the schedule generated programs run (A's ring overlapped with the multiply)
      x.read_slices(0);
      x.allgather_B();
      for (i64 j = 0; j < x.rounds(); ++j) x.gather_A_and_multiply();
      x.reduce_scatter_C();
    });
    x.finish();  // --verify: sampled entries against a long-double reference
  }
  const tcert::ContractionRecord& rec = run.records().back();
  r.seconds = max_of(rec.seconds);
  r.disk_seconds = max_of(rec.disk_seconds);
  r.comm_seconds = max_of(rec.comm_seconds);
  r.kernel_seconds = max_of(rec.kernel_seconds);
  r.max_sent_bytes = max_of(rec.measured.comm_sent_bytes);
  r.max_recv_bytes = max_of(rec.measured.comm_recv_bytes);
  const tcert::RankVolumes expected = cm::rank_volumes(v);
  for (const tcert::VolumeField& f : tcert::kVolumeFields) {
    if (f.member == &tcert::RankVolumes::disk_requests || !r.matches_prediction) continue;  // bytes only
    const std::vector<u64>&measured = rec.measured.*f.member, &predicted = expected.*f.member;
    for (std::size_t rank = 0; rank < static_cast<std::size_t>(P); ++rank) {
      const u64 got = rank < measured.size() ? measured[rank] : ~u64{0};
      if (got != predicted[rank]) {
        r.matches_prediction = false;
        r.mismatch = std::string(f.label) + " bytes of rank " + std::to_string(rank) + ": measured " +
                     std::to_string(got) + ", predicted " + std::to_string(predicted[rank]);
        break;
      }
    }
  }
  return r;
}

// ------------------------------------------------------------------------------------------
// ScaLAPACK

/// The BLACS process grid (pr × pc over all P ranks, row-major) and this rank's place in it.
struct Blacs {
  int context = -1;
  int nprow = 1, npcol = 1, myrow = 0, mycol = 0;
};

/// Rows pr of the BLACS grid for P ranks: the largest divisor of P with pr² <= P (2 for P = 4).
int grid_rows(int P) {
  int pr = 1;
  for (int d = 1; d * d <= P; ++d)
    if (P % d == 0) pr = d;
  return pr;
}

/// Makes a pr × pc BLACS grid of all P ranks, pr = grid_rows(P) (2 × 2 for P = 4). Collective.
Blacs make_blacs_grid(int P) {
  const int pr = grid_rows(P);
  Blacs g;
  int me = 0, procs = 0;
  Cblacs_pinfo(&me, &procs);
  Cblacs_get(-1, 0, &g.context);
  Cblacs_gridinit(&g.context, "Row", pr, P / pr);
  Cblacs_gridinfo(g.context, &g.nprow, &g.npcol, &g.myrow, &g.mycol);
  return g;
}

/// Global index of local index `l` of a block-cyclic dimension (block nb, this process at
/// coordinate p of np, source process 0).
i64 global_of(i64 l, int nb, int p, int np) { return (l / nb * np + p) * nb + l % nb; }

/// pdgemm's result for one shape (bytes and seconds, max over ranks unless said otherwise).
struct PdgemmResult {
  double seconds = 0;  ///< wall time of pdgemm_, max over ranks, min over reps
  u64 max_recv_bytes = 0, max_sent_bytes = 0;
  u64 max_recv_bytes_receive_side = 0;     ///< the same counted by the receive calls
  bool receive_side_agrees = true;         ///< both counts equal on every rank
  bool same_bytes_every_rep = true;        ///< every repetition moved the same bytes
  u64 calls[pc::kCallTypes] = {};          ///< calls made, summed over ranks
  int max_comm_size[pc::kCallTypes] = {};  ///< largest communicator of a collective
  double max_rel_error = 0;                ///< sampled entries vs long-double reference
  u64 checked = 0;                         ///< sampled entries, all ranks
};

/// A local block-cyclic matrix (column-major, leading dimension lld >= 1) and its descriptor.
struct LocalMatrix {
  int rows = 0, cols = 0, lld = 1;
  int desc[9] = {};
  std::vector<double> data;
};

/// Allocates this rank's part of a global rows × cols matrix in nb × nb blocks on grid g and
/// fills it with value(global row, global column). Throws when descinit_ reports an error.
template <class F>
LocalMatrix make_local(const Blacs& g, i64 rows, i64 cols, int nb, F value) {
  LocalMatrix a;
  const int M = static_cast<int>(rows), N = static_cast<int>(cols), zero = 0;
  a.rows = numroc_(&M, &nb, &g.myrow, &zero, &g.nprow);
  a.cols = numroc_(&N, &nb, &g.mycol, &zero, &g.npcol);
  a.lld = std::max(1, a.rows);
  int info = 0;
  descinit_(a.desc, &M, &N, &nb, &nb, &zero, &zero, &g.context, &a.lld, &info);
  if (info != 0) throw tcert::Error("descinit_ failed with info " + std::to_string(info));
  a.data.assign(static_cast<std::size_t>(a.lld) * static_cast<std::size_t>(std::max(1, a.cols)), 0.0);
  for (int c = 0; c < a.cols; ++c) {
    const i64 gc = global_of(c, nb, g.mycol, g.npcol);
    double* col = a.data.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(a.lld);
    for (int r = 0; r < a.rows; ++r) col[r] = value(global_of(r, nb, g.myrow, g.nprow), gc);
  }
  return a;
}

/// Runs C = A·Bᵀ through pdgemm_("N","T") on grid g o.reps times on the same data (collective
/// over all ranks), timing each call after a barrier (seconds: max over ranks, then the minimum
/// over the repetitions) and counting its MPI traffic with the PMPI wrappers (bytes of the last
/// call; checked equal in every call), then checks sampled entries of C against a long-double
/// reference.
PdgemmResult run_pdgemm(const Blacs& g, const Shape& s, const Options& o) {
  const u64 seed = o.seed;
  LocalMatrix A = make_local(g, s.m, s.k, o.nb, [&](i64 i, i64 kk) { return a_value(seed, s, i, kk); });
  LocalMatrix B = make_local(g, s.n, s.k, o.nb, [&](i64 j, i64 kk) { return b_value(seed, s, j, kk); });
  LocalMatrix C = make_local(g, s.m, s.n, o.nb, [](i64, i64) { return 0.0; });
  const int M = static_cast<int>(s.m), N = static_cast<int>(s.n), K = static_cast<int>(s.k), one = 1;
  const double alpha = 1.0, beta = 0.0;

  PdgemmResult r;
  r.seconds = std::numeric_limits<double>::infinity();
  pc::Totals t;
  bool same_bytes = true;
  for (int rep = 0; rep < o.reps; ++rep) {
    PMPI_Barrier(MPI_COMM_WORLD);
    pc::start();
    const double t0 = MPI_Wtime();
    pdgemm_("N", "T", &M, &N, &K, &alpha, A.data.data(), &one, &one, A.desc, B.data.data(), &one, &one, B.desc, &beta,
            C.data.data(), &one, &one, C.desc);
    const double elapsed = MPI_Wtime() - t0;
    pc::stop();
    r.seconds = std::min(r.seconds, max_over_ranks(elapsed));
    const pc::Totals now = pc::collect(MPI_COMM_WORLD);
    if (rep > 0) same_bytes = same_bytes && now.sent_bytes == t.sent_bytes && now.recv_bytes == t.recv_bytes;
    t = now;
  }
  r.same_bytes_every_rep = max_over_ranks_u64(same_bytes ? 0 : 1) == 0;
  r.max_recv_bytes = max_over_ranks_u64(t.recv_bytes);
  r.max_sent_bytes = max_over_ranks_u64(t.sent_bytes);
  r.max_recv_bytes_receive_side = max_over_ranks_u64(t.recv_bytes_receive_side);
  r.receive_side_agrees = max_over_ranks_u64(t.recv_bytes != t.recv_bytes_receive_side ? 1 : 0) == 0;
  for (int c = 0; c < pc::kCallTypes; ++c) {
    r.calls[c] = sum_over_ranks_u64(t.per_call[static_cast<std::size_t>(c)].calls);
    r.max_comm_size[c] =
        static_cast<int>(max_over_ranks_u64(static_cast<u64>(t.per_call[static_cast<std::size_t>(c)].max_comm_size)));
  }

  // Check 16 sampled local entries per rank (deterministic positions) against Σ_k A·B.
  double max_error = 0;
  u64 checked = 0;
  if (C.rows > 0 && C.cols > 0)
    for (u64 q = 0; q < 16; ++q) {
      const u64 h = tcert::splitmix64_mix(q + 0x636f736d61ULL + static_cast<u64>(g.myrow * 131 + g.mycol));
      const int lr = static_cast<int>(h % static_cast<u64>(C.rows));
      const int lc = static_cast<int>((h >> 32) % static_cast<u64>(C.cols));
      const i64 gi = global_of(lr, o.nb, g.myrow, g.nprow), gj = global_of(lc, o.nb, g.mycol, g.npcol);
      long double sum = 0, magnitude = 0;
      for (i64 kk = 0; kk < s.k; ++kk) {
        const long double term =
            static_cast<long double>(a_value(seed, s, gi, kk)) * static_cast<long double>(b_value(seed, s, gj, kk));
        sum += term;
        magnitude += std::fabs(term);
      }
      const double got =
          C.data[static_cast<std::size_t>(lc) * static_cast<std::size_t>(C.lld) + static_cast<std::size_t>(lr)];
      const long double err = std::fabs(static_cast<long double>(got) - sum) / (magnitude > 0 ? magnitude : 1);
      max_error = std::max(max_error, static_cast<double>(err));
      ++checked;
    }
  r.max_rel_error = max_over_ranks(max_error);
  r.checked = sum_over_ranks_u64(checked);
  return r;
}

// ------------------------------------------------------------------------------------------

/// Runs the benchmark on all ranks; prints on rank 0. Returns the exit status (same on all ranks).
int bench_main(int argc, char** argv) {
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  bool help = false;
  const Options o = parse_options(argc, argv, help);
  if (help) {
    if (rank == 0)
      std::printf(
          "usage: OPENBLAS_NUM_THREADS=1 mpirun --oversubscribe -np 4 cosma_bench [--scale F] [--nb NB] [--reps N] "
          "[--seed N]\n");
    return 0;
  }
  openblas_set_num_threads(1);
  const char* threads = std::getenv("OPENBLAS_NUM_THREADS");
  const bool one_thread = threads != nullptr && std::string(threads) == "1";

  const Shape base[] = {{"square", 4000, 4000, 4000},
                        {"largeK", 1000, 1000, 64000},
                        {"largeM", 64000, 1000, 1000},
                        {"flat", 16000, 16000, 250}};
  std::vector<Shape> shapes;
  for (const Shape& s : base)
    shapes.push_back({s.name, scaled(s.m, o.scale), scaled(s.n, o.scale), scaled(s.k, o.scale)});

  if (rank == 0) {
    std::printf("cosma_bench: tcec CosmaGemm (S = +inf) vs ScaLAPACK pdgemm_(\"N\",\"T\"), P = %d ranks, scale %g\n", P,
                o.scale);
    std::printf("OPENBLAS_NUM_THREADS=%s%s; openblas_set_num_threads(1) called\n", threads ? threads : "(unset)",
                one_thread ? "" : "  WARNING: set OPENBLAS_NUM_THREADS=1");
    std::printf(
        "issue 5 target (reference): COSMA library v2.8.4, m=n=k=4000, P=4: 8.0 M doubles received per rank, "
        "about 1.3 s\n");
    std::printf("times: the fastest of %d runs per side (each run: max over ranks), runs interleaved per shape\n",
                o.reps);
    std::printf(
        "tcec: compute-phase wall s (max over ranks; incl. its disk reads of streamed rounds), bytes from tcert's "
        "counters, checked == costmodel cosma_volumes\n");
    std::printf(
        "pdgemm: wall s of pdgemm_ after a barrier (max over ranks), %dx%d BLACS grid, NB = %d; bytes by PMPI "
        "count\n",
        grid_rows(P), P / grid_rows(P), o.nb);
    std::printf(
        "  (wrappers of MPI_Send/Isend/Rsend/Sendrecv/Recv/Irecv/Bcast/Reduce/Allreduce = every data-moving "
        "MPI call libscalapack-openmpi imports; on only around pdgemm_)\n");
    std::printf("recv = bytes received per rank, max over ranks; MB = 1e6 bytes; Md = M doubles = 8e6 bytes\n\n");
    std::printf("%-7s %6s %6s %6s  %-7s %8s %9s %7s  %10s %8s %10s %8s %7s  %s\n", "shape", "m", "n", "k", "grid",
                "tcec_s", "pdgemm_s", "t_ratio", "tcec_recv", "(Md)", "pdgemm_rcv", "(Md)", "b_ratio", "pred");
    std::fflush(stdout);
  }

  int status = 0;
  double log_time_ratio = 0, log_byte_ratio = 0;
  int byte_ratios = 0;
  std::vector<std::string> details;
  const Blacs blacs = make_blacs_grid(P);
  {
    tcert::Context ctx = tcert::Context::world();
    tcert::RunOptions options;
    options.quiet = true, options.verify = true, options.random_seed = static_cast<std::uint64_t>(o.seed);
    tcert::Run run(ctx, options, {}, {"cosma_bench", "bench", P, 0, {}, {}});

    for (const Shape& s : shapes) {
      TcecResult t;
      std::string mismatch;  // the first repetition whose bytes differ from the prediction
      for (int rep = 0; rep < o.reps; ++rep) {
        TcecResult now = run_tcec(run, s, P);
        if (!now.matches_prediction && mismatch.empty())
          mismatch = now.mismatch + " (run " + std::to_string(rep + 1) + ")";
        if (rep == 0 || now.seconds < t.seconds) t = now;  // the fastest run
      }
      t.matches_prediction = mismatch.empty(), t.mismatch = mismatch;
      const PdgemmResult p = run_pdgemm(blacs, s, o);
      if (!t.matches_prediction || p.max_rel_error > 1e-12 || !p.same_bytes_every_rep) status = 1;
      const double time_ratio = t.seconds / p.seconds;
      log_time_ratio += std::log(time_ratio);
      const double byte_ratio = p.max_recv_bytes > 0
                                    ? static_cast<double>(t.max_recv_bytes) / static_cast<double>(p.max_recv_bytes)
                                    : std::numeric_limits<double>::quiet_NaN();
      if (p.max_recv_bytes > 0 && t.max_recv_bytes > 0) log_byte_ratio += std::log(byte_ratio), ++byte_ratios;
      if (rank == 0) {
        const std::string grid = std::to_string(t.grid.pm) + "x" + std::to_string(t.grid.pn) + "x" +
                                 std::to_string(t.grid.pk) +
                                 (t.grid.rounds > 1 ? "/t" + std::to_string(t.grid.rounds) : "");
        std::printf("%-7s %6lld %6lld %6lld  %-7s %8.3f %9.3f %7.3f  %8.1fMB %8.3f %8.1fMB %8.3f %7.3f  %s\n", s.name,
                    static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k), grid.c_str(),
                    t.seconds, p.seconds, time_ratio, t.max_recv_bytes / 1e6, t.max_recv_bytes / 8e6,
                    p.max_recv_bytes / 1e6, p.max_recv_bytes / 8e6, byte_ratio,
                    t.matches_prediction ? "ok" : "MISMATCH");
        std::fflush(stdout);
        char line[1024];
        std::snprintf(
            line, sizeof line,
            "%s: tcec sent %.1f MB/rank max; busy max: disk %.3f s, comm %.3f s, kernel %.3f s%s%s\n"
            "%*s pdgemm sent %.1f MB/rank max; receive-side count %.1f MB/rank max (%s%s); check: %llu "
            "entries, max rel err %.2e\n%*s pdgemm MPI calls (all ranks):",
            s.name, t.max_sent_bytes / 1e6, t.disk_seconds, t.comm_seconds, t.kernel_seconds,
            t.matches_prediction ? "" : "; PREDICTION MISMATCH: ", t.mismatch.c_str(),
            static_cast<int>(std::strlen(s.name)), "", p.max_sent_bytes / 1e6, p.max_recv_bytes_receive_side / 1e6,
            p.receive_side_agrees ? "== senders' count on every rank" : "DIFFERS from senders' count",
            p.same_bytes_every_rep ? "" : ", NOT THE SAME IN EVERY RUN", static_cast<unsigned long long>(p.checked),
            p.max_rel_error, static_cast<int>(std::strlen(s.name)), "");
        std::string d = line;
        for (int c = 0; c < pc::kCallTypes; ++c) {
          d += std::string(" ") + pc::call_name(c) + " " + std::to_string(p.calls[c]);
          if (p.max_comm_size[c] > 0 && p.calls[c] > 0) d += " (comm <= " + std::to_string(p.max_comm_size[c]) + ")";
        }
        details.push_back(d);
      }
    }
    if (rank == 0) {
      const double n = static_cast<double>(shapes.size());
      std::printf("\ngeometric mean of time ratios tcec/pdgemm: %.3f", std::exp(log_time_ratio / n));
      if (byte_ratios > 0) std::printf("   (of byte ratios: %.3f)", std::exp(log_byte_ratio / byte_ratios));
      std::printf("\ntcec --verify: %llu sampled entries, max rel error %.2e\n\n",
                  static_cast<unsigned long long>(run.verify_result().checked), run.verify_result().max_rel_error);
      for (const std::string& d : details) std::printf("%s\n", d.c_str());
    }
    if (run.verify_result().max_rel_error > 1e-12) status = 1;
  }
  Cblacs_gridexit(blacs.context);
  Cblacs_exit(1);  // 1: leave MPI initialised (we finalize it)
  return status;
}

}  // namespace

/// Initialises MPI, runs the benchmark, finalises MPI. Exit status 0, or 1 on a failed check
/// or an error (printed as "cosma_bench: error: ...").
int main(int argc, char** argv) {
  tcert::use_native_blas_kernels(argv);  // before MPI: may execute the program again (kernel.h)
  MPI_Init(&argc, &argv);
  int status = 0;
  try {
    status = bench_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cosma_bench: error: %s\n", e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}

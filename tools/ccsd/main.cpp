// tools/ccsd/main.cpp — tcec-ccsd: the CCSD correlation energy of a molecule with tcec's
// generated code, out of core, in one MPI job.
//
//   mpirun -np P tcec-ccsd --integrals DIR --equations TREES --machine FILE [--scratch DIR]
//                          [--conv 1e-10] [--max-iter N] [--diis 8] [--keep] [--resume] [--quiet]
//
// DIR holds the Fock blocks f_hh f_hp f_ph f_pp and the sixteen <pq||rs> blocks v_hhhh …
// v_pppp as .npy, spin orbitals occupied first, and meta.json with "O" and "V"; or it is one
// HDF5 file with those blocks as datasets (tools/psi4_integrals.py writes either). TREES is NWChem's TCE equation file holding the
// sections ccsd_e, ccsd_t1 and ccsd_t2. Each iteration calls the generated residuals of T1 and
// T2, takes a Jacobi step with orbital-energy denominators, extrapolates with DIIS, and calls the
// energy; amplitudes, residuals and DIIS vectors live in files under the scratch directory, and
// a checkpoint after each iteration (written while the next one runs) lets --resume continue a
// run that was stopped, with the same results as an uninterrupted one.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <mpi.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "amplitudes.h"
#include "diis.h"
#include "integrals.h"
#include "residuals.h"
#include "runtime/base/error.h"
#include "runtime/base/file_lock.h"
#include "runtime/kernel/kernel.h"
#include "runtime/storage/npy.h"
#include "runtime/storage/spare_files.h"

namespace {

namespace fs = std::filesystem;
using tcec::ccsd::Amplitudes;
using tcec::ccsd::Residuals;

struct Args {
  std::string integrals, equations, machine, scratch;
  double conv = 1e-10;
  int max_iter = 100, diis = 8;
  bool keep = false, quiet = false, resume = false, timings = false;
};

double read_scalar(const std::string& path) {
  const tcert::NpyReader f(path);
  if (f.size() != 1) throw tcert::Error(fmt::format("{} holds {} elements, not one", path, f.size()));
  return f.data()[0];
}

void check(const tcert::Status& status, const char* what) {
  if (!status) throw tcert::Error(fmt::format("{}: {}", what, status.message()));
}

/// What a checkpoint must match to be resumed: the molecule's integrals, the equations, the
/// machine and the DIIS size.
nlohmann::json identity(const Args& a, std::int64_t O, std::int64_t V) {
  std::ifstream in(a.machine);
  std::ostringstream machine;
  machine << in.rdbuf();
  return {{"O", O},
          {"V", V},
          {"integrals", fs::absolute(a.integrals).string()},
          {"equations", fs::absolute(a.equations).string()},
          {"machine", machine.str()},
          {"diis", a.diis}};
}

void write_json_atomically(const fs::path& path, const nlohmann::json& doc) {
  const fs::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << doc.dump(1) << "\n";
    if (!out) throw tcert::Error(fmt::format("cannot write {}", temporary.string()));
  }
  fs::rename(temporary, path);
}

int solve(const Args& a, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const tcec::ccsd::Integrals integrals(a.integrals);
  const std::int64_t O = integrals.O(), V = integrals.V();
  // The work directory, DIR/tcec-ccsd under --scratch (or $TMPDIR, /tmp): a fresh run empties it,
  // --resume continues from its checkpoint.
  const char* tmp = std::getenv("TMPDIR");
  const fs::path base = !a.scratch.empty() ? fs::path(a.scratch) : fs::path(tmp && *tmp ? tmp : "/tmp");
  const std::string work = (base / "tcec-ccsd").string();
  const fs::path checkpoint = fs::path(work) / "checkpoint.json";
  const nlohmann::json me = identity(a, O, V);
  std::unique_ptr<tcert::FileLock> lock;  // rank 0's, for the whole run: one run at a time on SCRATCH
  if (rank == 0) {
    fs::create_directories(base);
    lock = std::make_unique<tcert::FileLock>(
        (base / "tcec-ccsd.lock").string(),
        "another tcec-ccsd run on this scratch directory, still running or its ranks not yet ended");
  }
  MPI_Barrier(comm);  // no rank touches the work directory before rank 0 holds it
  nlohmann::json saved;
  if (a.resume) {
    std::ifstream in(checkpoint);
    if (!in)
      throw tcert::Error(
          fmt::format("cannot resume: no checkpoint {} (run without --resume first)", checkpoint.string()));
    saved = nlohmann::json::parse(in);
    for (const auto& [key, value] : me.items())
      if (saved.at("identity").at(key) != value)
        throw tcert::Error(fmt::format("cannot resume from {}: it was made for another {} ({} there, {} now)",
                                       checkpoint.string(), key, saved.at("identity").at(key).dump(), value.dump()));
  } else if (rank == 0) {
    fs::remove_all(work);
  }
  // Compiled residuals outlive the run: SCRATCH/tcec-ccsd-cache, one object per O, V, machine
  // and equations (residuals.h), reused by later runs.
  const std::string cache = (base / "tcec-ccsd-cache").string();
  if (rank == 0) fs::create_directories(work), fs::create_directories(cache);
  MPI_Barrier(comm);
  const auto clock = [] { return std::chrono::steady_clock::now(); };
  const auto since = [&](auto t0) { return std::chrono::duration<double>(clock() - t0).count(); };
  auto t_build = clock();
  const Residuals residuals(comm, O, V, a.equations, a.machine, cache);
  if (rank == 0 && !a.quiet) {
    std::fprintf(stderr, "tcec-ccsd: O = %lld, V = %lld; residuals planned and compiled (or found in %s) in %.1f s\n",
                 static_cast<long long>(O), static_cast<long long>(V), cache.c_str(), since(t_build));
    std::fprintf(stderr, "tcec-ccsd: %.6g flops per iteration in the contractions (T1 %.6g, T2 %.6g, energy %.6g)\n",
                 residuals.flops(Residuals::T1) + residuals.flops(Residuals::T2) + residuals.flops(Residuals::Energy),
                 residuals.flops(Residuals::T1), residuals.flops(Residuals::T2), residuals.flops(Residuals::Energy));
  }
  // One rank keeps the vectors it writes in memory, up to an eighth of the machine's memory: on
  // top of what the residual programs plan for (all of it), as the runtime's pool of freed
  // blocks is (tcert::FileMemory).
  const tcec::ccsd::VectorOps ops(comm, integrals.diagonal("f_hh"), integrals.diagonal("f_pp"),
                                  residuals.memory_bytes() / 8);
  tcec::ccsd::Diis diis(ops, work, a.diis);
  const auto in_work = [&](const std::string& name) { return (fs::path(work) / name).string(); };
  const Amplitudes r{in_work("r_ph.npy"), in_work("r_pphh.npy")};
  Amplitudes t{in_work("t0_ph.npy"), in_work("t0_pphh.npy")};
  double energy = 0;
  int first = 1;
  if (a.resume) {  // the state after the checkpoint's iteration: every file it names is complete
    first = saved.at("iteration").get<int>() + 1;
    energy = saved.at("energy").get<double>();
    t = {saved.at("t").at(0).get<std::string>(), saved.at("t").at(1).get<std::string>()};
    diis.restore(saved.at("diis"));
    if (rank == 0 && !a.quiet) std::fprintf(stderr, "tcec-ccsd: resuming after iteration %d\n", first - 1);
  } else {
    ops.zeros(t);
  }
  std::map<std::string, tcert::TensorFile> files;
  for (const char* x : {"hh", "hp", "ph", "pp"}) files[fmt::format("f_{}", x)] = integrals.file(fmt::format("f_{}", x));
  for (const char* s : {"hhhh", "hhhp", "hhph", "hhpp", "hphh", "hphp", "hpph", "hppp", "phhh", "phhp", "phph", "phpp",
                        "pphh", "pphp", "ppph", "pppp"})
    files[fmt::format("v_{}", s)] = integrals.file(fmt::format("v_{}", s));
  tcert::RunOptions options;
  options.scratch = work;
  options.quiet = true;
  options.record_steps = false;  // no trace, no summary: skip the per-step gathers of measured figures
  bool converged = false;
  if (rank == 0 && !a.quiet) {
    std::printf("%4s  %20s  %12s  %12s  %9s", "iter", "energy (Eh)", "delta E", "|residual|", "s");
    if (a.timings) std::printf("  %9s  %9s  %9s  %9s  %9s", "t1 s", "t2 s", "update s", "e s", "other s");
    std::printf("\n");
  }
  std::future<void> checkpointing;  // rank 0: the last iteration's checkpoint, written behind the next
  for (int it = first; it <= a.max_iter && !converged; ++it) {
    const auto t0 = clock();
    // --timings: seconds of the T1 and T2 residuals, the update (norm, Jacobi, DIIS), the energy
    double phase[4] = {};
    auto lap = t0;
    const auto end_phase = [&](int which) { phase[which] = since(lap), lap = clock(); };
    files["t_ph"] = {t.t1, ""}, files["t_pphh"] = {t.t2, ""};
    check(residuals.call(Residuals::T1, comm, files, r.t1, options), "ccsd_t1");
    end_phase(0);
    check(residuals.call(Residuals::T2, comm, files, r.t2, options), "ccsd_t2");
    end_phase(1);
    // Files of this iteration are new names: the last checkpoint's files stay intact.
    const double norm = std::sqrt(ops.jacobi(t, r, diis.amplitudes_of(it), diis.error_of(it)));
    diis.add(it);
    const std::vector<double> c = diis.coefficients();
    if (c.empty()) {
      t = diis.amplitudes_of(it);
    } else {
      t = {in_work(fmt::format("tx{}_ph.npy", it)), in_work(fmt::format("tx{}_pphh.npy", it))};
      ops.combine(c, diis.amplitudes(), t);
    }
    end_phase(2);
    files["t_ph"] = {t.t1, ""}, files["t_pphh"] = {t.t2, ""};
    check(residuals.call(Residuals::Energy, comm, files, in_work("e.npy"), options), "ccsd_e");
    end_phase(3);
    const double next = read_scalar(in_work("e.npy"));
    const double delta = next - energy;
    energy = next;
    converged = std::abs(delta) < a.conv && norm < std::sqrt(a.conv);
    MPI_Barrier(comm);  // every rank is done with the files the checkpoint drops
    if (rank == 0) {
      // Rank 0 writes the checkpoint behind the next iteration (one at a time; an error surfaces
      // at the next one): what it names is on disk before it is, this iteration's files (the
      // others it names were flushed before the checkpoints that first named them), and the
      // files it no longer names go to the spare files, for later iterations' to be written in,
      // only once it is in place. Files are written again only once no checkpoint names them.
      if (checkpointing.valid()) checkpointing.get();
      const Amplitudes jacobi_t = diis.amplitudes_of(it), jacobi_step = diis.error_of(it);
      const std::vector<std::string> durable = {t.t1, t.t2, jacobi_t.t1, jacobi_t.t2, jacobi_step.t1, jacobi_step.t2};
      const nlohmann::json state = {
          {"identity", me}, {"iteration", it}, {"energy", energy}, {"t", {t.t1, t.t2}}, {"diis", diis.state()}};
      std::vector<std::string> unnamed;
      for (const std::string& f : diis.stale_files())
        if (f != t.t1 && f != t.t2 && fs::exists(f)) unnamed.push_back(f);
      for (const auto& entry : fs::directory_iterator(work)) {  // older extrapolations
        const std::string path = entry.path().string();
        if (entry.path().filename().string().rfind("tx", 0) == 0 && path != t.t1 && path != t.t2)
          unnamed.push_back(path);
      }
      for (const std::string& f : unnamed) ops.forget(f);  // not read again
      checkpointing = std::async(std::launch::async, [durable, state, unnamed, &checkpoint, &work] {
        tcert::sync_files(durable);
        write_json_atomically(checkpoint, state);
        for (const std::string& f : unnamed)
          if (!tcert::spare_files().give(f, work)) fs::remove(f);
      });
      if (!a.quiet) {
        const double seconds = since(t0);
        std::printf("%4d  %20.12f  %12.3e  %12.3e  %9.4f", it, energy, delta, norm, seconds);
        if (a.timings)
          std::printf("  %9.4f  %9.4f  %9.4f  %9.4f  %9.4f", phase[0], phase[1], phase[2], phase[3],
                      seconds - phase[0] - phase[1] - phase[2] - phase[3]);
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  }
  if (checkpointing.valid()) checkpointing.get();
  MPI_Barrier(comm);
  if (!converged) {  // alike on every rank: a clean exit, the work directory kept for --resume
    if (rank == 0)
      std::fprintf(
          stderr,
          "tcec-ccsd: error: not converged in %d iterations (energy %.12f Eh); %s holds the state for --resume\n",
          a.max_iter, energy, work.c_str());
    return 1;
  }
  if (rank == 0 && !a.keep) fs::remove_all(work);
  if (rank == 0) std::printf("CCSD correlation energy: %.12f\n", energy);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  tcert::use_native_blas_kernels(argv);  // before MPI and threads: may execute the program again
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CLI::App app{"tcec-ccsd: the CCSD correlation energy with tcec's generated code, out of core"};
  Args a;
  app.add_option(
         "--integrals", a.integrals,
         "directory of f_*.npy, v_*.npy and meta.json, or an .h5 file of those datasets (tools/psi4_integrals.py)")
      ->required()
      ->check(CLI::ExistingPath);
  app.add_option("--equations", a.equations, "NWChem TCE equation trees holding ccsd_e, ccsd_t1 and ccsd_t2")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--machine", a.machine, "machine file (its processors must be the number of ranks)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--scratch", a.scratch, "directory for amplitudes, residuals, DIIS vectors and the runs' stores");
  app.add_option("--conv", a.conv, "convergence: |delta E| below this (Eh) and |residual| below its square root");
  app.add_option("--max-iter", a.max_iter, "iterations at most")->check(CLI::PositiveNumber);
  app.add_option("--diis", a.diis, "DIIS subspace size (0 or 1: plain Jacobi)")->check(CLI::NonNegativeNumber);
  app.add_flag("--keep", a.keep, "keep the work directory (SCRATCH/tcec-ccsd) after converging");
  app.add_flag("--resume", a.resume,
               "continue from the checkpoint in SCRATCH/tcec-ccsd (same integrals, equations, machine)");
  app.add_flag("--quiet", a.quiet, "print only the final energy");
  app.add_flag("--timings", a.timings,
               "split each iteration's seconds: the T1 and T2 residuals, the update (norm, Jacobi, DIIS), the "
               "energy, and the rest (mostly the wait for the last checkpoint, written behind the iteration)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = rank == 0 ? app.exit(e) : (e.get_exit_code() == 0 ? 0 : 1);
    MPI_Finalize();
    return code;
  }
  {  // one BLAS thread per core of the node at most, over its ranks (kernel.h share_cores)
    MPI_Comm node;
    int ranks_on_node = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
      MPI_Comm_size(node, &ranks_on_node);
      MPI_Comm_free(&node);
    }
    tcert::share_cores(ranks_on_node);
  }
  int status = 1;
  try {
    status = solve(a, MPI_COMM_WORLD);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%stcec-ccsd: error: %s\n", size > 1 ? fmt::format("[rank {}] ", rank).c_str() : "", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}

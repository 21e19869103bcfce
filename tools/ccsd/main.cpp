// tools/ccsd/main.cpp — tcec-ccsd: the CCSD correlation energy of a molecule with tcec's
// generated code, out of core, in one MPI job.
//
//   mpirun -np P tcec-ccsd --integrals DIR --machine FILE [--equations TREES] [--scratch DIR]
//                          [--checkpoint SHARED_DIR]
//                          [--conv 1e-10] [--max-iter N] [--diis 8] [--keep] [--resume] [--quiet]
//
// DIR holds the Fock blocks f_hh f_hp f_ph f_pp and the sixteen <pq||rs> blocks v_hhhh …
// v_pppp as .npy, spin orbitals occupied first, and meta.json with "O" and "V"; or it is one
// HDF5 file with those blocks as datasets (tools/psi4_integrals.py writes either). The CCSD
// equations are built in (NWChem TCE's trees ccsd_e, ccsd_t1 and ccsd_t2, from
// data/nwchem_tce_equation_trees.txt; equations.h); TREES, when given, is another NWChem TCE
// equation file holding those sections, used instead. Each iteration calls the generated residuals of T1 and
// T2, takes a Jacobi step with orbital-energy denominators, extrapolates with DIIS, and calls the
// energy; amplitudes, residuals and DIIS vectors live in files under the scratch directory (or,
// on several nodes, under a shared --checkpoint directory; the compiled residuals are then sent
// to each node's node-local scratch), and
// a checkpoint after each iteration (written while the next one runs) lets --resume continue a
// run that was stopped, with the same results as an uninterrupted one.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <mpi.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "amplitudes.h"
#include "diis.h"
#include "equations.h"
#include "integrals.h"
#include "residuals.h"
#include "runtime/base/error.h"
#include "runtime/base/file_lock.h"
#include "runtime/comm/comm.h"
#include "runtime/kernel/kernel.h"
#include "runtime/program/shared_paths.h"
#include "runtime/storage/npy.h"
#include "runtime/storage/spare_files.h"
#include "tools/diagnostics.h"

namespace {

namespace fs = std::filesystem;
using tcec::ccsd::Amplitudes;
using tcec::ccsd::Diis;
using tcec::ccsd::Residuals;
using tcec::ccsd::VectorOps;
using Clock = std::chrono::steady_clock;

/// The command line. `equations` empty: the built-in equations.
struct Args {
  std::string integrals, equations, machine, scratch, checkpoint;
  double conv = 1e-10;
  int max_iter = 100, diis = 8;
  bool keep = false, quiet = false, resume = false, timings = false;
};

/// Seconds (wall clock) since `t0`.
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double read_scalar(const std::string& path) {
  const tcert::NpyReader f(path);
  if (f.size() != 1)
    throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_not_scalar, path, f.size()));
  return f.data()[0];
}

void check(const tcert::Status& status, const char* what) {
  if (!status)
    throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_status, what, status.message()));
}

/// What a checkpoint must match to be resumed: the molecule's integrals, the equations (the
/// file's absolute path, or the built-in text's hash: Equations::identity), the machine and
/// the DIIS size.
nlohmann::json identity(const Args& a, const tcec::ccsd::Equations& equations, std::int64_t O, std::int64_t V) {
  std::ifstream in(a.machine);
  std::ostringstream machine;
  machine << in.rdbuf();
  return {{"O", O},
          {"V", V},
          {"integrals", fs::absolute(a.integrals).string()},
          {"equations", equations.identity},
          {"machine", machine.str()},
          {"diis", a.diis}};
}

void write_json_atomically(const fs::path& path, const nlohmann::json& doc) {
  const fs::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << doc.dump(1) << "\n";
    if (!out) throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_write, temporary.string()));
  }
  fs::rename(temporary, path);
}

/// The directories of a run: SCRATCH is --scratch (or $TMPDIR, /tmp), possibly node-local;
/// SHARED is --checkpoint DIR, a directory every node mounts, or SCRATCH without it.
struct Workspace {
  fs::path base;        ///< SHARED, where the lock is
  std::string work;     ///< SHARED/tcec-ccsd: amplitudes, residuals, DIIS vectors, the checkpoint, the runs' stores
  fs::path checkpoint;  ///< WORK/checkpoint.json
  std::string cache;    ///< SCRATCH/tcec-ccsd-cache: compiled residuals, kept for later runs
  /// Each rank's tile files of the residual runs: WORK without --checkpoint, else
  /// SCRATCH/tcec-ccsd-tiles (node-local, beside the cache).
  std::string tiles;
  /// WORK/name.
  std::string in_work(const std::string& name) const { return (fs::path(work) / name).string(); }
  /// WORK is node-local on several nodes (no --checkpoint): each node has its own, and each rank
  /// keeps its range of every vector in files of its own there (VectorOps private ranges).
  bool node_local = false;
};

Workspace workspace_of(const Args& a) {
  const char* tmp = std::getenv("TMPDIR");
  Workspace ws;
  const fs::path scratch = !a.scratch.empty() ? fs::path(a.scratch) : fs::path(tmp && *tmp ? tmp : "/tmp");
  const bool shared = !a.checkpoint.empty();  // WORK is not under SCRATCH
  ws.base = shared ? fs::path(a.checkpoint) : scratch;
  ws.work = (ws.base / "tcec-ccsd").string();
  ws.checkpoint = fs::path(ws.work) / "checkpoint.json";
  ws.cache = (scratch / "tcec-ccsd-cache").string();
  ws.tiles = shared ? (scratch / "tcec-ccsd-tiles").string() : ws.work;
  return ws;
}

/// Collective: rank 0 creates SHARED and takes SHARED/tcec-ccsd.lock, for the whole run (one
/// run at a time on SHARED); no rank goes on before it holds it. Returns rank 0's lock (null
/// on the other ranks). Throws tcert::Error when another process holds it.
std::unique_ptr<tcert::FileLock> lock_scratch(const Workspace& ws, int rank, MPI_Comm comm) {
  std::unique_ptr<tcert::FileLock> lock;
  if (rank == 0) {
    fs::create_directories(ws.base);
    lock = std::make_unique<tcert::FileLock>((ws.base / "tcec-ccsd.lock").string(),
                                             tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_scratch_locked));
  }
  MPI_Barrier(comm);  // no rank touches the work directory before rank 0 holds it
  return lock;
}

/// The checkpoint to resume from, checked against this run's identity `me`. Throws
/// tcert::Error when there is none, or when it was made for another run (naming the first
/// identity key that differs, with both values).
/// Rank 0 reads the file, and every rank gets its text (collective; the errors on every rank).
nlohmann::json read_checkpoint(const Workspace& ws, const nlohmann::json& me, MPI_Comm comm) {
  const std::string text = tcert::Context(comm).root_value([&] {
    std::ifstream in(ws.checkpoint);
    if (!in)
      throw tcert::Error(
          tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_no_checkpoint, ws.checkpoint.string()));
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  });
  nlohmann::json saved = nlohmann::json::parse(text);
  for (const auto& [key, value] : me.items())
    if (saved.at("identity").at(key) != value)
      throw tcert::Error(tcec::tools::message_text(tcec::tools::ToolDiag::err_ccsd_other_checkpoint,
                                                   ws.checkpoint.string(), key, saved.at("identity").at(key).dump(),
                                                   value.dump()));
  return saved;
}

/// Collective: rank 0 empties the work directory of a fresh run (not of a resumed one) and
/// creates it; every rank creates the cache directory and the tile files' directory, which may
/// be node-local. When a rank does not see the work directory as rank 0 does (several nodes,
/// node-local scratch, no --checkpoint) every rank creates its node's and sets ws.node_local:
/// each rank then keeps its ranges of the vectors in files of its own, and nothing is
/// checkpointed; with --resume that is an Error on every rank (the checkpoint must be on a
/// shared --checkpoint DIR), and with --checkpoint DIR not seen alike, too.
void prepare_directories(Workspace& ws, const Args& a, MPI_Comm comm) {
  const tcert::Context ctx(comm);
  ctx.check_root([&] {
    if (!a.resume) fs::remove_all(ws.work);
    fs::create_directories(ws.work);
  });
  ctx.check_all(
      [&] { fs::create_directories(ws.work), fs::create_directories(ws.cache), fs::create_directories(ws.tiles); });
  try {
    tcert::check_shared_paths(ctx, {{ws.work, "tcec-ccsd's work directory", true}});
  } catch (const tcert::Error& e) {
    if (!a.checkpoint.empty() || a.resume)
      throw tcert::Error(std::string(e.what()) +
                         "; to checkpoint or resume on several nodes give --checkpoint DIR on a file system every "
                         "node mounts (the work directory is then DIR/tcec-ccsd, and --scratch may be node-local)");
    ws.node_local = true;
  }
}

/// Prints (stderr) how long the residuals took to plan and compile, and their flops per iteration.
void print_residuals(const Residuals& residuals, std::int64_t O, std::int64_t V, const std::string& cache,
                     double seconds) {
  using tcec::tools::ToolDiag;
  tcec::tools::report_plain("tcec-ccsd", ToolDiag::note_ccsd_residuals, O, V, cache, seconds);
  tcec::tools::report_plain(
      "tcec-ccsd", ToolDiag::note_ccsd_flops,
      residuals.flops(Residuals::T1) + residuals.flops(Residuals::T2) + residuals.flops(Residuals::Energy),
      residuals.flops(Residuals::T1), residuals.flops(Residuals::T2), residuals.flops(Residuals::Energy));
}

/// The integrals' files by the residuals' input names: f_hh … f_pp and v_hhhh … v_pppp.
std::map<std::string, tcert::TensorFile> integral_files(const tcec::ccsd::Integrals& integrals) {
  std::map<std::string, tcert::TensorFile> files;
  for (const char* x : {"hh", "hp", "ph", "pp"}) files[fmt::format("f_{}", x)] = integrals.file(fmt::format("f_{}", x));
  for (const char* s : {"hhhh", "hhhp", "hhph", "hhpp", "hphh", "hphp", "hpph", "hppp", "phhh", "phhp", "phph", "phpp",
                        "pphh", "pphp", "ppph", "pppp"})
    files[fmt::format("v_{}", s)] = integrals.file(fmt::format("v_{}", s));
  return files;
}

/// Where the iterations stand: the amplitudes' files, the last energy (Eh) and the next iteration.
struct State {
  Amplitudes t;
  double energy = 0;
  int first = 1;
};

/// The state a run starts from: zero amplitudes at iteration 1, or for --resume the state after
/// the checkpoint `saved`'s iteration (every file it names is complete), DIIS restored.
State start_state(const Args& a, const nlohmann::json& saved, const VectorOps& ops, Diis& diis, const Workspace& ws,
                  int rank) {
  State s{{ws.in_work("t0_ph.npy"), ws.in_work("t0_pphh.npy")}, 0, 1};
  if (!a.resume) {
    ops.zeros(s.t);
    return s;
  }
  s.first = saved.at("iteration").get<int>() + 1;
  s.energy = saved.at("energy").get<double>();
  s.t = {saved.at("t").at(0).get<std::string>(), saved.at("t").at(1).get<std::string>()};
  diis.restore(saved.at("diis"));
  if (rank == 0 && !a.quiet)
    tcec::tools::report_plain("tcec-ccsd", tcec::tools::ToolDiag::note_ccsd_resuming, s.first - 1);
  return s;
}

/// What one iteration calls: the residual functions and the vector operations on `comm`, the
/// integrals' files by name, the runs' options, the work directory.
struct Iteration {
  MPI_Comm comm;
  const Residuals& residuals;
  const VectorOps& ops;
  Diis& diis;
  const Workspace& ws;
  std::map<std::string, tcert::TensorFile> files;
  tcert::RunOptions options;
};

/// Calls residual `which` of the amplitudes `t`, its result i0 into the vector file `output` of
/// `shape`: as files every rank sees, or, with private ranges, as each rank's parts in memory
/// of its own files (VectorOps::read_part(), write_part()). Collective; returns the Status.
tcert::Status call_residual(const Iteration& run, Residuals::Which which, const Amplitudes& t,
                            const std::string& output, const std::vector<std::uint64_t>& shape) {
  tcert::TensorLocations tensors;
  tensors.inputs = run.files;
  if (!run.ops.private_ranges()) {
    tensors.inputs["t_ph"] = {t.t1, ""}, tensors.inputs["t_pphh"] = {t.t2, ""};
    tensors.outputs["i0"] = {output, ""};
    return run.residuals.call(which, run.comm, tensors, run.options);
  }
  const VectorOps::Part t1 = run.ops.read_part(t.t1), t2 = run.ops.read_part(t.t2);
  VectorOps::Part out = run.ops.write_part(output, shape);
  tensors.input_parts["t_ph"] = t1.part, tensors.input_parts["t_pphh"] = t2.part;
  tensors.output_parts["i0"] = out.part;
  const tcert::Status status = run.residuals.call(which, run.comm, tensors, run.options);
  if (status) VectorOps::commit_part(out);
  return status;
}

/// The energy the Energy residual wrote to `path`: the file's one element, or with private
/// ranges rank 0's (its range holds it), broadcast. Collective.
double energy_of(const Iteration& run, const std::string& path) {
  if (!run.ops.private_ranges()) return read_scalar(path);
  double e = 0;
  const VectorOps::Part p = run.ops.read_part(path);
  if (!p.part.data.empty()) e = p.part.data[0];
  MPI_Bcast(&e, 1, MPI_DOUBLE, 0, run.comm);
  return e;
}

/// One iteration's figures: the residual's norm, the new energy (Eh), and --timings' seconds of
/// its phases: the T1 and T2 residuals, the update (norm, Jacobi, DIIS), the energy.
struct Step {
  double norm = 0, energy = 0;
  double phase_s[4] = {};
};

/// Iteration `it`, collective: the T1 and T2 residuals of `t`, a Jacobi step with DIIS
/// extrapolation (t becomes the new amplitudes; files of this iteration are new names, so the
/// last checkpoint's files stay intact), and the energy of the new t. Throws tcert::Error when a
/// residual function fails.
Step iterate(Iteration& run, int it, Amplitudes& t) {
  Step step;
  auto lap = Clock::now();
  const auto end_phase = [&](int which) { step.phase_s[which] = seconds_since(lap), lap = Clock::now(); };
  const Amplitudes r{run.ws.in_work("r_ph.npy"), run.ws.in_work("r_pphh.npy")};
  const auto O = static_cast<std::uint64_t>(run.ops.O()), V = static_cast<std::uint64_t>(run.ops.V());
  check(call_residual(run, Residuals::T1, t, r.t1, {V, O}), "ccsd_t1");
  end_phase(0);
  check(call_residual(run, Residuals::T2, t, r.t2, {V, V, O, O}), "ccsd_t2");
  end_phase(1);
  step.norm = std::sqrt(run.ops.jacobi(t, r, run.diis.amplitudes_of(it), run.diis.error_of(it)));
  run.diis.add(it);
  const std::vector<double> c = run.diis.coefficients();
  if (c.empty()) {
    t = run.diis.amplitudes_of(it);
  } else {
    t = {run.ws.in_work(fmt::format("tx{}_ph.npy", it)), run.ws.in_work(fmt::format("tx{}_pphh.npy", it))};
    run.ops.combine(c, run.diis.amplitudes(), t);
  }
  end_phase(2);
  check(call_residual(run, Residuals::Energy, t, run.ws.in_work("e.npy"), {}), "ccsd_e");
  end_phase(3);
  step.energy = energy_of(run, run.ws.in_work("e.npy"));
  return step;
}

/// The vector files in `work` that no later iteration reads, as file_of() names them: those of
/// vectors that left the DIIS subspace, and older extrapolations (tx*), but not `t`'s.
std::vector<std::string> no_longer_needed(const VectorOps& ops, const std::string& work, const Amplitudes& t,
                                          const Diis& diis) {
  const std::set<std::string> keep = {ops.file_of(t.t1), ops.file_of(t.t2)};
  std::vector<std::string> unnamed;
  for (const std::string& f : diis.stale_files())
    if (!keep.count(f) && fs::exists(f)) unnamed.push_back(f);
  for (const auto& entry : fs::directory_iterator(work)) {  // older extrapolations
    const std::string path = entry.path().string(), name = entry.path().filename().string();
    if (name.rfind("tx", 0) == 0 && ops.is_mine(name) && !keep.count(path)) unnamed.push_back(path);
  }
  return unnamed;
}

/// Rank 0's checkpoints, each written behind the next iteration (one at a time; an error
/// surfaces at the next one): what it names is on disk before it is, this iteration's files
/// (the others it names were flushed before the checkpoints that first named them), and the
/// files it no longer names go to the spare files, for later iterations' to be written in, only
/// once it is in place. Files are written again only once no checkpoint names them.
class CheckpointWriter {
 public:
  CheckpointWriter(const Workspace& ws, const VectorOps& ops, nlohmann::json identity)
      : checkpoint_(ws.checkpoint), work_(ws.work), ops_(ops), identity_(std::move(identity)) {}
  ~CheckpointWriter() {
    if (pending_.valid()) pending_.wait();
  }

  /// After iteration `it` (every rank done with the files it drops): starts writing the
  /// checkpoint of `t`, `energy` (Eh) and DIIS, once the previous one is written.
  void write_behind(int it, double energy, const Amplitudes& t, const Diis& diis) {
    wait();
    const Amplitudes jacobi_t = diis.amplitudes_of(it), jacobi_step = diis.error_of(it);
    std::vector<std::string> durable = {t.t1, t.t2, jacobi_t.t1, jacobi_t.t2, jacobi_step.t1, jacobi_step.t2};
    nlohmann::json state = {
        {"identity", identity_}, {"iteration", it}, {"energy", energy}, {"t", {t.t1, t.t2}}, {"diis", diis.state()}};
    const std::vector<std::string> unnamed = no_longer_needed(ops_, work_, t, diis);
    for (const std::string& f : unnamed) ops_.forget(f);  // not read again
    pending_ = std::async(std::launch::async, [durable = std::move(durable), state = std::move(state),
                                               unnamed = std::move(unnamed), checkpoint = checkpoint_, work = work_] {
      tcert::sync_files(durable);
      write_json_atomically(checkpoint, state);
      for (const std::string& f : unnamed)
        if (!tcert::spare_files().give(f, work)) fs::remove(f);
    });
  }

  /// Waits for the checkpoint being written; rethrows its error.
  void wait() {
    if (pending_.valid()) pending_.get();
  }

 private:
  fs::path checkpoint_;
  std::string work_;
  const VectorOps& ops_;
  nlohmann::json identity_;
  std::future<void> pending_;
};

/// Prints the table's header (stdout): iteration, energy, its change, the residual's norm,
/// seconds, and with `timings` the seconds of each phase.
void print_header(bool timings) {
  std::printf("%4s  %20s  %12s  %12s  %9s", "iter", "energy (Eh)", "delta E", "|residual|", "s");
  if (timings) std::printf("  %9s  %9s  %9s  %9s  %9s", "t1 s", "t2 s", "update s", "e s", "other s");
  std::printf("\n");
}

/// Prints iteration `it`'s row of the table (stdout): `seconds` is the whole iteration's; the
/// last timing column is what the phases leave (mostly the wait for the last checkpoint).
void print_iteration(int it, const Step& step, double delta, double seconds, bool timings) {
  std::printf("%4d  %20.12f  %12.3e  %12.3e  %9.4f", it, step.energy, delta, step.norm, seconds);
  const double* p = step.phase_s;
  if (timings)
    std::printf("  %9.4f  %9.4f  %9.4f  %9.4f  %9.4f", p[0], p[1], p[2], p[3], seconds - p[0] - p[1] - p[2] - p[3]);
  std::printf("\n");
  std::fflush(stdout);
}

/// The iterations from state `s` until converged (|delta E| < conv and |residual| < sqrt(conv))
/// or past --max-iter; rank 0 checkpoints each (not with node-local work directories: every
/// rank then removes its files no later iteration reads) and prints its row. True when converged.
bool iterate_until_converged(const Args& a, Iteration& run, const nlohmann::json& me, State& s, int rank) {
  if (rank == 0 && !a.quiet) print_header(a.timings);
  CheckpointWriter checkpoints(run.ws, run.ops, me);
  bool converged = false;
  for (int it = s.first; it <= a.max_iter && !converged; ++it) {
    const auto t0 = Clock::now();
    const Step step = iterate(run, it, s.t);
    const double delta = step.energy - s.energy;
    s.energy = step.energy;
    converged = std::abs(delta) < a.conv && step.norm < std::sqrt(a.conv);
    MPI_Barrier(run.comm);    // every rank is done with the files the checkpoint drops
    if (run.ws.node_local) {  // no checkpoint (no shared directory): each rank drops its own files
      for (const std::string& f : no_longer_needed(run.ops, run.ws.work, s.t, run.diis)) fs::remove(f);
      if (rank == 0 && !a.quiet) print_iteration(it, step, delta, seconds_since(t0), a.timings);
    } else if (rank == 0) {
      checkpoints.write_behind(it, s.energy, s.t, run.diis);
      if (!a.quiet) print_iteration(it, step, delta, seconds_since(t0), a.timings);
    }
  }
  checkpoints.wait();
  MPI_Barrier(run.comm);
  return converged;
}

/// Removes the work directory, collective: rank 0 the whole directory; with node-local work
/// directories every rank its own files (VectorOps::is_mine()), then each node's directory once
/// empty.
void remove_work(const Workspace& ws, const VectorOps& ops, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (!ws.node_local) {
    if (rank == 0) fs::remove_all(ws.work);
    return;
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(ws.work))
    if (ops.is_mine(entry.path().filename().string())) files.push_back(entry.path());
  for (const fs::path& f : files) fs::remove(f);
  MPI_Barrier(comm);
  std::error_code not_empty_or_gone;
  fs::remove(ws.work, not_empty_or_gone);
}

/// The whole run on `comm`: integrals, equations, the scratch directory, the residuals, the
/// iterations. Returns the exit status: 0 converged (the energy printed), 1 not converged (alike
/// on every rank: a clean exit, the work directory kept for --resume). Throws tcert::Error.
int solve(const Args& a, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const tcec::ccsd::Integrals integrals(a.integrals);
  const std::int64_t O = integrals.O(), V = integrals.V();
  const tcec::ccsd::Equations equations = tcec::ccsd::load_equations(a.equations);
  Workspace ws = workspace_of(a);
  const nlohmann::json me = identity(a, equations, O, V);
  const std::unique_ptr<tcert::FileLock> lock = lock_scratch(ws, rank, comm);
  const nlohmann::json saved = a.resume ? read_checkpoint(ws, me, comm) : nlohmann::json();
  // Compiled residuals outlive the run: SCRATCH/tcec-ccsd-cache, one object per O, V, machine
  // and equations (residuals.h), reused by later runs.
  prepare_directories(ws, a, comm);
  const auto t_build = Clock::now();
  const Residuals residuals(comm, O, V, equations, a.machine, ws.cache);
  if (rank == 0 && !a.quiet) print_residuals(residuals, O, V, ws.cache, seconds_since(t_build));
  // One rank keeps the vectors it writes in memory, up to an eighth of the machine's memory: on
  // top of what the residual programs plan for (all of it), as the runtime's pool of freed
  // blocks is (tcert::FileMemory).
  const VectorOps ops(comm, integrals.diagonal("f_hh"), integrals.diagonal("f_pp"), residuals.memory_bytes() / 8,
                      ws.node_local);
  Diis diis(ops, ws.work, a.diis);
  State s = start_state(a, saved, ops, diis, ws, rank);
  Iteration run{comm, residuals, ops, diis, ws, integral_files(integrals), {}};
  run.options.scratch = ws.tiles;    // each rank's tile files
  run.options.store_base = ws.work;  // the runs' stores, which every rank reads and writes
  run.options.quiet = true;
  run.options.record_steps = false;  // no trace, no summary: skip the per-step gathers of measured figures
  if (!iterate_until_converged(a, run, me, s, rank)) {
    if (rank == 0 && ws.node_local)
      tcec::tools::report("tcec-ccsd", tcec::tools::ToolDiag::err_ccsd_not_converged_node_local, a.max_iter, s.energy);
    else if (rank == 0)
      tcec::tools::report("tcec-ccsd", tcec::tools::ToolDiag::err_ccsd_not_converged, a.max_iter, s.energy, ws.work);
    if (ws.node_local) remove_work(ws, ops, comm);  // nothing to resume from
    return 1;
  }
  if (!a.keep) remove_work(ws, ops, comm);
  if (rank == 0) std::printf("CCSD correlation energy: %.12f\n", s.energy);
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
  app.add_option("--equations", a.equations,
                 "NWChem TCE equation trees holding ccsd_e, ccsd_t1 and ccsd_t2, instead of the built-in ones "
                 "(data/nwchem_tce_equation_trees.txt as tcec-ccsd was built with)")
      ->check(CLI::ExistingFile);
  app.add_option("--machine", a.machine, "machine file (its processors must be the number of ranks)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--scratch", a.scratch,
                 "directory for amplitudes, residuals, DIIS vectors, the runs' stores and the compiled residuals "
                 "(default $TMPDIR, else /tmp); with --checkpoint, only the compiled residuals and each rank's tile "
                 "files, and it may be node-local");
  app.add_option("--checkpoint", a.checkpoint,
                 "a directory every node mounts for the amplitudes, residuals, DIIS vectors, the runs' stores and "
                 "the checkpoint (DIR/tcec-ccsd instead of SCRATCH/tcec-ccsd): needed on several nodes to "
                 "checkpoint and --resume (without it each node keeps its own and nothing is checkpointed)");
  app.add_option("--conv", a.conv, "convergence: |delta E| below this (Eh) and |residual| below its square root");
  app.add_option("--max-iter", a.max_iter, "iterations at most")->check(CLI::PositiveNumber);
  app.add_option("--diis", a.diis, "DIIS subspace size (0 or 1: plain Jacobi)")->check(CLI::NonNegativeNumber);
  app.add_flag("--keep", a.keep, "keep the work directory (SCRATCH/tcec-ccsd, or DIR/tcec-ccsd) after converging");
  app.add_flag("--resume", a.resume,
               "continue from the checkpoint in the work directory (same integrals, equations, machine, "
               "number of ranks)");
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
    const std::string line =
        tcec::diag::tool_line("tcec-ccsd", tcec::tools::message(tcec::tools::ToolDiag::err_ccsd_failed), e.what());
    std::fputs(((size > 1 ? fmt::format("[rank {}] ", rank) : std::string()) + line).c_str(), stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}

// bench/tccg_bench.cpp — the 48 TCCG contractions (Springer & Bientinesi 2016, Table III, double-
// precision sizes) on one rank in core: tcert::contract() against numpy's einsum(optimize=True).
//
// Usage: tccg_bench [--cases N] [--reps N] [--max-gflop G] [--input FILE] [--python PATH] [--no-numpy]
//                   [--scheme auto|ttgt|gett] [--compare]
//   --scheme       how contract() runs (kernel.h Workspace::scheme; default auto: the cheaper by its model)
//   --compare      also time contract() forced to TTGT and to GETT, interleaved with the chosen scheme
//   --cases N      run the first N cases only           --reps N   timed runs per case (default 3)
//   --max-gflop G  scale cases above G GFLOP down (default 20; 0 = full sizes, ~10 minutes)
//   --input        a TCCG file: the derived HPAC file ("group | TC | C-A-B | single | double" rows,
//                  the default) or the TAPP file ([tccg_NN] sections, single-precision sizes)
// Per case: random data, beta = 0, one warm-up, then the best of N runs, for both. One thread: the
// bench calls openblas_set_num_threads(1) and runs bench/tccg_numpy.py with OPENBLAS_NUM_THREADS=1
// and OMP_NUM_THREADS=1. A case is scaled down (its largest extent shrunk by 10% at a time, to a
// multiple of 8) while A, B and C exceed 2 GiB together or it exceeds --max-gflop; the table says so.
#include <cblas.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "ir/ir.h"
#include "runtime/kernel/kernel.h"

namespace {

constexpr double kMaxBytes = 2.0 * (1 << 30);

struct Options {
  std::size_t cases = 1000;
  int reps = 3;
  double max_gflop = 20;
  bool numpy = true;
  tcert::Workspace::Scheme scheme = tcert::Workspace::Scheme::Auto;
  bool compare = false;
  std::string input = TCEC_DATA_DIR "/tccg_benchmark_48_derived_from_HPAC_tccg.txt";
  std::string python = TCEC_NUMPY_PYTHON;
};

struct Case {
  std::string name, group, a, b, c;  // letters of A, B, C ("bda", "dc", "abc")
  std::map<char, std::int64_t> extents;
  std::vector<char> I, J, K;  // letters of the macro-indices, in GEMM order
  std::vector<int> perm_A, perm_B, perm_C;
  std::string note;

  std::string spec() const { return a + "," + b + "->" + c; }
  std::int64_t elements(const std::string& t) const {
    std::int64_t n = 1;
    for (char x : t) n *= extents.at(x);
    return n;
  }
  double bytes() const { return 8.0 * (elements(a) + elements(b) + elements(c)); }
  double flops() const {
    double f = 2;
    for (const auto& [x, e] : extents) f *= static_cast<double>(e);
    return f;
  }
  tcert::ContractionLayout layout() const {
    tcert::ContractionLayout l{{}, {}, {}, perm_A, perm_B, perm_C};
    for (char x : I) l.extents_I.push_back(extents.at(x));
    for (char x : J) l.extents_J.push_back(extents.at(x));
    for (char x : K) l.extents_K.push_back(extents.at(x));
    return l;
  }
};

/// The derived HPAC file ("group | original | C-A-B | single | double") as TCCG sections;
/// the chemistry group of each row goes to `groups`.
std::string derived_to_tccg(const std::string& text, std::vector<std::string>& groups) {
  std::istringstream in(text);
  std::string line, out;
  for (int n = 1; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::istringstream row(line);
    for (std::string col; std::getline(row, col, '|');) cols.push_back(col);
    if (cols.size() != 5) continue;
    std::istringstream tc(cols[2]);
    std::string cab, c, a, b;
    tc >> cab;
    std::istringstream parts(cab);
    std::getline(parts, c, '-'), std::getline(parts, a, '-'), std::getline(parts, b, '-');
    std::istringstream group(cols[0]);
    groups.emplace_back();
    group >> groups.back();
    char name[32];
    std::snprintf(name, sizeof name, "[tccg_%02d]\n", n++);
    out += std::string(name) + "indices = " + a + "-" + b + "-" + c + "\nextents = " + cols[4] + "\n";
  }
  return out;
}

std::string letters(const tcec::ir::Program& p, const tcec::ir::TensorRef& r) {
  std::string s;
  for (int id : r.indices) s += p.indices[id].name[0];
  return s;
}

/// Shrinks the largest extent by 10% (to a multiple of 8 from 16 on) while A, B and C exceed
/// kMaxBytes together or the case exceeds max_gflop (0: no limit); notes what it did.
void scale_down(Case& c, double max_gflop) {
  auto too_big = [&] { return c.bytes() > kMaxBytes || (max_gflop > 0 && c.flops() * 1e-9 > max_gflop); };
  if (!too_big()) return;
  const double mib = c.bytes() / (1 << 20), gflop = c.flops() * 1e-9;
  while (too_big()) {
    auto largest = c.extents.begin();
    for (auto it = c.extents.begin(); it != c.extents.end(); ++it) {
      if (it->second > largest->second) largest = it;
    }
    std::int64_t e = largest->second * 9 / 10;
    largest->second = std::max<std::int64_t>(1, e >= 16 ? e / 8 * 8 : e);
  }
  char note[96];
  std::snprintf(note, sizeof note, "scaled down from %.1f GFLOP, %.0f MiB", gflop, mib);
  c.note = note;
}

std::vector<Case> load_cases(const std::string& path, double max_gflop) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  std::vector<std::string> groups;
  if (text.find('|') != std::string::npos) text = derived_to_tccg(text, groups);
  auto r = tcec::frontend::parse_source(path, text, {{}, tcec::frontend::InputFormat::Tccg});
  if (!r.ok()) {
    std::fputs(r.diagnostics.render().c_str(), stderr);
    std::exit(1);
  }
  const auto& p = *r.program;
  std::vector<Case> cases;
  for (const auto& s : p.statements) {
    const auto g = tcec::ir::macro_index_gemm(p, s);
    Case c;
    c.name = p.tensors[s.result.tensor].name.substr(2);
    c.group = cases.size() < groups.size() ? groups[cases.size()] : "";
    c.a = letters(p, s.operands[0]), c.b = letters(p, s.operands[1]), c.c = letters(p, s.result);
    for (const auto* r : {&s.operands[0], &s.operands[1]}) {
      for (int id : r->indices) c.extents[p.indices[id].name[0]] = static_cast<std::int64_t>(p.extent(id));
    }
    for (int id : g.I) c.I.push_back(p.indices[id].name[0]);
    for (int id : g.J) c.J.push_back(p.indices[id].name[0]);
    for (int id : g.K) c.K.push_back(p.indices[id].name[0]);
    c.perm_A = g.perm_A, c.perm_B = g.perm_B, c.perm_C = g.perm_C;
    scale_down(c, max_gflop);
    cases.push_back(c);
  }
  return cases;
}

/// Tensors live in aligned, huge-page-advised memory, as numpy's large arrays do.
using Tensor = std::vector<double, tcert::AlignedAllocator<double>>;

Tensor random_values(std::int64_t count, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  Tensor v(static_cast<std::size_t>(count));
  for (double& x : v) x = dist(rng);
  return v;
}

/// Best time (seconds) of `reps` runs of tcert::contract with each workspace after one warm-up
/// each, the workspaces taking turns (so that a slow spell of a shared host hits all alike).
std::vector<double> time_contract(const Case& c, int reps, std::vector<tcert::Workspace>& ws) {
  const auto layout = c.layout();
  const auto A = random_values(c.elements(c.a), 1), B = random_values(c.elements(c.b), 2);
  Tensor C(static_cast<std::size_t>(c.elements(c.c)));
  std::vector<double> best(ws.size(), 1e30);
  for (int i = 0; i <= reps; ++i) {
    for (std::size_t w = 0; w < ws.size(); ++w) {
      const auto start = std::chrono::steady_clock::now();
      tcert::contract(layout, 1.0, A.data(), B.data(), 0.0, C.data(), ws[w]);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (i > 0) best[w] = std::min(best[w], s);
    }
  }
  return best;
}

/// Runs tccg_numpy.py on all cases; returns GFLOP/s by case name (empty on failure).
std::map<std::string, double> run_numpy(const std::vector<Case>& cases, int reps, const std::string& python) {
  std::string cmd = "OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 '" + python + "' '" TCEC_TCCG_NUMPY_SCRIPT "' --reps " +
                    std::to_string(reps);
  for (const Case& c : cases) {
    std::string sizes;
    for (const auto& [x, e] : c.extents) {
      if (!sizes.empty()) sizes += ',';
      sizes += x;
      sizes += ':' + std::to_string(e);
    }
    cmd += " '" + c.name + ";" + c.spec() + ";" + sizes + "'";
  }
  std::map<std::string, double> out;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return out;
  std::string text;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) text.append(buf, n);
  if (pclose(pipe) != 0 || text.empty()) return out;
  for (const auto& r : nlohmann::json::parse(text)) out[r["name"].get<std::string>()] = r["gflops"].get<double>();
  return out;
}

bool parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--cases" && has_value)
      o.cases = std::strtoul(argv[++i], nullptr, 10);
    else if (arg == "--reps" && has_value)
      o.reps = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--max-gflop" && has_value)
      o.max_gflop = std::atof(argv[++i]);
    else if (arg == "--input" && has_value)
      o.input = argv[++i];
    else if (arg == "--python" && has_value)
      o.python = argv[++i];
    else if (arg == "--no-numpy")
      o.numpy = false;
    else if (arg == "--compare")
      o.compare = true;
    else if (arg == "--scheme" && has_value && std::strcmp(argv[i + 1], "auto") == 0)
      o.scheme = tcert::Workspace::Scheme::Auto, ++i;
    else if (arg == "--scheme" && has_value && std::strcmp(argv[i + 1], "ttgt") == 0)
      o.scheme = tcert::Workspace::Scheme::Ttgt, ++i;
    else if (arg == "--scheme" && has_value && std::strcmp(argv[i + 1], "gett") == 0)
      o.scheme = tcert::Workspace::Scheme::Gett, ++i;
    else
      return false;
  }
  return true;
}

/// Geometric means of tcert and numpy GFLOP/s over the cases whose group is `group` ("" = all).
void print_means(const std::vector<Case>& cases, const std::vector<double>& ours, const std::vector<double>& np,
                 const std::string& group) {
  double log_ours = 0, log_np = 0;
  int n = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!group.empty() && cases[i].group != group) continue;
    log_ours += std::log(ours[i]), log_np += np[i] > 0 ? std::log(np[i]) : 0, ++n;
  }
  std::printf("geometric mean %-9s (%2d cases): tcert %6.2f GFLOP/s", group.empty() ? "all" : group.c_str(), n,
              std::exp(log_ours / n));
  if (std::all_of(np.begin(), np.end(), [](double v) { return v > 0; })) {
    std::printf(", numpy %6.2f GFLOP/s, ratio %.2f", std::exp(log_np / n), std::exp((log_ours - log_np) / n));
  }
  std::printf("\n");
}

void print_table(const std::vector<Case>& cases, const std::vector<double>& ours, const std::vector<double>& np) {
  std::printf("%-4s %-9s %-22s %7s | %8s %8s %6s\n", "case", "group", "einsum (A,B->C)", "GFLOP", "tcert", "numpy",
              "ratio");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    std::printf("%-4s %-9s %-22s %7.2f | %8.2f", c.name.c_str(), c.group.c_str(), c.spec().c_str(), c.flops() * 1e-9,
                ours[i]);
    if (np[i] > 0) std::printf(" %8.2f %6.2f", np[i], ours[i] / np[i]);
    std::printf("%s%s\n", c.note.empty() ? "" : "  ", c.note.c_str());
  }
  std::printf("\n");
  std::vector<std::string> groups;
  for (const Case& c : cases) {
    if (!c.group.empty() && std::find(groups.begin(), groups.end(), c.group) == groups.end()) groups.push_back(c.group);
  }
  for (const auto& g : groups) print_means(cases, ours, np, g);
  print_means(cases, ours, np, "");
}

}  // namespace

int main(int argc, char** argv) {
  tcert::use_native_blas_kernels(argv);  // the library's kernels for this CPU (kernel.h)
  Options o;
  if (!parse_options(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: tccg_bench [--cases N] [--reps N] [--max-gflop G] [--input FILE] "
                 "[--python PATH] [--no-numpy] [--scheme auto|ttgt|gett] [--compare]\n");
    return 2;
  }
#ifdef OPENBLAS_VERSION
  openblas_set_num_threads(1);
#endif
  const auto start = std::chrono::steady_clock::now();
  auto cases = load_cases(o.input, o.max_gflop);
  if (cases.size() > o.cases) cases.resize(o.cases);
  std::printf("TCCG contractions from %s\n", o.input.c_str());
  std::printf("1 thread, double, random data, beta = 0, best of %d after a warm-up\n", o.reps);
  std::printf("GFLOP/s = 2·|I|·|J|·|K| / time\n");
  std::printf("numpy: np.einsum(spec, A, B, out=C, optimize=True) by %s\n\n", o.python.c_str());
  std::vector<double> ours(cases.size()), np(cases.size(), 0.0);
  std::vector<tcert::Workspace> ws(o.compare ? 3 : 1);
  ws[0].scheme = o.scheme;
  if (o.compare) ws[1].scheme = tcert::Workspace::Scheme::Ttgt, ws[2].scheme = tcert::Workspace::Scheme::Gett;
  std::vector<double> ttgt(cases.size()), gett(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::vector<double> t = time_contract(cases[i], o.reps, ws);
    ours[i] = cases[i].flops() / t[0] * 1e-9;
    std::fprintf(stderr, "tcert %s %s: %.2f GFLOP/s", cases[i].name.c_str(), cases[i].spec().c_str(), ours[i]);
    if (o.compare) {
      ttgt[i] = cases[i].flops() / t[1] * 1e-9, gett[i] = cases[i].flops() / t[2] * 1e-9;
      std::fprintf(stderr, " (TTGT %.2f, GETT %.2f)", ttgt[i], gett[i]);
    }
    std::fprintf(stderr, "\n");
  }
  ws.clear();  // give the memory back before numpy runs
  if (o.numpy) {
    const auto by_name = run_numpy(cases, o.reps, o.python);
    if (by_name.empty()) std::fprintf(stderr, "tccg_bench: the numpy run failed (%s)\n", o.python.c_str());
    for (std::size_t i = 0; i < cases.size(); ++i) {
      if (auto it = by_name.find(cases[i].name); it != by_name.end()) np[i] = it->second;
    }
  }
  print_table(cases, ours, np);
  if (o.compare) {
    double log_ours = 0, log_ttgt = 0, log_gett = 0;
    for (std::size_t i = 0; i < cases.size(); ++i)
      log_ours += std::log(ours[i]), log_ttgt += std::log(ttgt[i]), log_gett += std::log(gett[i]);
    const double n = static_cast<double>(cases.size());
    std::printf("interleaved with contract() forced (geometric means): chosen %.2f, TTGT %.2f, GETT %.2f GFLOP/s\n",
                std::exp(log_ours / n), std::exp(log_ttgt / n), std::exp(log_gett / n));
  }
  std::printf("total time %.0f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return 0;
}

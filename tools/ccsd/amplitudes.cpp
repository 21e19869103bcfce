// tools/ccsd/amplitudes.cpp — VectorOps (amplitudes.h): each rank its balanced range of every
// file, in chunks, through the runtime's .npy mappings.
#include "amplitudes.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "bcast.h"
#include "runtime/npy.h"

namespace tcec::ccsd {

namespace {

using u64 = std::uint64_t;

/// Elements handled between two drops of the mappings' resident pages (8 MiB of each file).
constexpr u64 kChunk = u64{1} << 20;

/// The mapped inputs of one operation on one file: their readers, whose pages are dropped
/// after each chunk.
struct Inputs {
  std::vector<std::unique_ptr<tcert::NpyReader>> readers;
  explicit Inputs(const std::vector<std::string>& paths) {
    for (const std::string& p : paths) readers.push_back(std::make_unique<tcert::NpyReader>(p));
  }
  const double* operator[](std::size_t k) const { return readers[k]->data(); }
  void drop() const {
    for (const auto& r : readers) r->drop_pages();
  }
};

}  // namespace

VectorOps::VectorOps(MPI_Comm comm, std::vector<double> eps_occ, std::vector<double> eps_vir)
    : comm_(comm), eps_occ_(std::move(eps_occ)), eps_vir_(std::move(eps_vir)) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

std::pair<u64, u64> VectorOps::range(u64 n) const {
  const auto P = static_cast<u64>(size_), r = static_cast<u64>(rank_);
  const u64 base = n / P, extra = n % P;
  const u64 first = r * base + std::min(r, extra);
  return {first, first + base + (r < extra ? 1 : 0)};
}

template <class Fill>
void VectorOps::write(const std::string& path, const std::vector<u64>& shape, Fill fill) const {
  u64 n = 1;
  for (u64 e : shape) n *= e;
  std::unique_ptr<tcert::NpyWriter> writer;
  std::string temp;
  if (rank_ == 0) {
    writer = std::make_unique<tcert::NpyWriter>(path, shape);
    temp = writer->temp_path();
  }
  temp = bcast_string(comm_, temp);
  std::unique_ptr<tcert::NpyPatch> patch;
  if (rank_ != 0) patch = std::make_unique<tcert::NpyPatch>(temp, false);  // durable at the checkpoint
  double* out = rank_ == 0 ? writer->data() : patch->data();
  const auto [first, end] = range(n);
  for (u64 lo = first; lo < end; lo += kChunk) {
    const u64 hi = std::min(end, lo + kChunk);
    fill(lo, hi, out + lo);
    rank_ == 0 ? writer->drop_pages() : patch->drop_pages();
  }
  MPI_Barrier(comm_);
  if (rank_ == 0) writer->commit(false);
  MPI_Barrier(comm_);  // the file is in place before any rank reads it
}

void VectorOps::zeros(const Amplitudes& out) const {
  const u64 O = static_cast<u64>(this->O()), V = static_cast<u64>(this->V());
  auto none = [](u64, u64, double*) {};  // the writer's file starts zero-filled
  write(out.t1, {V, O}, none);
  write(out.t2, {V, V, O, O}, none);
}

void VectorOps::jacobi(const Amplitudes& t, const Amplitudes& r, const Amplitudes& next, const Amplitudes& step) const {
  const u64 O = static_cast<u64>(this->O()), V = static_cast<u64>(this->V());
  // D1[a,i] = e_i − e_a; D2[a,b,i,j] = e_i + e_j − e_a − e_b (flat index e, the last fastest).
  auto d1 = [&](u64 e) { return eps_occ_[e % O] - eps_vir_[e / O]; };
  auto d2 = [&](u64 e) {
    return eps_occ_[e / O % O] + eps_occ_[e % O] - eps_vir_[e / (V * O * O)] - eps_vir_[e / (O * O) % V];
  };
  auto one = [&](const std::string& t_path, const std::string& r_path, const std::string& next_path,
                 const std::string& step_path, const std::vector<u64>& shape, auto denominator) {
    const Inputs in({t_path, r_path});
    write(step_path, shape, [&](u64 lo, u64 hi, double* out) {
      for (u64 e = lo; e < hi; ++e) out[e - lo] = in[1][e] / denominator(e);
      in.drop();
    });
    write(next_path, shape, [&](u64 lo, u64 hi, double* out) {  // the same step, not read back
      for (u64 e = lo; e < hi; ++e) out[e - lo] = in[0][e] + in[1][e] / denominator(e);
      in.drop();
    });
  };
  one(t.t1, r.t1, next.t1, step.t1, {V, O}, d1);
  one(t.t2, r.t2, next.t2, step.t2, {V, V, O, O}, d2);
}

double VectorOps::dot(const Amplitudes& x, const Amplitudes& y) const { return dots(x, {y}).front(); }

std::vector<double> VectorOps::dots(const Amplitudes& x, const std::vector<Amplitudes>& ys) const {
  std::vector<double> mine(ys.size(), 0.0), all(ys.size(), 0.0);
  for (int part = 0; part < 2; ++part) {
    std::vector<std::string> paths{part == 0 ? x.t1 : x.t2};
    for (const Amplitudes& y : ys) paths.push_back(part == 0 ? y.t1 : y.t2);
    const Inputs in(paths);
    const auto [first, end] = range(in.readers[0]->size());
    for (u64 lo = first; lo < end; lo += kChunk) {
      const u64 hi = std::min(end, lo + kChunk);
      for (std::size_t k = 0; k < ys.size(); ++k)
        for (u64 e = lo; e < hi; ++e) mine[k] += in[0][e] * in[k + 1][e];
      in.drop();
    }
  }
  MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_SUM, comm_);
  return all;
}

void VectorOps::combine(const std::vector<double>& c, const std::vector<Amplitudes>& xs, const Amplitudes& out) const {
  const u64 O = static_cast<u64>(this->O()), V = static_cast<u64>(this->V());
  for (int part = 0; part < 2; ++part) {
    std::vector<std::string> paths;
    for (const Amplitudes& x : xs) paths.push_back(part == 0 ? x.t1 : x.t2);
    const Inputs in(paths);
    const std::vector<u64> shape = part == 0 ? std::vector<u64>{V, O} : std::vector<u64>{V, V, O, O};
    write(part == 0 ? out.t1 : out.t2, shape, [&](u64 lo, u64 hi, double* dst) {
      for (u64 e = lo; e < hi; ++e) {
        double v = 0;
        for (std::size_t k = 0; k < c.size(); ++k) v += c[k] * in[k][e];
        dst[e - lo] = v;
      }
      in.drop();
    });
  }
}

}  // namespace tcec::ccsd

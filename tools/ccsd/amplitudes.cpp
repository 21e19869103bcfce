// tools/ccsd/amplitudes.cpp — VectorOps (amplitudes.h): each rank its balanced range of every
// file, in chunks, through the runtime's .npy mappings.
#include "amplitudes.h"

#include <algorithm>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "bcast.h"
#include "runtime/spec/units.h"
#include "runtime/storage/npy.h"
#include "runtime/storage/spare_files.h"

namespace tcec::ccsd {

namespace {

using u64 = std::uint64_t;

/// Elements handled between two drops of the mappings' resident pages (8 MiB of each file).
constexpr u64 kChunk = u64{1} << 20;

/// The inputs of one operation on one file: in memory (VectorOps::cached()), or mapped by
/// readers whose pages are dropped after each chunk that another follows (after the last, the
/// readers' unmapping frees them).
struct Inputs {
  std::vector<std::shared_ptr<const tcert::FileMemory>> held;
  std::vector<std::unique_ptr<tcert::NpyReader>> readers;
  std::vector<const double*> data;
  std::vector<u64> sizes;  // elements
  /// cached(path): the data in memory, or null.
  template <class Cached>
  Inputs(const std::vector<std::string>& paths, Cached cached) {
    for (const std::string& p : paths) {
      if (std::shared_ptr<const tcert::FileMemory> in = cached(p)) {
        data.push_back(in->data()), sizes.push_back(in->size()), held.push_back(std::move(in));
      } else {
        readers.push_back(std::make_unique<tcert::NpyReader>(p));
        data.push_back(readers.back()->data()), sizes.push_back(readers.back()->size());
      }
    }
  }
  const double* operator[](std::size_t k) const { return data[k]; }
  void drop() const {
    for (const auto& r : readers) r->drop_pages();
  }
};

}  // namespace

VectorOps::VectorOps(MPI_Comm comm, std::vector<double> eps_occ, std::vector<double> eps_vir, std::uint64_t cache_bytes,
                     bool private_ranges)
    : comm_(comm),
      private_(private_ranges),
      eps_occ_(std::move(eps_occ)),
      eps_vir_(std::move(eps_vir)),
      cache_bytes_(cache_bytes) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm node;  // the ranks on this rank's host
  int on_host = size_;
  if (MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_size(node, &on_host);
    MPI_Comm_free(&node);
  }
  int everywhere = on_host == size_ ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &everywhere, 1, MPI_INT, MPI_MIN, comm_);
  sync_writes_ = everywhere == 0;
}

std::string VectorOps::file_of(const std::string& path) const {
  return private_ ? fmt::format("{}.rank{}", path, rank_) : path;
}

bool VectorOps::is_mine(const std::string& name) const {
  const std::string ending = file_of("");
  return name.size() > ending.size() && name.compare(name.size() - ending.size(), ending.size(), ending) == 0;
}

std::vector<std::string> VectorOps::files_of(const std::vector<std::string>& paths) const {
  std::vector<std::string> files;
  for (const std::string& p : paths) files.push_back(file_of(p));
  return files;
}

VectorOps::Part VectorOps::read_part(const std::string& path) const {
  Part p;
  p.reader = std::make_unique<tcert::NpyReader>(file_of(path));
  const auto [first, end] = range(p.reader->size());
  // Only read (TensorPart's data is the caller's to give; the runtime copies input parts).
  p.part = {{const_cast<double*>(p.reader->data()) + first, end - first}, first};
  return p;
}

VectorOps::Part VectorOps::write_part(const std::string& path, const std::vector<u64>& shape) const {
  Part p;
  p.writer = std::make_unique<tcert::NpyWriter>(file_of(path), shape, &tcert::spare_files(),
                                                tcert::NpyWriter::Backing::Mapped);
  const auto [first, end] = range(p.writer->size());
  p.part = {{p.writer->data() + first, end - first}, first};
  return p;
}

void VectorOps::commit_part(Part& p) { p.writer->commit(false); }

std::shared_ptr<const tcert::FileMemory> VectorOps::cached(const std::string& path) const {
  for (const Cached& c : cache_)
    if (c.path == path) return c.data;
  return nullptr;
}

void VectorOps::forget(const std::string& path) const {
  for (auto it = cache_.begin(); it != cache_.end(); ++it)
    if (it->path == path) {
      cached_bytes_ -= tcert::bytes_of(it->data->size());
      cache_.erase(it);
      return;
    }
}

std::shared_ptr<tcert::FileMemory> VectorOps::buffer(u64 n) const {
  if (size_ != 1 || tcert::bytes_of(n) > cache_bytes_) return nullptr;
  while (cached_bytes_ + tcert::bytes_of(n) > cache_bytes_) {
    cached_bytes_ -= tcert::bytes_of(cache_.front().data->size());
    cache_.pop_front();
  }
  cached_bytes_ += tcert::bytes_of(n);  // counted from now: write() holds it, or takes it back
  return std::make_shared<tcert::FileMemory>(n);
}

std::pair<u64, u64> VectorOps::range(u64 n) const {
  const auto P = static_cast<u64>(size_), r = static_cast<u64>(rank_);
  // Rank q's balanced start, moved up to the next element at a page's start in the file
  // (element e is at byte kDataOffset + 8e), n at most.
  const auto start = [&](u64 q) {
    const u64 base = n / P, extra = n % P;
    const u64 at = q * base + std::min(q, extra);
    if (q == 0 || q >= P) return std::min(at, n);
    // Page starts are the elements e ≡ kFirst (mod kPage).
    constexpr u64 kPage = kPageBytes / sizeof(double),
                  kFirst = (kPageBytes - kDataOffset % kPageBytes) / sizeof(double) % kPage;
    const u64 aligned = at <= kFirst ? kFirst : at + (kPage - (at - kFirst) % kPage) % kPage;
    return std::min(aligned, n);
  };
  return {start(r), start(r + 1)};
}

template <class Fill>
void VectorOps::write(const std::string& path, const std::vector<u64>& shape, Fill fill) const {
  u64 n = 1;
  for (u64 e : shape) n *= e;
  forget(path);
  // One rank, and room in the cache: filled in a buffer that it then holds, and written to the
  // file from there (write_npy()).
  if (const std::shared_ptr<tcert::FileMemory> held = buffer(n)) {
    try {
      fill(0, n, held->data(), false);
      tcert::write_npy(path, shape, held->data(), false, &tcert::spare_files());
    } catch (...) {
      cached_bytes_ -= tcert::bytes_of(n);
      throw;
    }
    cache_.push_back({path, held});
    return;
  }
  // With private ranges every rank writes a file of its own, alone; else rank 0 makes the file
  // and the other ranks write their ranges into it (NpyPatch).
  const bool own_file = private_ || rank_ == 0;
  std::unique_ptr<tcert::NpyWriter> writer;
  std::string temp;
  if (own_file) {
    // One rank, one chunk: filled in memory and written at commit, no write faults into the file
    // system for the same resident memory (NpyWriter::Backing::Memory).
    const bool in_memory = size_ == 1 && n <= kChunk;
    writer = std::make_unique<tcert::NpyWriter>(
        file_of(path), shape, &tcert::spare_files(),
        in_memory ? tcert::NpyWriter::Backing::Memory : tcert::NpyWriter::Backing::Mapped);
    temp = writer->temp_path();
  }
  if (!private_) temp = bcast_string(comm_, temp);
  std::unique_ptr<tcert::NpyPatch> patch;
  // Durable at the checkpoint; on several hosts synced first, so that rank 0 renames a file
  // that holds every rank's writes.
  if (!own_file) patch = std::make_unique<tcert::NpyPatch>(temp, sync_writes_);
  double* out = own_file ? writer->data() : patch->data();
  const auto [first, end] = range(n);
  for (u64 lo = first; lo < end; lo += kChunk) {
    const u64 hi = std::min(end, lo + kChunk);
    fill(lo, hi, out + lo, hi < end);
    own_file ? writer->drop_pages() : patch->drop_pages();
  }
  if (private_) {  // no other rank writes it, none reads it
    writer->commit(false);
    return;
  }
  if (patch && sync_writes_) patch->sync();
  MPI_Barrier(comm_);
  if (rank_ == 0) writer->commit(sync_writes_);
  MPI_Barrier(comm_);  // the file is in place before any rank reads it
}

void VectorOps::zeros(const Amplitudes& out) const {
  const u64 O = static_cast<u64>(this->O()), V = static_cast<u64>(this->V());
  auto none = [](u64 lo, u64 hi, double* out, bool) { std::fill_n(out, hi - lo, 0.0); };
  write(out.t1, {V, O}, none);
  write(out.t2, {V, V, O, O}, none);
}

double VectorOps::jacobi(const Amplitudes& t, const Amplitudes& r, const Amplitudes& next,
                         const Amplitudes& step) const {
  const u64 O = static_cast<u64>(this->O()), V = static_cast<u64>(this->V());
  // D1[a,i] = e_i − e_a; D2[a,b,i,j] = e_i + e_j − e_a − e_b, evaluated left to right. A flat
  // index is outer·inner_count + inner (the last indices fastest): inner = i (T1) or (i,j) (T2),
  // whose sum of occupied energies `occ` holds; the virtual ones are subtracted per outer.
  double squares = 0;  // Σ r·r over this rank's elements
  std::vector<double> occ_pairs(O * O);
  for (u64 i = 0; i < O; ++i)
    for (u64 j = 0; j < O; ++j) occ_pairs[i * O + j] = eps_occ_[i] + eps_occ_[j];
  auto one = [&](const std::string& t_path, const std::string& r_path, const std::string& next_path,
                 const std::string& step_path, const std::vector<u64>& shape, const std::vector<double>& occ) {
    const u64 inner = occ.size();
    // f(e0, e1, d0, d1, ...): the elements [e0, e1) share the outer index, whose virtual
    // energies are subtracted as D = occ[e % inner] − d0 − d1 (d1 = 0 for T1: x − 0 = x).
    auto by_outer = [&](u64 lo, u64 hi, auto f) {
      for (u64 e0 = lo; e0 < hi;) {
        const u64 outer = e0 / inner, e1 = std::min(hi, (outer + 1) * inner);
        const double d0 = shape.size() == 2 ? eps_vir_[outer] : eps_vir_[outer / V];
        f(e0, e1, d0, shape.size() == 2 ? 0.0 : eps_vir_[outer % V], outer * inner);
        e0 = e1;
      }
    };
    const Inputs in(files_of({t_path, r_path}), [&](const std::string& p) { return cached(p); });
    const double *tv = in[0], *rv = in[1];
    write(step_path, shape, [&](u64 lo, u64 hi, double* out, bool more) {
      by_outer(lo, hi, [&](u64 e0, u64 e1, double d0, double d1, u64 base) {
        for (u64 e = e0; e < e1; ++e) {
          squares += rv[e] * rv[e];
          out[e - lo] = rv[e] / (occ[e - base] - d0 - d1);
        }
      });
      if (more) in.drop();
    });
    write(next_path, shape, [&](u64 lo, u64 hi, double* out, bool more) {  // the same step, not read back
      by_outer(lo, hi, [&](u64 e0, u64 e1, double d0, double d1, u64 base) {
        for (u64 e = e0; e < e1; ++e) out[e - lo] = tv[e] + rv[e] / (occ[e - base] - d0 - d1);
      });
      if (more) in.drop();
    });
  };
  one(t.t1, r.t1, next.t1, step.t1, {V, O}, eps_occ_);
  one(t.t2, r.t2, next.t2, step.t2, {V, V, O, O}, occ_pairs);
  double all = 0;
  MPI_Allreduce(&squares, &all, 1, MPI_DOUBLE, MPI_SUM, comm_);
  return all;
}

std::vector<double> VectorOps::dots(const Amplitudes& x, const std::vector<Amplitudes>& ys) const {
  std::vector<double> mine(ys.size(), 0.0), all(ys.size(), 0.0);
  for (int part = 0; part < 2; ++part) {
    std::vector<std::string> paths{part == 0 ? x.t1 : x.t2};
    for (const Amplitudes& y : ys) paths.push_back(part == 0 ? y.t1 : y.t2);
    const Inputs in(files_of(paths), [&](const std::string& p) { return cached(p); });
    const auto [first, end] = range(in.sizes[0]);
    for (u64 lo = first; lo < end; lo += kChunk) {
      const u64 hi = std::min(end, lo + kChunk);
      // Per y, the products in index order into one sum (as a plain loop would); four sums at a
      // time in registers, each pass reading x once.
      for (std::size_t k = 0; k < ys.size(); k += 4) {
        const std::size_t n = std::min<std::size_t>(4, ys.size() - k);
        const double* x_data = in[0];
        const double* y[4];
        for (std::size_t q = 0; q < 4; ++q) y[q] = in[k + 1 + std::min(q, n - 1)];  // past n: a sum not kept
        double s[4] = {mine[k], n > 1 ? mine[k + 1] : 0, n > 2 ? mine[k + 2] : 0, n > 3 ? mine[k + 3] : 0};
        for (u64 e = lo; e < hi; ++e) {
          const double xe = x_data[e];
          s[0] += xe * y[0][e], s[1] += xe * y[1][e], s[2] += xe * y[2][e], s[3] += xe * y[3][e];
        }
        for (std::size_t q = 0; q < n; ++q) mine[k + q] = s[q];
      }
      if (hi < end) in.drop();  // after the last chunk, the readers unmap them
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
    const Inputs in(files_of(paths), [&](const std::string& p) { return cached(p); });
    const std::vector<u64> shape = part == 0 ? std::vector<u64>{V, O} : std::vector<u64>{V, V, O, O};
    write(part == 0 ? out.t1 : out.t2, shape, [&](u64 lo, u64 hi, double* dst, bool more) {
      // Per element Σ_k c[k]·x_k in k order, four inputs per pass over a block of elements that
      // stays in L1 between passes: one store per element per pass (one per input was the limit).
      constexpr u64 kBlock = 512;
      for (u64 b = lo; b < hi; b += kBlock) {
        const u64 n = std::min(kBlock, hi - b);
        double* d = dst + (b - lo);
        std::fill_n(d, n, 0.0);
        for (std::size_t k = 0; k < c.size(); k += 4) {
          const double* x[4];
          double ck[4];
          for (std::size_t q = 0; q < 4; ++q) {  // past the last input: its coefficient 0, adding 0
            const std::size_t j = std::min(k + q, c.size() - 1);
            x[q] = in[j] + b, ck[q] = k + q < c.size() ? c[j] : 0.0;
          }
          for (u64 e = 0; e < n; ++e)
            d[e] = d[e] + ck[0] * x[0][e] + ck[1] * x[1][e] + ck[2] * x[2][e] + ck[3] * x[3][e];
        }
      }
      if (more) in.drop();
    });
  }
}

}  // namespace tcec::ccsd

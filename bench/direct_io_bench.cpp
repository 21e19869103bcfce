// bench/direct_io_bench.cpp — how to read a plan's tile straight from a tensor's file (direct
// tile I/O, issue 16): element by element from the memory-mapped .npy (what GaoGemm
// does: a std::function source and the LinearMap per element), by pread of each contiguous run
// of the file into place, against the baseline of one pread of the tile from a tiled copy.
//
//   build/bin/direct_io_bench [N]     (default N = 64: a 4-index tensor of N^4 doubles)
//
// Cases: a tile of A[a,b,c,p] with rows (a,b,c) and columns p, stored in that order (the
// tile's rows are runs of its p range) and stored permuted as [p,a,b,c] (every element its own
// run). The file is in the page cache (read once before timing), so the figures are the CPU
// cost of each way, per element; best of 5.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "runtime/storage/npy.h"

namespace {

using i64 = std::int64_t;
using Clock = std::chrono::steady_clock;

struct Layout {
  const char* name;
  i64 stride[4];  // of a, b, c, p in the stored tensor (elements)
};

double best_of(int runs, const std::function<void()>& body) {
  double best = 1e300;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = Clock::now();
    body();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const i64 N = argc > 1 ? std::atoll(argv[1]) : 64;
  const i64 ta = N / 2, tb = N / 2, tc = N, tp = N / 2;  // the tile: a quarter of rows, half the columns
  const i64 R = ta * tb * tc, C = tp;
  const std::string path = "/tmp/direct_io_bench_" + std::to_string(getpid()) + ".npy";
  const std::string tiled = path + ".tile";
  {
    tcert::NpyWriter w(path, {static_cast<std::uint64_t>(N), static_cast<std::uint64_t>(N),
                              static_cast<std::uint64_t>(N), static_cast<std::uint64_t>(N)});
    for (std::size_t i = 0; i < w.size(); ++i) w.data()[i] = static_cast<double>(i % 1009);
    w.commit();
  }
  {
    std::vector<double> block(static_cast<std::size_t>(R * C), 1.0);
    const int fd = ::open(tiled.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0 || ::write(fd, block.data(), block.size() * 8) != static_cast<ssize_t>(block.size() * 8)) return 1;
    ::close(fd);
  }
  const tcert::NpyReader reader(path);
  const std::uint64_t data_offset = reader.header().data_offset_bytes;
  const Layout layouts[] = {{"stored [a,b,c,p] (runs of the p range)", {N * N * N, N * N, N, 1}},
                            {"stored [p,a,b,c] (runs of 1 element)", {N * N, N, 1, N * N * N}}};
  std::vector<double> dst(static_cast<std::size_t>(R * C));
  const int fd = ::open(path.c_str(), O_RDONLY);
  const int fd_tiled = ::open(tiled.c_str(), O_RDONLY);
  const double elements = static_cast<double>(R * C);
  std::printf("tile %lld x %lld elements (%.1f MB) of a %lld^4 tensor; ns per element, best of 5\n",
              static_cast<long long>(R), static_cast<long long>(C), elements * 8 / 1e6, static_cast<long long>(N));
  const double tiled_s = best_of(5, [&] {
    if (::pread(fd_tiled, dst.data(), dst.size() * 8, 0) != static_cast<ssize_t>(dst.size() * 8)) std::abort();
  });
  std::printf("  %-40s %8.2f\n", "tiled copy: one pread", tiled_s / elements * 1e9);
  for (const Layout& l : layouts) {
    // As GaoGemm reads: a std::function source over the mapped data, index per element.
    const double* data = reader.data();
    const std::function<double(std::uint64_t)> source = [data](std::uint64_t at) { return data[at]; };
    const double mapped_s = best_of(5, [&] {
      std::size_t i = 0;
      for (i64 a = 0; a < ta; ++a)
        for (i64 b = 0; b < tb; ++b)
          for (i64 c = 0; c < tc; ++c)
            for (i64 p = 0; p < tp; ++p)
              dst[i++] = source(
                  static_cast<std::uint64_t>(a * l.stride[0] + b * l.stride[1] + c * l.stride[2] + p * l.stride[3]));
    });
    // pread of every maximal run of consecutive elements (in tile order) straight into place.
    const double runs_s = best_of(5, [&] {
      std::size_t i = 0;
      for (i64 a = 0; a < ta; ++a)
        for (i64 b = 0; b < tb; ++b)
          for (i64 c = 0; c < tc; ++c) {
            const i64 row = a * l.stride[0] + b * l.stride[1] + c * l.stride[2];
            if (l.stride[3] == 1) {  // the row's p range is one run
              const auto bytes = static_cast<std::size_t>(tp) * 8;
              if (::pread(fd, dst.data() + i, bytes,
                          static_cast<off_t>(data_offset + static_cast<std::uint64_t>(row) * 8)) !=
                  static_cast<ssize_t>(bytes))
                std::abort();
              i += static_cast<std::size_t>(tp);
            } else {
              for (i64 p = 0; p < tp; ++p, ++i)
                if (::pread(fd, dst.data() + i, 8,
                            static_cast<off_t>(data_offset + static_cast<std::uint64_t>(row + p * l.stride[3]) * 8)) !=
                    8)
                  std::abort();
            }
          }
    });
    std::printf("  %-40s %8.2f (mapped, per element)  %8.2f (pread per run)\n", l.name, mapped_s / elements * 1e9,
                runs_s / elements * 1e9);
  }
  ::close(fd);
  ::close(fd_tiled);
  std::remove(path.c_str());
  std::remove(tiled.c_str());
  return 0;
}

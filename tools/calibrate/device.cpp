// tools/calibrate/device.cpp — read and write bandwidth of the device, past the page cache.
#include "device.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#include "runtime/base/counters.h"
#include "runtime/base/device_io.h"
#include "runtime/base/error.h"
#include "runtime/storage/element_file.h"

namespace tcec::calibrate {

namespace {

constexpr std::size_t kRequestBytes = std::size_t{4} << 20;  // 4 MiB per request
constexpr std::size_t kAlignBytes = 4096;                    // O_DIRECT: buffers and offsets

/// An open file, closed by the destructor; the path is removed by it too.
struct ScratchFile {
  std::string path;
  int fd = -1;
  ~ScratchFile() {
    if (fd >= 0) ::close(fd);
    ::unlink(path.c_str());
  }
};

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw tcert::Error("device measurement: cannot " + what + " " + path + ": " + std::strerror(errno));
}

/// Runs body on every rank between barriers; the slowest rank's seconds (at least 1 ns).
template <class Body>
double slowest(const tcert::Context& ctx, const Body& body) {
  ctx.barrier();
  const tcert::Stopwatch clock;
  body();
  std::uint64_t most = 1;
  for (std::uint64_t t : ctx.gather_u64(static_cast<std::uint64_t>(clock.seconds() * 1e9))) most = std::max(most, t);
  return static_cast<double>(most) * 1e-9;
}

/// `bytes` (whole requests) from buf to f, or from f into buf, one 4 MiB request at a time.
void transfer(ScratchFile& f, char* buf, std::uint64_t bytes, bool write) {
  for (std::uint64_t at = 0; at < bytes; at += kRequestBytes) {
    const auto off = static_cast<off_t>(at);
    const ssize_t n = write ? ::pwrite(f.fd, buf, kRequestBytes, off) : ::pread(f.fd, buf, kRequestBytes, off);
    if (n != static_cast<ssize_t>(kRequestBytes)) fail(write ? "write" : "read", f.path);
  }
}

/// The process's device read bytes so far (0 where /proc/self/io cannot be read).
std::uint64_t device_read_now() {
  const std::optional<tcert::DeviceBytes> d = tcert::device_bytes_now();
  return d ? d->read_bytes : 0;
}

/// The least of every rank's `value`.
std::uint64_t least_over_ranks(const tcert::Context& ctx, std::uint64_t value) {
  const std::vector<std::uint64_t> all = ctx.gather_u64(value);
  return *std::min_element(all.begin(), all.end());
}

/// Seconds per small O_DIRECT read beyond its bytes at `read_bytes_per_s`: kRandomReads reads of
/// kAlignBytes at random aligned offsets of f's first `bytes`, one at a time (a device's cost of
/// a request, what a run read on its own pays); the slowest rank's, at least 0.
double request_seconds(const tcert::Context& ctx, ScratchFile& f, char* buf, std::uint64_t bytes,
                       double read_bytes_per_s) {
  constexpr int kRandomReads = 512;
  std::uint64_t state = 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(ctx.rank() + 1);
  const double seconds = slowest(ctx, [&] {
    for (int r = 0; r < kRandomReads; ++r) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;  // Knuth's MMIX LCG
      const auto off = static_cast<off_t>((state >> 17) % (bytes / kAlignBytes) * kAlignBytes);
      if (::pread(f.fd, buf, kAlignBytes, off) != static_cast<ssize_t>(kAlignBytes)) fail("read", f.path);
    }
  });
  return std::max(0.0, seconds / kRandomReads - static_cast<double>(kAlignBytes) / read_bytes_per_s);
}

/// Seconds per run of `elems` elements `stride` elements apart over f's first `span_bytes`, its
/// pages dropped first, read through RunReads in one pass (DeviceFigures::streamed_run_s,
/// lone_read_s): the slowest rank's, beyond the runs' bytes at `read_bytes_per_s`, at least 0.
double run_read_seconds(const tcert::Context& ctx, const ScratchFile& f, std::uint64_t span_bytes, std::size_t elems,
                        std::size_t stride, double read_bytes_per_s) {
  const std::size_t runs = tcert::elems_of(span_bytes) / stride;
  std::vector<double> out(runs * elems);
  ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);
  const tcert::ElementFile file(f.path, 0, false);
  const double seconds = slowest(ctx, [&] {
    tcert::RunReads reads(file);
    for (std::size_t r = 0; r < runs; ++r) reads.add(r * stride, elems, out.data() + r * elems);
    reads.flush();
  });
  const double run_bytes = static_cast<double>(tcert::bytes_of(elems));
  return std::max(0.0, seconds / static_cast<double>(runs) - run_bytes / read_bytes_per_s);
}

/// DeviceFigures::lone_write_s: runs of kLoneRunElems elements kLoneRunStride apart over
/// `span_bytes` of the new file `path`, written through RunWrites and fdatasync'd; the slowest
/// rank's seconds per run beyond its bytes at `write_bytes_per_s`, at least 0.
double lone_write_seconds(const tcert::Context& ctx, const std::string& path, std::uint64_t span_bytes,
                          double write_bytes_per_s) {
  ScratchFile f{path};
  f.fd = ::open(f.path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (f.fd < 0) fail("create", f.path);
  if (::ftruncate(f.fd, static_cast<off_t>(span_bytes)) != 0) fail("size", f.path);
  const std::size_t runs = tcert::elems_of(span_bytes) / kLoneRunStride;
  const std::vector<double> values(kLoneRunElems, 1.0);
  tcert::ElementFile file(f.path, 0, true);
  const double seconds = slowest(ctx, [&] {
    tcert::RunWrites writes(file);
    for (std::size_t r = 0; r < runs; ++r) writes.add(r * kLoneRunStride, kLoneRunElems, values.data());
    writes.flush();
    file.sync();
  });
  const double run_bytes = static_cast<double>(tcert::bytes_of(kLoneRunElems));
  return std::max(0.0, seconds / static_cast<double>(runs) - run_bytes / write_bytes_per_s);
}

/// DeviceFigures::streamed_write_bytes_per_s: `bytes` (whole 4 MiB requests) from buf into the new
/// file `path` through RunWrites, one flush per request (ElementFile's write-behind), then
/// fdatasync; the slowest rank's bytes per second.
double streamed_write_bytes_per_s(const tcert::Context& ctx, const std::string& path, const char* buf,
                                  std::uint64_t bytes) {
  ScratchFile f{path};
  f.fd = ::open(f.path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (f.fd < 0) fail("create", f.path);
  tcert::ElementFile file(f.path, 0, true);
  const auto* values = reinterpret_cast<const double*>(buf);
  const std::size_t request = tcert::elems_of(kRequestBytes);
  return static_cast<double>(bytes) / slowest(ctx, [&] {
           tcert::RunWrites writes(file);
           for (std::uint64_t at = 0; at < tcert::elems_of(bytes); at += request) {
             writes.add(at, request, values);
             writes.flush();
           }
           file.sync();
         });
}

/// DeviceFigures::direct_mixed_bytes_per_s: `bytes` of `written` (an O_DIRECT file of that many)
/// read back into `read_buf` (kRequestBytes, aligned) on one thread in 4 MiB O_DIRECT requests
/// while another writes as many into the new file `path` as programs write results (RunWrites,
/// 4 MiB a flush, the write-behind of ElementFile::wrote()) and fdatasyncs it; 2·bytes over the
/// slowest rank's seconds until both are done (bytes per second). Throws tcert::Error on an I/O
/// failure of either thread.
double mixed_bytes_per_s(const tcert::Context& ctx, ScratchFile& written, char* read_buf, const std::string& path,
                         std::uint64_t bytes) {
  ScratchFile out{path};
  out.fd = ::open(out.path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out.fd < 0) fail("create", out.path);
  tcert::ElementFile file(out.path, 0, true);
  const std::vector<double> values(tcert::elems_of(kRequestBytes), 1.0);
  return 2.0 * static_cast<double>(bytes) / slowest(ctx, [&] {
           std::exception_ptr read_failed, write_failed;
           std::thread reader([&] {
             try {
               transfer(written, read_buf, bytes, false);
             } catch (...) {
               read_failed = std::current_exception();
             }
           });
           try {
             tcert::RunWrites writes(file);
             for (std::uint64_t at = 0; at < tcert::elems_of(bytes); at += values.size()) {
               writes.add(at, values.size(), values.data());
               writes.flush();
             }
             file.sync();
           } catch (...) {
             write_failed = std::current_exception();
           }
           reader.join();
           if (write_failed) std::rethrow_exception(write_failed);
           if (read_failed) std::rethrow_exception(read_failed);
         });
}

}  // namespace

DeviceFigures measure_device(const tcert::Context& ctx, const std::string& dir, std::uint64_t bytes) {
  DeviceFigures out;
  out.bytes = std::max<std::uint64_t>(bytes / kRequestBytes, 1) * kRequestBytes;
  std::unique_ptr<char, decltype(&std::free)> buf(static_cast<char*>(std::aligned_alloc(kAlignBytes, kRequestBytes)),
                                                  &std::free);
  if (!buf) throw tcert::Error("out of memory for the device measurement's buffer");
  std::fill_n(buf.get(), kRequestBytes, 'x');
  const std::string stem = dir + "/calibrate-device-rank" + std::to_string(ctx.rank());
  const double bytes_d = static_cast<double>(out.bytes);
  {
    ScratchFile direct{stem + "-direct.bin"};
    direct.fd = ::open(direct.path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0644);
    if (ctx.all_true(direct.fd >= 0)) {
      out.direct_write_bytes_per_s = bytes_d / slowest(ctx, [&] {
                                       transfer(direct, buf.get(), out.bytes, true);
                                       if (::fdatasync(direct.fd) != 0) fail("sync", direct.path);
                                     });
      const std::uint64_t before = device_read_now();
      out.direct_read_bytes_per_s = bytes_d / slowest(ctx, [&] { transfer(direct, buf.get(), out.bytes, false); });
      out.direct_read_device_bytes = least_over_ranks(ctx, device_read_now() - before);
      out.direct_request_s = request_seconds(ctx, direct, buf.get(), out.bytes, out.direct_read_bytes_per_s);
      out.direct_mixed_bytes_per_s = mixed_bytes_per_s(ctx, direct, buf.get(), stem + "-mixed.bin", out.bytes);
    }
  }
  ScratchFile file{stem + "-buffered.bin"};
  file.fd = ::open(file.path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (file.fd < 0) fail("create", file.path);
  out.synced_write_bytes_per_s = bytes_d / slowest(ctx, [&] {
                                   transfer(file, buf.get(), out.bytes, true);
                                   if (::fdatasync(file.fd) != 0) fail("sync", file.path);
                                 });
  ::posix_fadvise(file.fd, 0, 0, POSIX_FADV_DONTNEED);  // clean after the sync: the pages go
  const std::uint64_t before = device_read_now();
  out.cold_read_bytes_per_s = bytes_d / slowest(ctx, [&] { transfer(file, buf.get(), out.bytes, false); });
  out.cold_read_device_bytes = least_over_ranks(ctx, device_read_now() - before);
  const double read_bytes_per_s =
      out.direct_read_bytes_per_s > 0 ? out.direct_read_bytes_per_s : out.cold_read_bytes_per_s;
  out.streamed_run_s = run_read_seconds(ctx, file, std::min<std::uint64_t>(out.bytes, std::uint64_t{64} << 20),
                                        kStreamedRunElems, kStreamedRunStride, read_bytes_per_s);
  out.lone_read_s = run_read_seconds(ctx, file, out.bytes, kLoneRunElems, kLoneRunStride, read_bytes_per_s);
  out.streamed_write_bytes_per_s = streamed_write_bytes_per_s(ctx, stem + "-streamed.bin", buf.get(), out.bytes);
  out.lone_write_s = lone_write_seconds(ctx, stem + "-lone.bin", out.bytes, out.synced_write_bytes_per_s);
  return out;
}

}  // namespace tcec::calibrate

// runtime/storage/disk.cpp — DiskFile: pread/pwrite(v) loops with EINTR, partial-transfer and error handling.
#include "runtime/storage/disk.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <utility>
#include <vector>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "runtime/spec/units.h"

namespace tcert {

namespace {

constexpr int kMaxIov = IOV_MAX;

[[noreturn]] void fail(const std::string& path, bool is_write, std::uint64_t bytes, std::uint64_t offset_bytes,
                       int errno_value) {
  std::string what = is_write ? "cannot write " + std::to_string(bytes) + " bytes to "
                              : "cannot read " + std::to_string(bytes) + " bytes from ";
  what += path + " at byte offset " + std::to_string(offset_bytes) + ": ";
  if (is_write && (errno_value == ENOSPC || errno_value == EDQUOT)) what = "disk full: " + what;
  throw Error(what + errno_text(errno_value));
}

/// One file and how to report its failures; transfers one batch of at most kMaxIov iovecs.
struct Transfer {
  const std::string& path;
  int fd;
  bool& direct;
  bool is_write;

  // Moves every byte described by iov[0, count) at offset_bytes; returns the byte count.
  std::uint64_t batch(iovec* iov, int count, std::uint64_t offset_bytes) {
    std::uint64_t wanted = 0;
    for (int i = 0; i < count; ++i) wanted += iov[i].iov_len;
    std::uint64_t done = 0;
    while (count > 0) {
      const Stopwatch clock;
      ssize_t n = is_write ? ::pwritev(fd, iov, count, static_cast<off_t>(offset_bytes + done))
                           : ::preadv(fd, iov, count, static_cast<off_t>(offset_bytes + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EINVAL && direct && drop_direct()) continue;
      if (n < 0) fail(path, is_write, wanted, offset_bytes, errno);
      if (n == 0 && !is_write)
        throw Error("cannot read " + std::to_string(wanted) + " bytes from " + path + " at byte offset " +
                    std::to_string(offset_bytes) + ": the file ends at byte " + std::to_string(offset_bytes + done));
      if (n == 0) fail(path, is_write, wanted, offset_bytes, EIO);
      std::uint64_t moved = static_cast<std::uint64_t>(n);
      counters().add_disk_time(clock.seconds());
      if (is_write)
        counters().add_disk_write(moved);
      else
        counters().add_disk_read(moved);
      done += moved;
      advance(iov, count, moved);
    }
    return done;
  }

  // Skips `bytes` already transferred: drops finished (and empty) iovecs, trims a partial one.
  static void advance(iovec*& iov, int& count, std::uint64_t bytes) {
    while (count > 0 && bytes >= iov->iov_len) {
      bytes -= iov->iov_len;
      ++iov;
      --count;
    }
    if (count == 0) return;
    iov->iov_base = static_cast<char*>(iov->iov_base) + bytes;
    iov->iov_len -= bytes;
  }

  // O_DIRECT refused this transfer's alignment: continue with buffered I/O.
  bool drop_direct() {
    int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_DIRECT) < 0) return false;
    direct = false;
    return true;
  }
};

}  // namespace

DiskFile::DiskFile(std::string path, bool direct) : path_(std::move(path)) {
  int flags = O_CREAT | O_RDWR | O_CLOEXEC;
  if (direct) {
    fd_ = ::open(path_.c_str(), flags | O_DIRECT, 0644);
    direct_ = fd_ >= 0;
  }
  if (fd_ < 0) fd_ = ::open(path_.c_str(), flags, 0644);
  if (fd_ < 0) throw Error("cannot open " + path_ + ": " + errno_text(errno));
}

DiskFile::DiskFile(DiskFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)), direct_(std::exchange(other.direct_, false)) {}

DiskFile& DiskFile::operator=(DiskFile&& other) noexcept {
  if (this == &other) return *this;
  close();
  path_ = std::move(other.path_);
  fd_ = std::exchange(other.fd_, -1);
  direct_ = std::exchange(other.direct_, false);
  return *this;
}

DiskFile::~DiskFile() { close(); }

void DiskFile::close() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void DiskFile::read(double* dst, std::uint64_t offset_elems, std::size_t n_elems) {
  transfer_rows(dst, n_elems, 1, n_elems, offset_elems, false);
}

void DiskFile::write(const double* src, std::uint64_t offset_elems, std::size_t n_elems) {
  transfer_rows(const_cast<double*>(src), n_elems, 1, n_elems, offset_elems, true);
}

void DiskFile::read_rows(double* dst, std::size_t ld_elems, std::size_t rows, std::size_t cols,
                         std::uint64_t offset_elems) {
  transfer_rows(dst, ld_elems, rows, cols, offset_elems, false);
}

void DiskFile::write_rows(const double* src, std::size_t ld_elems, std::size_t rows, std::size_t cols,
                          std::uint64_t offset_elems) {
  // pwritev only reads through the iovecs; the cast is for the shared iovec type.
  transfer_rows(const_cast<double*>(src), ld_elems, rows, cols, offset_elems, true);
}

void DiskFile::transfer_rows(double* data, std::size_t ld_elems, std::size_t rows, std::size_t cols,
                             std::uint64_t offset_elems, bool is_write) {
  if (fd_ < 0) throw Error("file " + path_ + " is not open");
  if (rows > 1 && ld_elems < cols)
    throw Error("leading dimension " + std::to_string(ld_elems) + " is smaller than the " + std::to_string(cols) +
                " columns of a block of " + path_);
  if (rows == 0 || cols == 0) return;
  if (ld_elems == cols && rows > 1) {  // the block is contiguous in memory too: one iovec
    cols *= rows;
    rows = 1;
  }
  counters().add_disk_requests(1);  // one contiguous range of the file
  Transfer transfer{path_, fd_, direct_, is_write};
  std::vector<iovec> iov(std::min<std::size_t>(rows, kMaxIov));
  std::uint64_t offset_bytes = bytes_of(offset_elems);
  for (std::size_t first = 0; first < rows; first += iov.size()) {
    int count = static_cast<int>(std::min<std::size_t>(iov.size(), rows - first));
    for (int i = 0; i < count; ++i) iov[i] = iovec{data + (first + i) * ld_elems, bytes_of(cols)};
    offset_bytes += transfer.batch(iov.data(), count, offset_bytes);
  }
}

void DiskFile::resize(std::uint64_t n_elems) {
  if (fd_ < 0) throw Error("file " + path_ + " is not open");
  while (::ftruncate(fd_, static_cast<off_t>(bytes_of(n_elems))) != 0) {
    if (errno == EINTR) continue;
    std::string msg =
        "cannot resize " + path_ + " to " + std::to_string(bytes_of(n_elems)) + " bytes: " + errno_text(errno);
    throw Error(errno == ENOSPC || errno == EFBIG ? "disk full: " + msg : msg);
  }
}

std::uint64_t DiskFile::size_elems() const {
  if (fd_ < 0) throw Error("file " + path_ + " is not open");
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw Error("cannot stat " + path_ + ": " + errno_text(errno));
  return elems_of(static_cast<std::uint64_t>(st.st_size));
}

void DiskFile::remove() {
  close();
  if (path_.empty()) return;
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT) throw Error("cannot remove " + path_ + ": " + errno_text(errno));
}

}  // namespace tcert

// runtime/storage/element_file.cpp — ElementFile, RunReads, RunWrites (element_file.h).
#include "runtime/storage/element_file.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "runtime/base/error.h"
#include "runtime/spec/units.h"

namespace tcert {

namespace {

constexpr std::size_t kMaxIov = IOV_MAX;
constexpr std::uint64_t kMinGapBytes = std::uint64_t{8} << 10;

[[noreturn]] void fail(const std::string& path, bool is_write, std::uint64_t bytes, std::uint64_t offset, int err) {
  std::string what = (is_write ? "cannot write " + std::to_string(bytes) + " bytes to "
                               : "cannot read " + std::to_string(bytes) + " bytes from ") +
                     path + " at byte offset " + std::to_string(offset) + ": " + errno_text(err);
  if (is_write && (err == ENOSPC || err == EDQUOT)) what = "disk full: " + what;
  throw Error(what);
}

/// Moves every byte iov[0, count) describes at byte `offset` of fd (preadv/pwritev until done:
/// EINTR, partial transfers). Throws Error naming `path`.
void transfer(const std::string& path, int fd, iovec* iov, int count, std::uint64_t offset, bool is_write) {
  std::uint64_t wanted = 0, done = 0;
  for (int i = 0; i < count; ++i) wanted += iov[i].iov_len;
  while (count > 0) {
    const ssize_t n = is_write ? ::pwritev(fd, iov, count, static_cast<off_t>(offset + done))
                               : ::preadv(fd, iov, count, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, is_write, wanted, offset, errno);
    if (n == 0 && !is_write)
      throw Error("cannot read " + std::to_string(wanted) + " bytes from " + path + " at byte offset " +
                  std::to_string(offset) + ": the file ends at byte " + std::to_string(offset + done));
    if (n == 0) fail(path, is_write, wanted, offset, EIO);
    auto moved = static_cast<std::uint64_t>(n);
    done += moved;
    while (count > 0 && moved >= iov->iov_len) moved -= iov->iov_len, ++iov, --count;
    if (count > 0) iov->iov_base = static_cast<char*>(iov->iov_base) + moved, iov->iov_len -= moved;
  }
}

/// This thread's staging buffer (RunReads::kStagingElems) and discarded gap buffer (kGapBytes).
double* read_staging() {
  thread_local const std::unique_ptr<double[]> staging(new double[RunReads::kStagingElems]);
  return staging.get();
}
char* gap_sink() {
  thread_local const std::unique_ptr<char[]> sink(new char[RunReads::kGapBytes]);
  return sink.get();
}

/// This thread's staging buffer for direct reads (RunReads::kDirectBytes, kDirectAlign-aligned).
char* direct_staging() {
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  thread_local const std::unique_ptr<char, Free> staging(
      static_cast<char*>(std::aligned_alloc(RunReads::kDirectAlign, RunReads::kDirectBytes)));
  if (!staging) throw Error("cannot allocate the staging buffer of direct reads: out of memory");
  return staging.get();
}

std::atomic<std::uint64_t> direct_min_bytes{0};

}  // namespace

void set_direct_reads(std::uint64_t min_bytes) { direct_min_bytes = min_bytes; }
std::uint64_t direct_reads() { return direct_min_bytes; }

// ---- ElementFile ----------------------------------------------------------------------------

ElementFile::ElementFile(std::string path, std::uint64_t data_offset_bytes, bool writable)
    : path_(std::move(path)), data_offset_(data_offset_bytes) {
  fd_ = ::open(path_.c_str(), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (fd_ < 0) throw Error("cannot open " + path_ + ": " + errno_text(errno));
  // No readahead: every request says what it needs (RunReads), and pages read ahead of a run of
  // a tile that the next tile reads were evicted before use where the page cache is small.
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_RANDOM);
  direct_min_ = direct_reads();
  if (direct_min_ > 0 && data_offset_ % bytes_of(1) == 0)
    direct_fd_ = ::open(path_.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
}

ElementFile::ElementFile(ElementFile&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      direct_fd_(std::exchange(other.direct_fd_, -1)),
      data_offset_(other.data_offset_),
      direct_min_(other.direct_min_),
      window_(other.window_),
      behind_(std::move(other.behind_)),
      behind_bytes_(std::exchange(other.behind_bytes_, 0)) {}

ElementFile::~ElementFile() {
  if (fd_ >= 0) ::close(fd_);
  if (direct_fd_ >= 0) ::close(direct_fd_);
}

void ElementFile::read(std::uint64_t at, std::size_t n, double* out) const {
  if (n == 0) return;
  iovec iov{out, bytes_of(n)};
  transfer(path_, fd_, &iov, 1, byte_of(at), false);
}

void ElementFile::copy_from(const ElementFile& from, std::uint64_t at, std::size_t n) {
  auto in = static_cast<loff_t>(from.byte_of(at)), out = static_cast<loff_t>(byte_of(at));
  std::uint64_t left = bytes_of(n);
  while (left > 0) {
    const ssize_t moved = ::copy_file_range(from.fd_, &in, fd_, &out, left, 0);
    if (moved < 0 && errno == EINTR) continue;
    if (moved <= 0) break;  // not supported here (EXDEV, EINVAL, …): through memory below
    left -= static_cast<std::uint64_t>(moved);
  }
  if (left == 0) return;
  std::vector<double> buffer(std::min<std::uint64_t>(elems_of(left), RunReads::kStagingElems));
  for (std::uint64_t e = elems_of(bytes_of(n) - left); e < n; e += buffer.size()) {  // a partial element again
    const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), n - e));
    from.read(at + e, m, buffer.data());
    iovec iov{buffer.data(), bytes_of(m)};
    transfer(path_, fd_, &iov, 1, byte_of(at + e), true);
  }
}

void ElementFile::wrote(std::uint64_t first_byte, std::uint64_t end_byte) {
  if (end_byte <= first_byte) return;
  ::sync_file_range(fd_, static_cast<off64_t>(first_byte), static_cast<off64_t>(end_byte - first_byte),
                    SYNC_FILE_RANGE_WRITE);
  behind_.emplace_back(first_byte, end_byte);
  behind_bytes_ += end_byte - first_byte;
  while (behind_.size() > 1 && behind_bytes_ - (behind_.back().second - behind_.back().first) > window_) {
    const auto [first, end] = behind_.front();
    behind_.pop_front();
    behind_bytes_ -= end - first;
    ::sync_file_range(fd_, static_cast<off64_t>(first), static_cast<off64_t>(end - first),
                      SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    ::posix_fadvise(fd_, static_cast<off_t>(first), static_cast<off_t>(end - first), POSIX_FADV_DONTNEED);
  }
}

void ElementFile::sync() const {
  if (::fdatasync(fd_) != 0) throw Error("cannot write output " + path_ + ": " + errno_text(errno));
}

// ---- copy_file_streamed -------------------------------------------------------------------

void copy_file_streamed(const std::string& from, const std::string& to) {
  const ElementFile source(from, 0, false);
  const int in = source.fd();
  ::posix_fadvise(in, 0, 0, POSIX_FADV_SEQUENTIAL);  // read once, in order: the kernel may read ahead
  const int made = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (made < 0) throw Error("cannot open " + to + ": " + errno_text(errno));
  ::close(made);
  ElementFile out(to, 0, true);
  const std::unique_ptr<char[]> buffer(new char[kCopyBytes]);
  for (std::uint64_t at = 0;;) {
    ssize_t n = ::pread(in, buffer.get(), kCopyBytes, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(from, false, kCopyBytes, at, errno);
    if (n == 0) break;
    iovec iov{buffer.get(), static_cast<std::size_t>(n)};
    transfer(to, out.fd(), &iov, 1, at, true);
    out.wrote(at, at + static_cast<std::uint64_t>(n));
    ::posix_fadvise(in, static_cast<off_t>(at), n, POSIX_FADV_DONTNEED);
    at += static_cast<std::uint64_t>(n);
  }
}

bool link_file(const std::string& from, const std::string& to) {
  ::unlink(to.c_str());
  return ::link(from.c_str(), to.c_str()) == 0;
}

// ---- RunReads ------------------------------------------------------------------------------

void RunReads::add(std::uint64_t at, std::size_t n, double* out, std::size_t step) {
  if (n == 0) return;
  if (step == 1) return runs_.push_back({at, n, out, 1});
  for (std::size_t e = 0; e < n; e += kStagingElems)  // a strided run fits the staging buffer
    runs_.push_back({at + e, std::min(kStagingElems, n - e), out + e * step, step});
}

void RunReads::flush() {
  if (runs_.empty()) return;
  auto by_offset = [](const Run& a, const Run& b) { return a.at < b.at; };
  if (!std::is_sorted(runs_.begin(), runs_.end(), by_offset)) std::stable_sort(runs_.begin(), runs_.end(), by_offset);
  // The requests: runs_[starts[g], starts[g + 1]), runs less than a gap apart; gaps[g]: the bytes
  // between them.
  std::vector<std::size_t> starts;
  std::vector<std::uint64_t> gaps;
  for (std::size_t i = 0; i < runs_.size(); ++i) {
    const Run& r = runs_[i];
    bool joins = i > 0 && r.at >= runs_[i - 1].at + runs_[i - 1].n;
    std::uint64_t gap = 0;
    if (joins) {
      gap = bytes_of(r.at - runs_[i - 1].at - runs_[i - 1].n);
      joins = gap <= kGapBytes && gap <= std::max<std::uint64_t>(kMinGapBytes, bytes_of(runs_[i - 1].n));
    }
    if (!joins) starts.push_back(i), gaps.push_back(0);
    if (joins) gaps.back() += gap;
  }
  starts.push_back(runs_.size());
  // A request of direct_min_bytes() or more bypasses the page cache (direct_fd()) unless more
  // than 1/16 of it lies between its runs: read buffered, those bytes are often the runs of the
  // next tile's rows, which then find them in the page cache, where read direct the device would
  // read them again (a chain of products in a 384 MB cgroup: 1.95 times the bytes asked for
  // with every request of 64 KiB or more direct, 1.25 times buffered). Several
  // buffered preadv calls (several requests, or one of more runs than a preadv takes): the device
  // gets them all at once (POSIX_FADV_WILLNEED starts their reads), not one after the other as
  // the preadv calls below wait for each. Never WILLNEED a direct request: that would read its
  // pages into the page cache.
  auto span_bytes = [&](std::size_t g) {
    const Run &first = runs_[starts[g]], &last = runs_[starts[g + 1] - 1];
    return bytes_of(last.at + last.n - first.at);
  };
  auto direct = [&](std::size_t g) {
    return file_->direct_fd() >= 0 && span_bytes(g) >= file_->direct_min_bytes() && 16 * gaps[g] <= span_bytes(g);
  };
  if (starts.size() > 2 || 2 * runs_.size() >= kMaxIov)
    for (std::size_t g = 0; g + 1 < starts.size(); ++g)
      if (!direct(g))
        ::posix_fadvise(file_->fd(), static_cast<off_t>(file_->byte_of(runs_[starts[g]].at)),
                        static_cast<off_t>(span_bytes(g)), POSIX_FADV_WILLNEED);
  for (std::size_t g = 0; g + 1 < starts.size(); ++g)
    if (!direct(g) || !read_direct(starts[g], starts[g + 1])) read_buffered(starts[g], starts[g + 1]);
  runs_.clear();
}

void RunReads::read_buffered(std::size_t first, std::size_t end) const {
  double* const staging = read_staging();
  char* const sink = gap_sink();
  std::vector<iovec> iov;
  std::size_t begin = first, staged = 0;  // the runs of the preadv being built, and their staged elements
  auto issue = [&](std::size_t until) {
    transfer(file_->path(), file_->fd(), iov.data(), static_cast<int>(iov.size()), file_->byte_of(runs_[begin].at),
             false);
    std::size_t from = 0;
    for (std::size_t i = begin; i < until; ++i) {
      const Run& r = runs_[i];
      if (r.step == 1) continue;
      for (std::size_t e = 0; e < r.n; ++e) r.out[e * r.step] = staging[from + e];
      from += r.n;
    }
    iov.clear(), begin = until, staged = 0;
  };
  for (std::size_t i = first; i < end; ++i) {
    const Run& r = runs_[i];
    if (iov.size() + 2 > kMaxIov || (r.step != 1 && staged + r.n > kStagingElems)) issue(i);
    if (i > begin && r.at > runs_[i - 1].at + runs_[i - 1].n)
      iov.push_back({sink, bytes_of(r.at - runs_[i - 1].at - runs_[i - 1].n)});
    iov.push_back({r.step == 1 ? static_cast<void*>(r.out) : staging + staged, bytes_of(r.n)});
    staged += r.step == 1 ? 0 : r.n;
  }
  issue(end);
}

bool RunReads::read_direct(std::size_t first, std::size_t end) const {
  const int fd = file_->direct_fd();
  const Run& last = runs_[end - 1];
  const std::uint64_t begin_byte = file_->byte_of(runs_[first].at), end_byte = file_->byte_of(last.at + last.n);
  const std::uint64_t aligned_end = (end_byte + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
  char* const buf = direct_staging();
  std::size_t i = first;  // the first run not yet copied whole
  for (std::uint64_t at = begin_byte / kDirectAlign * kDirectAlign; at < end_byte;) {
    const std::uint64_t want = std::min<std::uint64_t>(kDirectBytes, aligned_end - at);
    std::uint64_t got = 0;
    while (got < want) {  // short only at the end of the file
      const ssize_t n = ::pread(fd, buf + got, want - got, static_cast<off_t>(at + got));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EINVAL && i == first && got == 0) return false;
      if (n < 0) fail(file_->path(), false, want, at, errno);
      got += static_cast<std::uint64_t>(n);
      if (n == 0 || static_cast<std::uint64_t>(n) % kDirectAlign != 0) break;
    }
    const std::uint64_t stop = std::min(at + want, end_byte);
    if (at + got < stop)  // as the buffered read says it: the runs' bytes
      throw Error("cannot read " + std::to_string(end_byte - begin_byte) + " bytes from " + file_->path() +
                  " at byte offset " + std::to_string(begin_byte) + ": the file ends at byte " +
                  std::to_string(at + got));
    for (; i < end; ++i) {  // the runs' bytes in [at, stop): element boundaries (8 | data offset)
      const Run& r = runs_[i];
      const std::uint64_t first_byte = file_->byte_of(r.at), end_of_run = first_byte + bytes_of(r.n);
      if (first_byte >= stop) break;
      const std::uint64_t lo = std::max(first_byte, at), hi = std::min(end_of_run, stop);
      if (r.step == 1) {
        std::memcpy(reinterpret_cast<char*>(r.out) + (lo - first_byte), buf + (lo - at), hi - lo);
      } else {
        for (std::uint64_t e = elems_of(lo - first_byte); e < elems_of(hi - first_byte); ++e)
          std::memcpy(r.out + e * r.step, buf + (first_byte + bytes_of(e) - at), bytes_of(1));
      }
      if (end_of_run > stop) break;  // continues in the next request
    }
    at += want;
  }
  return true;
}

// ---- RunWrites -----------------------------------------------------------------------------

void RunWrites::add(std::uint64_t at, std::size_t n, const double* src, std::size_t step) {
  if (n == 0) return;
  if (step == 1 && n >= kDirectElems) return pieces_.push_back({at, n, src, false});
  if (staged_.capacity() == 0) staged_.reserve(kStagingElems);
  for (std::size_t e = 0; e < n;) {
    if (staged_.size() == kStagingElems) flush();
    const std::size_t m = std::min(n - e, kStagingElems - staged_.size());
    const std::size_t from = staged_.size();
    for (std::size_t i = 0; i < m; ++i) staged_.push_back(src[(e + i) * step]);
    Piece* last = pieces_.empty() ? nullptr : &pieces_.back();
    if (last != nullptr && last->staged && last->at + last->n == at + e && last->src + last->n == staged_.data() + from)
      last->n += m;  // continues the last staged piece, in the file and in the staging buffer
    else
      pieces_.push_back({at + e, m, staged_.data() + from, true});
    e += m;
  }
}

void RunWrites::flush() {
  if (pieces_.empty()) return;
  std::vector<iovec> iov;
  iov.reserve(std::min(pieces_.size(), kMaxIov));
  std::uint64_t first = 0, end = 0, low = ~std::uint64_t{0}, high = 0;
  auto issue = [&] {
    if (iov.empty()) return;
    transfer(file_->path(), file_->fd(), iov.data(), static_cast<int>(iov.size()), file_->byte_of(first), true);
    low = std::min(low, file_->byte_of(first)), high = std::max(high, file_->byte_of(end));
    iov.clear();
  };
  // A write that covers part of a page whose data are on the disk but not in the page cache waits
  // for the kernel to read that page first (a result tile's rows in a wide tensor's file: each
  // row starts and ends inside a page that a neighbouring tile wrote, and reclaim took). Start
  // those reads all at once, so that the device serves them side by side instead of one per
  // write (8000^3 product at P = 2 in a 384 MB cgroup: the writing rank's disk time 11 s -> 5 s).
  if (pieces_.size() > 1) {
    static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    std::uint64_t last = ~std::uint64_t{0};        // the page last started (short runs share pages)
    const auto prefetch = [&](std::uint64_t at) {  // the page of element `at`, when partly written
      const std::uint64_t byte = file_->byte_of(at), first = byte - byte % page;
      if (byte % page == 0 || first == last) return;
      ::posix_fadvise(file_->fd(), static_cast<off_t>(first), static_cast<off_t>(page), POSIX_FADV_WILLNEED);
      last = first;
    };
    for (std::size_t i = 0; i < pieces_.size(); ++i) {
      const Piece& p = pieces_[i];
      if (i == 0 || pieces_[i - 1].at + pieces_[i - 1].n != p.at) prefetch(p.at);
      if (i + 1 == pieces_.size() || pieces_[i + 1].at != p.at + p.n) prefetch(p.at + p.n);
    }
  }
  for (const Piece& p : pieces_) {
    if (iov.empty() || p.at != end || iov.size() == kMaxIov) issue(), first = p.at;
    iov.push_back({const_cast<double*>(p.src), bytes_of(p.n)});  // pwritev only reads through it
    end = p.at + p.n;
  }
  issue();
  pieces_.clear(), staged_.clear();
  file_->wrote(low, high);
}

}  // namespace tcert

// runtime/storage/npy.cpp — .npy header parsing and formatting; mmap-based NpyReader and NpyWriter.
#include "runtime/storage/npy.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>
#include <utility>

#include "runtime/base/error.h"
#include "runtime/kernel/kernel.h"
#include "runtime/spec/units.h"
#include "runtime/storage/element_file.h"
#include "runtime/storage/spare_files.h"

namespace tcert {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicBytes = 6;

/// A file descriptor closed at scope exit.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

/// Cursor over the Python-literal dict of a .npy header.
struct DictParser {
  const std::string& path;
  const std::string& text;

  [[noreturn]] void malformed(const std::string& why) const {
    throw Error("input " + path + " has a malformed .npy header: " + why);
  }
  // Position just after "'key':" (spaces skipped).
  std::size_t value_of(const char* key) const {
    std::size_t at = text.find(std::string("'") + key + "'");
    if (at == std::string::npos) malformed(std::string("no '") + key + "' entry");
    at = text.find(':', at);
    if (at == std::string::npos) malformed(std::string("no value for '") + key + "'");
    return text.find_first_not_of(' ', at + 1);
  }
  std::string descr() const {
    std::size_t at = value_of("descr");
    if (at == std::string::npos || (text[at] != '\'' && text[at] != '"'))
      throw Error("input " + path + " has a structured dtype but tcert needs '<f8' (float64)");
    std::size_t end = text.find(text[at], at + 1);
    if (end == std::string::npos) malformed("unterminated 'descr'");
    return text.substr(at + 1, end - at - 1);
  }
  bool fortran_order() const {
    std::size_t at = value_of("fortran_order");
    if (text.compare(at, 4, "True") == 0) return true;
    if (text.compare(at, 5, "False") == 0) return false;
    malformed("'fortran_order' is neither True nor False");
  }
  std::vector<std::uint64_t> shape() const {
    std::size_t at = value_of("shape");
    std::size_t end = text.find(')', at);
    if (at == std::string::npos || text[at] != '(' || end == std::string::npos) malformed("'shape' is not a tuple");
    std::vector<std::uint64_t> extents;
    const char* p = text.c_str() + at + 1;
    const char* stop = text.c_str() + end;
    while (p < stop) {
      while (p < stop && (*p == ' ' || *p == ',')) ++p;
      if (p == stop) break;
      char* after = nullptr;
      errno = 0;
      unsigned long long v = std::strtoull(p, &after, 10);
      if (after == p || errno != 0 || *p == '-') malformed("bad extent in 'shape'");
      extents.push_back(v);
      p = after;
      if (p < stop && *p == 'L') ++p;  // written by Python 2
    }
    return extents;
  }
};

std::string read_header_text(const std::string& path, int fd, std::uint64_t& data_offset) {
  unsigned char prefix[12] = {};
  ssize_t got = ::pread(fd, prefix, sizeof prefix, 0);
  if (got < 10 || std::memcmp(prefix, kMagic, kMagicBytes) != 0)
    throw Error("input " + path + " is not a .npy file (no \\x93NUMPY magic)");
  int major = prefix[6];
  if (major < 1 || major > 3)
    throw Error("input " + path + " is a .npy file of unsupported version " + std::to_string(major) + "." +
                std::to_string(prefix[7]));
  std::uint64_t length = prefix[8] | (prefix[9] << 8);
  std::uint64_t start = 10;
  if (major >= 2) {
    if (got < 12) throw Error("input " + path + " is not a .npy file (truncated header)");
    length |= (std::uint64_t{prefix[10]} << 16) | (std::uint64_t{prefix[11]} << 24);
    start = 12;
  }
  std::string text(length, '\0');
  if (::pread(fd, text.data(), length, static_cast<off_t>(start)) != static_cast<ssize_t>(length))
    throw Error("input " + path + " is not a .npy file (truncated header)");
  data_offset = start + length;
  return text;
}

std::string header_bytes(const std::vector<std::uint64_t>& shape) {
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': " + format_shape(shape) + ", }";
  std::size_t prefix = 10;  // version 1.0 while the padded dict fits a 16-bit length
  if ((prefix + dict.size() + 1 + 63) / 64 * 64 - prefix > 65535) prefix = 12;
  std::size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::size_t length = dict.size();
  std::string out(kMagic, kMagicBytes);
  out += static_cast<char>(prefix == 10 ? 1 : 2);
  out += '\0';
  for (std::size_t b = 0; b < prefix - 8; ++b) out += static_cast<char>((length >> (8 * b)) & 0xff);
  return out + dict;
}

/// Writes `bytes` bytes from `from` to fd at `offset` (pwrite until done). Throws Error("cannot
/// write output PATH: …", or "disk full: …").
void write_all(int fd, const void* from, std::size_t bytes, std::size_t offset, const std::string& path) {
  const char* p = static_cast<const char*>(from);
  for (std::size_t done = 0; done < bytes;) {
    const ssize_t n = ::pwrite(fd, p + done, bytes - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      const std::string msg = "cannot write output " + path + ": " + errno_text(err);
      throw Error(err == ENOSPC || err == EDQUOT ? "disk full: " + msg : msg);
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::uint64_t NpyHeader::element_count() const {
  std::uint64_t count = 1;
  for (std::uint64_t e : shape) count *= e;
  return count;
}

std::string format_shape(std::span<const std::uint64_t> shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

NpyHeader read_npy_header(const std::string& path) {
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw Error("cannot open input " + path + ": " + errno_text(errno));
  NpyHeader header;
  std::string text = read_header_text(path, file.fd, header.data_offset_bytes);
  DictParser dict{path, text};
  std::string descr = dict.descr();
  if (descr != "<f8") throw Error("input " + path + " has dtype '" + descr + "' but tcert needs '<f8' (float64)");
  if (dict.fortran_order())
    throw Error("input " + path +
                " is stored in Fortran order (fortran_order: True) but tcert "
                "needs C order");
  header.shape = dict.shape();
  std::uint64_t count = 1;
  for (std::uint64_t e : header.shape) {
    if (e != 0 && count > elems_of(std::numeric_limits<std::uint64_t>::max()) / e)
      dict.malformed("the shape " + format_shape(header.shape) + " overflows");
    count *= e;
  }
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) throw Error("cannot stat input " + path + ": " + errno_text(errno));
  std::uint64_t needed = header.data_offset_bytes + bytes_of(count);
  if (static_cast<std::uint64_t>(st.st_size) < needed)
    throw Error("input " + path + " is truncated: shape " + format_shape(header.shape) + " needs " +
                std::to_string(needed) + " bytes but the file has " + std::to_string(st.st_size) + " bytes");
  return header;
}

void check_shape(const NpyHeader& header, std::span<const std::uint64_t> expected, std::string_view name) {
  if (std::equal(header.shape.begin(), header.shape.end(), expected.begin(), expected.end())) return;
  throw Error("input " + std::string(name) + " has shape " + format_shape(header.shape) + " but the program expects " +
              format_shape(expected));
}

// ---- NpyReader -----------------------------------------------------------------------------

NpyReader::NpyReader(const std::string& path) : path_(path), header_(read_npy_header(path)) {
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw Error("cannot open input " + path + ": " + errno_text(errno));
  map_bytes_ = header_.data_offset_bytes + bytes_of(header_.element_count());
  map_ = ::mmap(nullptr, map_bytes_, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw Error("cannot map input " + path + " (" + std::to_string(map_bytes_) + " bytes): " + errno_text(errno));
  }
}

NpyReader::NpyReader(NpyReader&& other) noexcept
    : path_(std::move(other.path_)),
      header_(std::move(other.header_)),
      map_(std::exchange(other.map_, nullptr)),
      map_bytes_(std::exchange(other.map_bytes_, 0)),
      file_(std::move(other.file_)) {}

NpyReader::~NpyReader() {
  if (map_ != nullptr) ::munmap(map_, map_bytes_);
}

void NpyWriter::drop_pages() {
  if (map_ && map_bytes_ > 0) ::madvise(map_, map_bytes_, MADV_DONTNEED);
}

void NpyPatch::drop_pages() {
  if (map_ && map_bytes_ > 0) ::madvise(map_, map_bytes_, MADV_DONTNEED);
}

void NpyReader::drop_pages() const {
  if (map_ && map_bytes_ > 0) ::madvise(map_, map_bytes_, MADV_DONTNEED);
}

std::shared_ptr<const ElementFile> NpyReader::file() const {
  if (!file_) file_ = std::make_shared<const ElementFile>(path_, header_.data_offset_bytes, false);
  return file_;
}

const double* NpyReader::data() const {
  return reinterpret_cast<const double*>(static_cast<const char*>(map_) + header_.data_offset_bytes);
}

// ---- FileMemory ----------------------------------------------------------------------------

namespace {

/// The freed blocks of FileMemory: (capacity in elements, memory), at most kBytes in all.
struct MemoryPool {
  static constexpr std::size_t kBytes = std::size_t{32} << 20;
  std::mutex lock;
  std::vector<std::pair<std::size_t, double*>> blocks;
  std::size_t bytes = 0;
};

MemoryPool& memory_pool() {
  static MemoryPool* pool = new MemoryPool;  // never destroyed: blocks may return at exit
  return *pool;
}

}  // namespace

FileMemory::FileMemory(std::size_t elements) : size_(elements) {
  MemoryPool& pool = memory_pool();
  {
    const std::lock_guard<std::mutex> hold(pool.lock);
    auto best = pool.blocks.end();
    for (auto b = pool.blocks.begin(); b != pool.blocks.end(); ++b)
      if (b->first >= elements && b->first / 2 <= elements && (best == pool.blocks.end() || b->first < best->first))
        best = b;
    if (best != pool.blocks.end()) {
      capacity_ = best->first, data_ = best->second;
      pool.bytes -= bytes_of(capacity_);
      pool.blocks.erase(best);
      return;
    }
  }
  capacity_ = std::max<std::size_t>(elements, 1);
  data_ = static_cast<double*>(aligned_allocate(bytes_of(capacity_)));
}

FileMemory::FileMemory(FileMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

FileMemory& FileMemory::operator=(FileMemory&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0), capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

FileMemory::~FileMemory() { release(); }

void FileMemory::release() noexcept {
  if (data_ == nullptr) return;
  MemoryPool& pool = memory_pool();
  double* freed = data_;
  {
    const std::lock_guard<std::mutex> hold(pool.lock);
    while (!pool.blocks.empty() && pool.bytes + bytes_of(capacity_) > MemoryPool::kBytes) {  // oldest out first
      pool.bytes -= bytes_of(pool.blocks.front().first);
      aligned_free(pool.blocks.front().second);
      pool.blocks.erase(pool.blocks.begin());
    }
    if (bytes_of(capacity_) <= MemoryPool::kBytes) {
      pool.blocks.emplace_back(capacity_, data_);
      pool.bytes += bytes_of(capacity_);
      freed = nullptr;
    }
  }
  if (freed != nullptr) aligned_free(freed);
  data_ = nullptr, size_ = 0, capacity_ = 0;
}

// ---- NpyWriter -----------------------------------------------------------------------------

NpyWriter::NpyWriter(std::string path, std::vector<std::uint64_t> shape, SpareFiles* spares, Backing backing)
    : path_(std::move(path)), temp_path_(path_ + ".tmp-" + std::to_string(::getpid())) {
  header_.shape = std::move(shape);
  std::string head = header_bytes(header_.shape);
  header_.data_offset_bytes = head.size();
  map_bytes_ = head.size() + bytes_of(header_.element_count());
  const bool spare = spares != nullptr && spares->take(map_bytes_, temp_path_);
  fd_ = ::open(temp_path_.c_str(), (spare ? 0 : O_CREAT | O_TRUNC) | O_RDWR | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error("cannot create output " + temp_path_ + ": " + errno_text(errno));
  auto fail = [&](const char* what, int err) {
    std::string msg = std::string("cannot ") + what + " output " + temp_path_ + " (" + std::to_string(map_bytes_) +
                      " bytes): " + errno_text(err);
    discard();
    throw Error(err == ENOSPC || err == EDQUOT ? "disk full: " + msg : msg);
  };
  if (::pwrite(fd_, head.data(), head.size(), 0) != static_cast<ssize_t>(head.size()))
    fail("write the header of", errno);
  // A spare has its size and its blocks. data() starts zero: in memory, or (Backing::Mapped)
  // by zeros written, not set through the mapping, so its pages stay out of this process's
  // resident memory.
  if (spare && backing != Backing::Memory) {
    static const std::vector<char> zeros(std::size_t{1} << 20, 0);
    for (std::size_t at = head.size(); at < map_bytes_; at += zeros.size()) {
      const std::size_t n = std::min(zeros.size(), map_bytes_ - at);
      if (::pwrite(fd_, zeros.data(), n, static_cast<off_t>(at)) != static_cast<ssize_t>(n)) fail("zero", errno);
    }
  } else if (!spare) {
    if (::ftruncate(fd_, static_cast<off_t>(map_bytes_)) != 0) fail("size", errno);
    int err = ::posix_fallocate(fd_, 0, static_cast<off_t>(map_bytes_));
    if (err != 0 && err != EINVAL && err != EOPNOTSUPP) fail("reserve disk space for", err);
  }
  if (backing == Backing::Memory) {
    memory_ = FileMemory(static_cast<std::size_t>(header_.element_count()));
    std::fill_n(memory_.data(), memory_.size(), 0.0);
    in_memory_ = true;
    return;
  }
  if (backing == Backing::File) return;
  map_ = ::mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    fail("map", errno);
  }
}

NpyWriter::NpyWriter(NpyWriter&& other) noexcept
    : path_(std::move(other.path_)),
      temp_path_(std::move(other.temp_path_)),
      header_(std::move(other.header_)),
      fd_(std::exchange(other.fd_, -1)),
      map_(std::exchange(other.map_, nullptr)),
      map_bytes_(std::exchange(other.map_bytes_, 0)),
      memory_(std::move(other.memory_)),
      in_memory_(std::exchange(other.in_memory_, false)) {}

NpyWriter::~NpyWriter() { discard(); }

double* NpyWriter::data() {
  if (fd_ < 0) throw Error("output " + path_ + " is already committed");
  if (in_memory_) return memory_.data();
  if (map_ == nullptr) return nullptr;  // Backing::File
  return reinterpret_cast<double*>(static_cast<char*>(map_) + header_.data_offset_bytes);
}

void NpyWriter::write_out() {
  if (!in_memory_) return;
  if (fd_ < 0) throw Error("output " + path_ + " is already committed");
  write_all(fd_, memory_.data(), bytes_of(memory_.size()), header_.data_offset_bytes, temp_path_);
}

FileMemory NpyWriter::take_memory() { return fd_ < 0 ? std::move(memory_) : FileMemory(); }

void NpyWriter::discard() noexcept {
  if (map_ != nullptr) ::munmap(map_, map_bytes_);
  map_ = nullptr;
  memory_.release();
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  ::unlink(temp_path_.c_str());
}

void NpyWriter::commit(bool flush) {
  if (fd_ < 0) throw Error("output " + path_ + " is already committed");
  if (in_memory_) {
    try {
      write_out();
    } catch (const Error&) {
      discard();
      throw;
    }
  }
  if (flush && (map_ == nullptr ? ::fdatasync(fd_) : ::msync(map_, map_bytes_, MS_SYNC)) != 0) {
    int err = errno;
    discard();
    throw Error("cannot write output " + temp_path_ + ": " + errno_text(err));
  }
  if (map_ != nullptr) ::munmap(map_, map_bytes_);
  map_ = nullptr;
  int close_rc = ::close(fd_);
  fd_ = -1;
  if (const int err = close_rc != 0 ? errno : replace_file(temp_path_, path_); err != 0) {
    ::unlink(temp_path_.c_str());
    throw Error("cannot write output " + path_ + ": " + errno_text(err));
  }
}

void write_npy_file(const std::string& path, const std::vector<std::uint64_t>& shape, const double* data, bool flush,
                    SpareFiles* spares) {
  const std::string head = header_bytes(shape);
  const NpyHeader header{shape, head.size()};
  // A spare has exactly the file's size: the writes below cover every byte of it.
  const bool spare = spares != nullptr && spares->take(head.size() + bytes_of(header.element_count()), path);
  Fd file{::open(path.c_str(), (spare ? 0 : O_CREAT | O_TRUNC) | O_WRONLY | O_CLOEXEC, 0644)};
  if (file.fd < 0) throw Error("cannot create output " + path + ": " + errno_text(errno));
  try {
    write_all(file.fd, head.data(), head.size(), 0, path);
    write_all(file.fd, data, bytes_of(header.element_count()), head.size(), path);
    if (flush && ::fdatasync(file.fd) != 0) throw Error("cannot write output " + path + ": " + errno_text(errno));
    if (::close(std::exchange(file.fd, -1)) != 0) throw Error("cannot write output " + path + ": " + errno_text(errno));
  } catch (const Error&) {
    ::unlink(path.c_str());
    throw;
  }
}

void write_npy(const std::string& path, const std::vector<std::uint64_t>& shape, const double* data, bool flush,
               SpareFiles* spares) {
  const std::string temp = path + ".tmp-" + std::to_string(::getpid());
  write_npy_file(temp, shape, data, flush, spares);
  if (const int err = replace_file(temp, path, spares); err != 0) {
    ::unlink(temp.c_str());
    throw Error("cannot write output " + path + ": " + errno_text(err));
  }
}

int replace_file(const std::string& from, const std::string& to, SpareFiles* spares) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  struct stat old {};
  // Only a regular file is exchanged: rename(2) says what is wrong with anything else (a
  // directory: EISDIR), which an exchange would move aside instead.
  if (errno == EEXIST && ::lstat(to.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_EXCHANGE) == 0) {
      // The old file, now at `from`: to the pool, or unlinked (left under the temporary name if
      // that fails).
      if (spares == nullptr || !spares->give(from, std::filesystem::path(to).parent_path().string()))
        ::unlink(from.c_str());
      return 0;
    }
    if (errno != EINVAL && errno != ENOSYS) return errno;
  } else if (errno != EEXIST && errno != EINVAL && errno != ENOSYS) {
    return errno;
  }
  return std::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

void sync_file_system(const std::string& path) {
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0 || ::syncfs(file.fd) != 0) throw Error("cannot sync " + path + ": " + errno_text(errno));
}

void sync_files(const std::vector<std::string>& paths) {
  auto sync = [](const std::string& path) {
    Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (file.fd < 0 || ::fsync(file.fd) != 0) throw Error("cannot sync " + path + ": " + errno_text(errno));
  };
  std::vector<std::string> dirs;
  for (const std::string& path : paths) {
    sync(path);
    const std::size_t slash = path.rfind('/');
    dirs.push_back(slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash));
  }
  std::sort(dirs.begin(), dirs.end());
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  for (const std::string& dir : dirs) sync(dir);
}

// ---- NpyPatch ------------------------------------------------------------------------------

NpyPatch::NpyPatch(const std::string& path, bool flush) : path_(path), header_(read_npy_header(path)), flush_(flush) {
  Fd file{::open(path.c_str(), O_RDWR | O_CLOEXEC)};
  if (file.fd < 0) throw Error("cannot open output " + path + ": " + errno_text(errno));
  map_bytes_ = header_.data_offset_bytes + bytes_of(header_.element_count());
  map_ = ::mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, file.fd, 0);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw Error("cannot map output " + path + ": " + errno_text(errno));
  }
}

NpyPatch::~NpyPatch() {
  if (map_ == nullptr) return;
  if (flush_) ::msync(map_, map_bytes_, MS_SYNC);
  ::munmap(map_, map_bytes_);
}

double* NpyPatch::data() { return reinterpret_cast<double*>(static_cast<char*>(map_) + header_.data_offset_bytes); }

void NpyPatch::sync() {
  if (flush_ && ::msync(map_, map_bytes_, MS_SYNC) != 0)
    throw Error("cannot write output " + path_ + ": " + errno_text(errno));
}

// ---- NpyUpdate -----------------------------------------------------------------------------

NpyUpdate::NpyUpdate(const std::string& path, bool flush) : path_(path), header_(read_npy_header(path)), flush_(flush) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd_ < 0) throw Error("cannot open output " + path + ": " + errno_text(errno));
  memory_ = FileMemory(static_cast<std::size_t>(header_.element_count()));
  char* to = reinterpret_cast<char*>(memory_.data());
  const std::size_t bytes = bytes_of(memory_.size());
  for (std::size_t done = 0; done < bytes;) {
    const ssize_t n = ::pread(fd_, to + done, bytes - done, static_cast<off_t>(header_.data_offset_bytes + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd_);
      throw Error("cannot read output " + path + ": " + (n == 0 ? std::string("file is truncated") : errno_text(err)));
    }
    done += static_cast<std::size_t>(n);
  }
}

NpyUpdate::NpyUpdate(const std::string& path, bool flush, FileMemory held)
    : path_(path), header_(read_npy_header(path)), memory_(std::move(held)), flush_(flush) {
  if (memory_.size() != header_.element_count())
    throw Error("cannot update output " + path + ": the data held for it have another size");
  fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd_ < 0) throw Error("cannot open output " + path + ": " + errno_text(errno));
}

NpyUpdate::~NpyUpdate() {
  if (fd_ >= 0) ::close(fd_);
}

void NpyUpdate::write_back() {
  write_all(fd_, memory_.data(), bytes_of(memory_.size()), header_.data_offset_bytes, path_);
  if (flush_ && ::fdatasync(fd_) != 0) throw Error("cannot write output " + path_ + ": " + errno_text(errno));
}

}  // namespace tcert

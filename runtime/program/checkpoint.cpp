// runtime/program/checkpoint.cpp — the checkpoint directory: manifest, checksums, resume checks.
#include "runtime/program/checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <tuple>

#include <fmt/format.h>

#include "runtime/base/error.h"
#include "runtime/base/trace.h"
#include "runtime/program/run.h"
#include "runtime/storage/npy.h"

namespace tcert {

namespace fs = std::filesystem;

namespace {

constexpr int kFormat = 1;                                 // the manifest's format version
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;  // file_checksum()'s buffer

/// One step of the word hash (a multiply–xorshift mix; not cryptographic: it detects changed
/// or truncated files, not tampering).
std::uint64_t mix(std::uint64_t h, std::uint64_t word) {
  h ^= word;
  h *= 0x9E3779B97F4A7C15ULL;
  return h ^ (h >> 29);
}

/// mix() over the n bytes at `data`: their 8-byte words, then the bytes left over (an odd-sized
/// file's last ones; the callers' chunks are whole words otherwise).
std::uint64_t mix_bytes(std::uint64_t h, const unsigned char* data, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, data + i, 8);
    h = mix(h, word);
  }
  for (; i < n; ++i) h = mix(h, data[i]);
  return h;
}

std::string hex(std::uint64_t v) { return fmt::format("{:016x}", v); }

/// Size in bytes and modification time (ns since the epoch) of `path`, or nullopt.
std::optional<std::pair<std::uint64_t, std::int64_t>> file_stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  const std::int64_t ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return std::pair{static_cast<std::uint64_t>(st.st_size), ns};
}

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }

/// A source of a summed copy: fills up to `max` bytes at `into` and returns how many (0 at the
/// end). Throws Error when it cannot read.
using ByteSource = std::function<std::size_t(unsigned char* into, std::size_t max)>;
/// A sink of a summed copy: takes `n` bytes. Throws Error when it cannot write.
using ByteSink = std::function<void(const unsigned char* data, std::size_t n)>;

/// Copies `from` to `to` in kChunkBytes pieces (a buffer outside the memory budget) and returns
/// the bytes copied and a checksum of them (mix() over their 8-byte words, then their count).
/// The checksum of a block in memory equals that of a file holding the same bytes.
std::pair<std::uint64_t, std::uint64_t> copy_summed(const ByteSource& from, const ByteSink& to) {
  std::vector<unsigned char> buffer(kChunkBytes);
  std::uint64_t size = 0, h = 0x452821E638D01377ULL;
  for (;;) {
    const std::size_t n = from(buffer.data(), buffer.size());
    if (n == 0) break;
    h = mix_bytes(h, buffer.data(), n);
    to(buffer.data(), n);
    size += n;
  }
  return {size, mix(h, size)};
}

/// An open file descriptor, closed when it goes out of scope.
class OpenFile {
 public:
  /// Opens `path` for reading, or for writing (created or truncated). Throws Error ("cannot
  /// read|write PATH: …").
  OpenFile(const std::string& path, bool write)
      : path_(path),
        fd_(::open(path.c_str(), write ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC : O_RDONLY | O_CLOEXEC, 0644)) {
    if (fd_ < 0) throw Error(fmt::format("cannot {} {}: {}", write ? "write" : "read", path, std::strerror(errno)));
  }
  ~OpenFile() { ::close(fd_); }
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;

  /// Reads the file from where it stands (a ByteSource).
  ByteSource source() {
    return [this](unsigned char* into, std::size_t max) {
      const ssize_t got = ::read(fd_, into, max);
      if (got < 0) throw Error(fmt::format("cannot read {}: {}", path_, std::strerror(errno)));
      return static_cast<std::size_t>(got);
    };
  }
  /// Appends to the file (a ByteSink).
  ByteSink sink() {
    return [this](const unsigned char* data, std::size_t n) {
      for (std::size_t done = 0; done < n;) {
        const ssize_t put = ::write(fd_, data + done, n - done);
        if (put <= 0) throw Error(fmt::format("cannot write {}: {}", path_, std::strerror(put < 0 ? errno : ENOSPC)));
        done += static_cast<std::size_t>(put);
      }
    };
  }
  /// Flushes what was written to the device (Error when it cannot).
  void sync() {
    if (::fsync(fd_) != 0) throw Error(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
  }

 private:
  std::string path_;
  int fd_;
};

/// Copies this rank's partial C to the file `to` (created or truncated, then fsync'd); returns
/// copy_summed()'s bytes and checksum.
std::pair<std::uint64_t, std::uint64_t> save_partial(const PartialC& c, const std::string& to) {
  OpenFile out(to, true);
  std::pair<std::uint64_t, std::uint64_t> summed;
  if (!c.file.empty()) {
    OpenFile in(c.file, false);
    summed = copy_summed(in.source(), out.sink());
  } else {
    const auto* block = reinterpret_cast<const unsigned char*>(c.block.data());
    std::size_t at = 0;
    summed = copy_summed(
        [&](unsigned char* into, std::size_t max) {
          const std::size_t n = std::min(max, c.block.size_bytes() - at);
          std::memcpy(into, block + at, n);
          at += n;
          return n;
        },
        out.sink());
  }
  out.sync();
  return summed;
}

/// Copies the file `from` back into this rank's partial C (a file: created or truncated, then
/// fsync'd; a block: bytes past its end are counted, not stored); returns copy_summed()'s bytes
/// and checksum.
std::pair<std::uint64_t, std::uint64_t> restore_partial(const std::string& from, const PartialC& c) {
  OpenFile in(from, false);
  if (!c.file.empty()) {
    OpenFile out(c.file, true);
    const auto summed = copy_summed(in.source(), out.sink());
    out.sync();
    return summed;
  }
  auto* block = reinterpret_cast<unsigned char*>(c.block.data());
  std::size_t at = 0;
  return copy_summed(in.source(), [&](const unsigned char* data, std::size_t n) {
    const std::size_t fits = at < c.block.size_bytes() ? std::min(n, c.block.size_bytes() - at) : 0;
    std::memcpy(block + at, data, fits);
    at += n;
  });
}

/// The manifest at `manifest` (in checkpoint directory `dir`), parsed. Throws Error ("cannot
/// resume from DIR: MANIFEST is not a checkpoint manifest of this version") when it cannot be
/// read, is not JSON, is of another format or lacks steps_done or versions.
nlohmann::json read_manifest(const std::string& dir, const std::string& manifest) {
  try {
    std::ifstream in(manifest);
    nlohmann::json m = nlohmann::json::parse(in);
    if (m.at("format").get<int>() != kFormat) throw Error("format");
    (void)m.at("steps_done").get<int>(), (void)m.at("versions").get<nlohmann::json::object_t>();
    return m;
  } catch (const std::exception&) {
    throw Error(fmt::format("cannot resume from {}: {} is not a checkpoint manifest of this version", dir, manifest));
  }
}

/// Why the run a manifest's identity `made` describes is not the run of `identity`
/// (Checkpoint::identity()): "another program (NAME)", "another plan …", "another number of
/// processes (P)", "another memory per rank", "another input NAME (…)", "input NAME from another
/// source (…)", "other inputs"; "" when it is the same run.
std::string why_another_run(const nlohmann::json& made, const nlohmann::json& identity) {
  auto differs = [&](const char* key) { return !made.contains(key) || made.at(key) != identity.at(key); };
  if (differs("program") || differs("source"))
    return fmt::format("another program ({})", made.value("program", std::string("?")));
  if (differs("fingerprint")) return "another plan (the program was generated again since)";
  if (differs("processors")) return fmt::format("another number of processes ({})", made.value("processors", 0));
  if (differs("memory_bytes")) return "another memory per rank";
  for (const auto& [name, now] : identity.at("inputs").items()) {
    const nlohmann::json then = made.at("inputs").value(name, nlohmann::json());
    if (then == now) continue;
    return now.contains("random_seed") ? fmt::format("input {} from another source (now random:{})", name,
                                                     now.at("random_seed").get<std::uint64_t>())
                                       : fmt::format(
                                             "another input {} ({} is not the file the run started with: "
                                             "other path, size or modification time)",
                                             name, now.at("path").get<std::string>());
  }
  if (made.at("inputs").size() != identity.at("inputs").size()) return "other inputs";
  return "";
}

}  // namespace

std::uint64_t file_checksum(const Context& ctx, const std::string& path) {
  std::uint64_t size = 0, h = 0;
  ctx.check_all([&] {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw Error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    struct stat st {};
    ::fstat(fd, &st);
    size = static_cast<std::uint64_t>(st.st_size);
    const auto P = static_cast<std::uint64_t>(ctx.size()), q = static_cast<std::uint64_t>(ctx.rank());
    const std::uint64_t first = size * q / P, end = size * (q + 1) / P;
    std::vector<unsigned char> buffer(kChunkBytes);
    h = 0x243F6A8885A308D3ULL ^ first;
    for (std::uint64_t at = first; at < end;) {
      const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(kChunkBytes, end - at));
      const ssize_t got = ::pread(fd, buffer.data(), want, static_cast<off_t>(at));
      if (got <= 0) {
        const std::string why = got < 0 ? std::strerror(errno) : "it is shorter than it was";
        ::close(fd);
        throw Error(fmt::format("cannot read {}: {}", path, why));
      }
      const auto n = static_cast<std::size_t>(got);
      h = mix_bytes(h, buffer.data(), n);
      at += n;
    }
    ::close(fd);
  });
  std::uint64_t sum = mix(0x13198A2E03707344ULL, size);
  for (std::uint64_t part : ctx.gather_u64(h)) sum = mix(sum, part);
  return sum;
}

Checkpoint::Checkpoint(const Context& ctx, const ProgramInfo& info, const TensorLocations& tensors,
                       const RunOptions& options)
    : ctx_(ctx),
      info_(info),
      dir_(options.checkpoint),
      store_dir_(options.checkpoint + "/store"),
      manifest_(options.checkpoint + "/manifest.json"),
      sync_results_(options.sync_results) {
  identity_ = identity(tensors, options);
  ctx_.check_root([&] {
    std::error_code ec;
    fs::create_directories(store_dir_, ec);
    if (ec) throw Error(fmt::format("cannot create the checkpoint directory {}: {}", store_dir_, ec.message()));
    lock_ = std::make_unique<FileLock>(
        dir_ + "/lock", "another run on this checkpoint directory, still running or its ranks not yet ended");
    if (options.resume) {
      if (!fs::exists(manifest_)) throw Error(fmt::format("--resume: no checkpoint in {}", dir_));
      return;
    }
    if (!fs::exists(manifest_)) return;
    std::string what = "another program";
    try {
      std::ifstream in(manifest_);
      const nlohmann::json m = nlohmann::json::parse(in);
      what = fmt::format("{} (step {} of {} done)", m.at("identity").at("program").get<std::string>(),
                         m.at("steps_done").get<int>(), m.at("steps").get<int>());
    } catch (const std::exception&) {  // an unreadable manifest: still not ours to overwrite
    }
    throw Error(fmt::format("{} holds a checkpoint of {}; continue it with --resume, or remove {} to start again", dir_,
                            what, dir_));
  });
  if (options.resume) resume(identity_);
}

nlohmann::json Checkpoint::identity(const TensorLocations& tensors, const RunOptions& options) const {
  nlohmann::json inputs = nlohmann::json::object();
  for (const TensorShape& input : info_.inputs) {
    if (tensors.input_parts.count(input.name)) {  // in the caller's memory: nothing to stamp
      inputs[input.name] = {{"in_memory", true}};
      continue;
    }
    const auto at = tensors.inputs.find(input.name);
    if (at == tensors.inputs.end()) {
      if (options.random_seed) inputs[input.name] = {{"random_seed", *options.random_seed}};
      continue;
    }
    const auto stamp = file_stamp(at->second.path);  // missing: check_locations() says so
    inputs[input.name] = {{"path", at->second.path},
                          {"dataset", at->second.dataset},
                          {"bytes", stamp ? stamp->first : 0},
                          {"mtime_ns", stamp ? stamp->second : 0}};
  }
  return {{"program", info_.name},
          {"source", info_.source},
          {"fingerprint", info_.fingerprint},
          {"processors", info_.processors},
          {"memory_bytes", info_.memory_bytes},
          {"inputs", inputs}};
}

void Checkpoint::resume(const nlohmann::json& identity) {
  std::string text;
  ctx_.check_root([&] {
    const nlohmann::json m = read_manifest(dir_, manifest_);
    const std::string why = why_another_run(m.at("identity"), identity);
    if (!why.empty()) throw Error(fmt::format("cannot resume from {}: it was made for {}", dir_, why));
    text = m.dump();
  });
  const nlohmann::json m = nlohmann::json::parse(ctx_.bcast_string(text));
  steps_done_ = m.at("steps_done").get<int>();
  if (m.contains("within")) take_within(m.at("within"));  // written by this code: its shape is known
  check_versions(m.at("versions"));
}

void Checkpoint::take_within(const nlohmann::json& w) {
  const nlohmann::json& mine = w.at("ranks").at(static_cast<std::size_t>(ctx_.rank()));
  within_ = WithinStep{w.at("step").get<int>(),
                       w.at("position").get<std::uint64_t>(),
                       w.at("nest_steps").get<std::uint64_t>(),
                       !mine.is_null(),
                       mine.is_null() ? 0 : mine.at("bytes").get<std::uint64_t>(),
                       mine.is_null() ? 0 : std::stoull(mine.at("checksum").get<std::string>(), nullptr, 16)};
  snapshot_ = w.at("snapshot").get<int>();
}

void Checkpoint::check_versions(const nlohmann::json& versions) {
  for (const auto& [name, list] : versions.items())
    for (const nlohmann::json& v : list) {
      const std::string file = v.at("file").get<std::string>();
      versions_[name].push_back(store_dir_ + "/" + file);
      const auto expected =
          std::pair{v.at("bytes").get<std::uint64_t>(), std::stoull(v.at("checksum").get<std::string>(), nullptr, 16)};
      const std::string path = store_dir_ + "/" + file;
      const auto stamp = file_stamp(path);
      const bool present = ctx_.all_true(stamp && stamp->first == expected.first);
      if (!present || file_checksum(ctx_, path) != expected.second)
        throw Error(
            fmt::format("cannot resume from {}: the store's file {} has changed since the checkpoint", dir_, file));
      sums_[file] = expected;
    }
}

std::pair<std::uint64_t, std::uint64_t> Checkpoint::summed(const std::string& name) {
  if (const auto it = sums_.find(name); it != sums_.end()) return it->second;
  const std::string path = store_dir_ + "/" + name;
  const auto stamp = file_stamp(path);
  const std::uint64_t sum = file_checksum(ctx_, path);
  return sums_[name] = {stamp ? stamp->first : 0, sum};
}

void Checkpoint::write_manifest(int steps_done, const std::map<std::string, std::vector<std::string>>& versions,
                                const nlohmann::json& within) {
  nlohmann::json listed = nlohmann::json::object();
  std::set<std::string> named;
  for (const auto& [tensor, paths] : versions) {
    nlohmann::json list = nlohmann::json::array();
    for (const std::string& path : paths) {
      const std::string name = file_name(path);
      const auto [bytes, sum] = summed(name);
      list.push_back({{"file", name}, {"bytes", bytes}, {"checksum", hex(sum)}});
      named.insert(path);
    }
    listed[tensor] = list;
  }
  if (!sync_results_)  // the files the manifest names are on disk first (RunOptions::sync_results)
    ctx_.check_all([&] { sync_file_system(store_dir_); });
  ctx_.check_root([&] {
    nlohmann::json m = {{"format", kFormat},
                        {"identity", identity_},
                        {"steps", info_.steps},
                        {"steps_done", steps_done},
                        {"versions", listed}};
    if (!within.is_null()) m["within"] = within;
    write_json_atomically(manifest_, m);
    for (const std::string& path : doomed_)
      if (named.count(path) == 0) std::remove(path.c_str());
  });
  for (auto it = doomed_.begin(); it != doomed_.end();) {
    if (named.count(*it) == 0) sums_.erase(file_name(*it));
    it = named.count(*it) == 0 ? doomed_.erase(it) : std::next(it);
  }
}

void Checkpoint::save(int steps_done, const std::map<std::string, std::vector<std::string>>& versions) {
  write_manifest(steps_done, versions, nullptr);
  if (snapshot_ == 0) return;
  for (int x : {1, 2}) std::remove(snapshot_path(x).c_str());  // no longer named
  snapshot_ = 0;
}

void Checkpoint::save_within(int steps_done, const std::map<std::string, std::vector<std::string>>& versions,
                             WithinStep within, const PartialC& c) {
  const int next = snapshot_ == 1 ? 2 : 1;  // never the snapshot the manifest on disk names
  within.has_file = c.held();
  ctx_.check_all([&] {
    if (!within.has_file) return;
    std::error_code ec;
    fs::create_directories(fs::path(snapshot_path(next)).parent_path(), ec);
    if (ec)
      throw Error(
          fmt::format("cannot create {}: {}", fs::path(snapshot_path(next)).parent_path().string(), ec.message()));
    std::tie(within.bytes, within.checksum) = save_partial(c, snapshot_path(next));
  });
  const std::vector<std::uint64_t> has = ctx_.gather_u64(within.has_file ? 1 : 0),
                                   bytes = ctx_.gather_u64(within.bytes), sums = ctx_.gather_u64(within.checksum);
  nlohmann::json ranks = nlohmann::json::array();
  for (std::size_t q = 0; q < has.size(); ++q)
    ranks.push_back(has[q] != 0 ? nlohmann::json{{"bytes", bytes[q]}, {"checksum", hex(sums[q])}} : nlohmann::json());
  write_manifest(steps_done, versions,
                 {{"step", within.step},
                  {"position", within.position},
                  {"nest_steps", within.nest_steps},
                  {"snapshot", next},
                  {"ranks", ranks}});
  if (snapshot_ != 0) std::remove(snapshot_path(snapshot_).c_str());  // no longer named
  snapshot_ = next;
}

void Checkpoint::restore_within(const PartialC& c) {
  const WithinStep& w = *within_;
  ctx_.check_all([&] {
    if (w.has_file != c.held() ||
        (w.has_file && restore_partial(snapshot_path(snapshot_), c) != std::pair{w.bytes, w.checksum}))
      throw Error(
          fmt::format("cannot resume from {}: the partial result of step {} on rank {} has changed since the "
                      "checkpoint",
                      dir_, w.step, ctx_.rank()));
  });
}

std::string Checkpoint::snapshot_path(int x) const {
  return fmt::format("{}/rank-{}/within.{}.C.bin", dir_, ctx_.rank(), x);
}

void Checkpoint::discard() {
  ctx_.check_root([&] {
    std::error_code ignored;
    fs::remove_all(store_dir_, ignored);
    for (int q = 0; q < ctx_.size(); ++q) fs::remove_all(fmt::format("{}/rank-{}", dir_, q), ignored);
    fs::remove(manifest_, ignored);
    fs::remove(dir_ + "/lock", ignored);  // the run is done: another may take DIR
    fs::remove(dir_, ignored);            // only when empty
  });
}

}  // namespace tcert

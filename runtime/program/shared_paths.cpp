// runtime/program/shared_paths.cpp — every rank sees the run's shared paths as rank 0 does.
#include "runtime/program/shared_paths.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <random>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "runtime/base/error.h"

namespace tcert {

namespace fs = std::filesystem;

namespace {

/// The probe file rank 0 writes in `dir` for `token`.
std::string probe_path(const std::string& dir, const std::string& token) { return dir + "/.tcec-shared-" + token; }

/// Size of file `path` in bytes, or -1 when this process cannot see it.
long long size_of(const std::string& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? -1 : static_cast<long long>(size);
}

/// Whether `dir` holds the probe file of `token` with `token` in it.
bool sees_probe(const std::string& dir, const std::string& token) {
  std::ifstream in(probe_path(dir, token));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text == token;
}

/// A path rank 0 does not check again: it passed in an earlier run of this process.
constexpr long long kPassedBefore = -2;

/// What rank 0 saw: its host, the probe token, and per path whether it was probed (a directory)
/// or its size (a file). One line each, so that it crosses in one broadcast.
struct RootView {
  std::string host;
  std::string token;
  /// directory: 1 probed, 0 not (rank 0 has no such directory); file: size in bytes, or -1
  /// (rank 0 has no such file); either: kPassedBefore
  std::vector<long long> seen;

  std::string encode() const {
    std::string text = host + "\n" + token + "\n";
    for (long long s : seen) text += std::to_string(s) + "\n";
    return text;
  }
  static RootView decode(const std::string& text) {
    std::istringstream in(text);
    RootView view;
    std::getline(in, view.host);
    std::getline(in, view.token);
    for (std::string line; std::getline(in, line);) view.seen.push_back(std::stoll(line));
    return view;
  }
};

/// Rank 0's view of `paths`, writing a probe file in each directory it has and has not seen pass
/// (`passed`).
RootView root_view(const std::vector<SharedPath>& paths, const std::set<std::pair<std::string, bool>>& passed) {
  RootView view{
      host_name(), fmt::format("{:08x}{:08x}", std::random_device{}(), static_cast<unsigned>(::getpid())), {}};
  for (const SharedPath& p : paths) {
    if (passed.count({p.path, p.directory})) {
      view.seen.push_back(kPassedBefore);
    } else if (!p.directory) {
      view.seen.push_back(size_of(p.path));
    } else {
      std::error_code ec;
      bool probed = false;
      if (fs::is_directory(p.path, ec)) {
        std::ofstream out(probe_path(p.path, view.token));
        out << view.token;
        out.close();
        probed = out.good();
      }
      view.seen.push_back(probed ? 1 : 0);
    }
  }
  return view;
}

/// This rank's first difference from rank 0's `view` of `paths`, or nullopt.
std::optional<std::string> difference(int rank, const RootView& view, const std::vector<SharedPath>& paths) {
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const SharedPath& p = paths[i];
    const bool same = p.directory ? view.seen[i] != 1 || sees_probe(p.path, view.token)
                                  : view.seen[i] < 0 || size_of(p.path) == view.seen[i];
    if (!same)
      return fmt::format(
          "rank {} (host {}) does not see {} {} as rank 0 (host {}) does: it must be on a file system every node "
          "mounts (a node-local directory is seen by the ranks of one node only)",
          rank, host_name(), p.role, p.path, view.host);
  }
  return std::nullopt;
}

}  // namespace

std::string host_name() {
  char name[256] = {};
  return ::gethostname(name, sizeof(name) - 1) == 0 ? std::string(name) : std::string("?");
}

std::vector<SharedPath> shared_paths(const RunOptions& options, const TensorLocations& tensors) {
  std::vector<SharedPath> paths;
  for (const auto& [name, file] : tensors.outputs) {
    const std::string dir = fs::path(file.path).parent_path().string();
    paths.push_back({dir.empty() ? "." : dir, "the output directory of " + name, true});
  }
  if (!options.checkpoint.empty()) paths.push_back({options.checkpoint, "the checkpoint directory", true});
  for (const auto& [name, file] : tensors.inputs) paths.push_back({file.path, "the file of input " + name, false});
  return paths;
}

void check_shared_paths(const Context& ctx, const std::vector<SharedPath>& paths) {
  if (ctx.size() == 1 || paths.empty()) return;  // the same on every rank
  // Rank 0's record of the paths that passed decides what is checked, so that every rank takes
  // part in the same collectives whatever runs each process made before.
  static std::mutex mutex;  // runs on several threads (the library form) share it
  static std::set<std::pair<std::string, bool>> passed;
  const RootView view = RootView::decode(ctx.root_value([&] {
    std::lock_guard<std::mutex> lock(mutex);
    return root_view(paths, passed).encode();
  }));
  const std::optional<std::string> error = ctx.first_error(difference(ctx.rank(), view, paths));
  if (ctx.rank() != 0) {
    if (error) throw Error(*error);
    return;
  }
  std::lock_guard<std::mutex> lock(mutex);
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].directory && view.seen[i] == 1) {
      std::error_code ignored;
      fs::remove(probe_path(paths[i].path, view.token), ignored);
    }
    const bool checked = paths[i].directory ? view.seen[i] == 1 : view.seen[i] >= 0;
    if (!error && checked) passed.emplace(paths[i].path, paths[i].directory);
  }
  if (error) throw Error(*error);
}

}  // namespace tcert

// runtime/program/tensor_files.cpp — locations checked, HDF5 inputs imported, outputs exported.
#include "runtime/program/tensor_files.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <system_error>

#include <fmt/format.h>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "runtime/base/fault.h"
#include "runtime/index/split_map.h"
#include "runtime/program/direct_result.h"
#include "runtime/program/hdf5_io.h"
#include "runtime/spec/units.h"
#include "runtime/storage/element_file.h"
#include "runtime/storage/npy.h"
#include "runtime/storage/spare_files.h"

namespace tcert {

namespace {

namespace fs = std::filesystem;

/// Rank r's balanced range [first, last) of n elements over P ranks.
std::pair<std::uint64_t, std::uint64_t> balanced_range(const Context& ctx, std::uint64_t n) {
  const auto N = static_cast<std::int64_t>(n), P = static_cast<std::int64_t>(ctx.size()),
             r = static_cast<std::int64_t>(ctx.rank());
  const auto first = static_cast<std::uint64_t>(piece_start(N, P, r));
  return {first, first + static_cast<std::uint64_t>(piece(N, P, r))};
}

std::string names_of(const std::vector<TensorShape>& tensors) {
  std::vector<std::string> names;
  for (const TensorShape& t : tensors) names.push_back(t.name);
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

template <class Location>
void check_names(const char* role, const std::map<std::string, Location>& given,
                 const std::vector<TensorShape>& known) {
  for (const auto& [name, file] : given)
    if (std::none_of(known.begin(), known.end(), [&](const TensorShape& t) { return t.name == name; }))
      throw Error(fmt::format("{} {}: the program has no {} of that name (its {}s: {})", role, name, role, role,
                              names_of(known)));
}

FileFormat format_of(const char* role, const std::string& name, const TensorFile& file) {
  const std::optional<FileFormat> format = file_format(file.path);
  if (!format)
    throw Error(fmt::format("{} {}: unknown format of {} (expected .npy, .h5 or .hdf5)", role, name, file.path));
  return *format;
}

void check_input(const TensorShape& input, const TensorFile& file) {
  if (format_of("input", input.name, file) == FileFormat::Hdf5)
    return check_hdf5_input(input.name, file, input.extents);
  const std::vector<std::uint64_t> expected(input.extents.begin(), input.extents.end());
  check_shape(read_npy_header(file.path), expected, input.name);
}

void check_outputs(const TensorLocations& tensors) {
  std::map<std::string, std::pair<FileFormat, std::string>> files;  // path → its format, the first output in it
  std::set<std::pair<std::string, std::string>> datasets;           // (HDF5 path, dataset)
  for (const auto& [name, file] : tensors.outputs) {
    const FileFormat format = format_of("output", name, file);
    const auto [at, fresh] = files.try_emplace(file.path, format, name);
    if (!fresh && (format == FileFormat::Npy || at->second.first == FileFormat::Npy))
      throw Error(fmt::format("output {}: {} is also the file of output {}", name, file.path, at->second.second));
    if (format == FileFormat::Hdf5 && !datasets.emplace(file.path, file.dataset.empty() ? name : file.dataset).second)
      throw Error(fmt::format("output {}: its dataset in {} is also another output's", name, file.path));
    const fs::path directory = fs::path(file.path).parent_path();
    std::error_code ec;
    if (!directory.empty()) fs::create_directories(directory, ec);
    if (ec)
      throw Error(fmt::format("output {}: cannot create directory {}: {}", name, directory.string(), ec.message()));
  }
}

/// Files written under temporary names and renamed together by rank 0; those not renamed are
/// removed at destruction (rank 0).
class PendingFiles {
 public:
  explicit PendingFiles(const Context& ctx) : ctx_(ctx) {}
  ~PendingFiles() {
    if (ctx_.rank() != 0) return;
    std::error_code ignored;
    for (const auto& [temp, path] : files_) fs::remove(temp, ignored);
  }
  PendingFiles(const PendingFiles&) = delete;
  PendingFiles& operator=(const PendingFiles&) = delete;

  /// A temporary name for `path`, the same on every rank (rank 0's process id). Collective.
  std::string add(const std::string& path) {
    const std::string temp = ctx_.bcast_string(fmt::format("{}.tmp-{}", path, ::getpid()));
    files_.emplace_back(temp, path);
    return temp;
  }
  /// Takes `temp`, a complete file every rank knows by that name, to be renamed to `path` with
  /// the others (a program output's version written beside it: TensorStore::add_output_version()).
  void adopt(const std::string& temp, const std::string& path) { files_.emplace_back(temp, path); }
  /// Rank 0 renames every file into place. Collective; Error on every rank on failure.
  void commit() {
    ctx_.check_root([&] {
      while (!files_.empty()) {
        const auto [temp, path] = files_.back();
        if (const int err = replace_file(temp, path, &spare_files()); err != 0)
          throw Error(
              fmt::format("cannot write {}: {}", path, std::error_code(err, std::generic_category()).message()));
        files_.pop_back();
      }
    });
    files_.clear();
  }

 private:
  const Context& ctx_;
  std::vector<std::pair<std::string, std::string>> files_;  // (temporary, final)
};

/// The output's latest version in the store, mapped on every rank. Error on every rank.
std::unique_ptr<NpyReader> stored(Run& run, const std::string& name) {
  std::unique_ptr<NpyReader> reader;
  run.context().check_all([&] {
    const std::string path = run.store().latest(name);
    if (path.empty()) throw Error("output " + name + ": no statement of the program wrote it");
    run.held().write_out(path);  // held unwritten (one rank): into its file first
    reader = std::make_unique<NpyReader>(path);
  });
  return reader;
}

void export_npy(Run& run, const TensorShape& output, const std::string& temp) {
  run.context().check_root([&] {
    const std::string from = run.store().latest(output.name);
    if (from.empty()) throw Error("output " + output.name + ": no statement of the program wrote it");
    if (const FileMemory* held = run.held().unwritten(from)) {  // the store has no up-to-date file of it
      write_npy_file(temp, {output.extents.begin(), output.extents.end()}, held->data(), false, &spare_files());
    } else if (run.store().contains(from) && link_file(from, temp)) {
      return;  // no byte moves: the store's name goes with the store, the output keeps the data
    } else {
      copy_file_streamed(from, temp);
    }
    counters().add_disk_read(bytes_of(output.elements()));
    counters().add_disk_write(bytes_of(output.elements()));
    counters().add_disk_requests(2);
  });
}

/// Writes every (output, dataset) into `file`: each rank its balanced range of the output's latest
/// version. Collective; Error on every rank.
void write_datasets(Run& run, Hdf5Output& file, const std::vector<std::pair<TensorShape, std::string>>& datasets) {
  const Context& ctx = run.context();
  for (const auto& [output, dataset] : datasets) {
    const std::unique_ptr<NpyReader> from = stored(run, output.name);
    const auto [first, last] = balanced_range(ctx, output.elements());
    std::uint64_t since_drop = 0;
    file.write(output.name, dataset, output.extents, first, last, first < last ? from->data() + first : nullptr,
               [&](std::uint64_t elements) {
                 counters().add_disk_read(bytes_of(elements));
                 counters().add_disk_write(bytes_of(elements));
                 counters().add_disk_requests(2);
                 if ((since_drop += elements) < elems_of(MappedInputs::kDropBytes)) return;
                 from->drop_pages();
                 since_drop = 0;
               });
  }
}

/// Writes the HDF5 file `temp` holding `datasets` (output, dataset name), and closes it, also on
/// failure. Collective; Error on every rank.
void export_hdf5(Run& run, const std::string& temp, const std::vector<std::pair<TensorShape, std::string>>& datasets) {
  const Context& ctx = run.context();
  Hdf5Output file(ctx, temp, datasets.front().first.name);
  try {
    write_datasets(run, file, datasets);
  } catch (...) {  // thrown on every rank (check_all): close the file on all before going on
    try {
      file.close();
    } catch (const Error&) {  // the first failure is the one to report
    }
    throw;
  }
  file.close();
}

/// Copies this rank's part of `input` into the store's first version of it (a DirectResult):
/// 8 bytes written per element, one request. Collective; Error on every rank on failure.
void import_part(Run& run, const TensorShape& input, const TensorPart& part) {
  const std::uint64_t n = part.data.size();
  DirectResult version(run, input, n > 0, DirectResult::Update::NextVersion, false, false);  // filled through data()
  if (n > 0) {
    std::copy(part.data.begin(), part.data.end(), version.data() + part.first);
    counters().add_disk_write(bytes_of(n));
    counters().add_disk_requests(1);
    version.wrote(bytes_of(n));
  }
  version.commit(run.context());
}

/// Copies this rank's part of the latest version of `output` into part.data, in chunks of
/// MappedInputs::kDropBytes between which the mapping's pages are dropped: 8 bytes read per
/// element, one request. Collective; Error on every rank on failure.
void export_part(Run& run, const TensorShape& output, const TensorPart& part) {
  const std::unique_ptr<NpyReader> from = stored(run, output.name);
  const std::uint64_t n = part.data.size(), chunk = elems_of(MappedInputs::kDropBytes);
  for (std::uint64_t done = 0; done < n; done += chunk) {
    const std::uint64_t k = std::min(chunk, n - done);
    std::copy_n(from->data() + part.first + done, k, part.data.data() + done);
    if (done + k < n) from->drop_pages();
  }
  if (n > 0) {
    counters().add_disk_read(bytes_of(n));
    counters().add_disk_requests(1);
  }
}

}  // namespace

void check_locations(const ProgramInfo& info, const TensorLocations& tensors, const RunOptions& options) {
  check_names("input", tensors.inputs, info.inputs);
  check_names("output", tensors.outputs, info.outputs);
  check_names("input", tensors.input_parts, info.inputs);
  check_names("output", tensors.output_parts, info.outputs);
  for (const auto& [name, part] : tensors.input_parts)
    if (tensors.inputs.count(name))
      throw Error(fmt::format("input {}: given both as a file and as parts in memory", name));
  for (const auto& [name, part] : tensors.output_parts)
    if (tensors.outputs.count(name))
      throw Error(fmt::format("output {}: given both as a file and as parts in memory", name));
  for (const TensorShape& input : info.inputs) {
    const auto at = tensors.inputs.find(input.name);
    if (at != tensors.inputs.end())
      check_input(input, at->second);
    else if (!tensors.input_parts.count(input.name) && !options.random_seed)
      throw Error("input " + input.name + ": no location given and no random seed");
  }
  check_outputs(tensors);
}

void check_parts(const Context& ctx, const ProgramInfo& info, const TensorLocations& tensors) {
  struct Given {
    const char* role;
    const TensorShape* tensor;
    const std::map<std::string, TensorPart>* parts;  // this rank's parts of its role
  };
  std::vector<Given> all;  // every rank the same
  for (const TensorShape& t : info.inputs) all.push_back({"input", &t, &tensors.input_parts});
  for (const TensorShape& t : info.outputs) all.push_back({"output", &t, &tensors.output_parts});
  std::vector<std::uint64_t> mine;  // per tensor: has parts, first, count
  for (const auto& [role, t, parts_of_role] : all) {
    const std::map<std::string, TensorPart>& parts = *parts_of_role;
    const auto at = parts.find(t->name);
    mine.push_back(at != parts.end() ? 1 : 0);
    mine.push_back(at != parts.end() ? at->second.first : 0);
    mine.push_back(at != parts.end() ? at->second.data.size() : 0);
  }
  const std::vector<std::vector<std::uint64_t>> every = ctx.gather_u64s(mine);
  for (std::size_t k = 0; k < all.size(); ++k) {
    const auto& [role, t, parts_of_role] = all[k];
    const std::vector<std::uint64_t>& has = every[3 * k];
    const std::vector<std::uint64_t>& first = every[3 * k + 1];
    const std::vector<std::uint64_t>& count = every[3 * k + 2];
    const auto given = static_cast<std::size_t>(std::count(has.begin(), has.end(), 1));
    if (given == 0) continue;
    if (given != has.size()) {
      const auto missing = std::find(has.begin(), has.end(), 0) - has.begin();
      throw Error(
          fmt::format("{} {}: given as parts in memory on some ranks but not on rank {}", role, t->name, missing));
    }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // [first, end) of the non-empty parts
    for (std::size_t q = 0; q < has.size(); ++q) {
      if (first[q] > t->elements() || count[q] > t->elements() - first[q])
        throw Error(fmt::format("{} {}: rank {}'s part [{}, {}) is outside its {} elements", role, t->name, q, first[q],
                                first[q] + count[q], t->elements()));
      if (count[q] > 0) ranges.emplace_back(first[q], first[q] + count[q]);
    }
    std::sort(ranges.begin(), ranges.end());
    std::uint64_t covered = 0;
    for (const auto& [lo, hi] : ranges) {
      if (lo != covered)
        throw Error(fmt::format("{} {}: its parts in memory {} element {} (every element must be in one part)", role,
                                t->name, lo < covered ? "overlap at" : "miss", lo < covered ? lo : covered));
      covered = hi;
    }
    if (covered != t->elements())
      throw Error(fmt::format("{} {}: its parts in memory miss element {} (every element must be in one part)", role,
                              t->name, covered));
  }
}

void import_inputs(Run& run) {
  PhaseScope phase(Phase::Import);
  const Context& ctx = run.context();
  for (const TensorShape& input : run.info().inputs) {
    if (const auto part = run.tensors().input_parts.find(input.name); part != run.tensors().input_parts.end()) {
      import_part(run, input, part->second);
      continue;
    }
    const auto at = run.tensors().inputs.find(input.name);
    if (at == run.tensors().inputs.end() || file_format(at->second.path) != FileFormat::Hdf5) continue;
    const auto [first, last] = balanced_range(ctx, input.elements());
    DirectResult version(run, input, first < last, DirectResult::Update::NextVersion, false,
                         false);  // HDF5 reads into data()
    read_hdf5_range(ctx, input.name, at->second, input.extents, first, last,
                    first < last ? version.data() + first : nullptr, [&](std::uint64_t elements) {
                      counters().add_disk_read(bytes_of(elements));
                      counters().add_disk_write(bytes_of(elements));
                      counters().add_disk_requests(2);
                      version.wrote(bytes_of(elements));
                    });
    version.commit(ctx);
  }
}

void export_outputs(Run& run) {
  PhaseScope phase(Phase::Export);
  PendingFiles pending(run.context());
  std::map<std::string, std::vector<std::pair<TensorShape, std::string>>> hdf5;  // by path: (tensor, dataset)
  for (const TensorShape& output : run.info().outputs) {
    const auto at = run.tensors().outputs.find(output.name);
    if (at == run.tensors().outputs.end()) continue;
    const TensorFile& file = at->second;
    if (file_format(file.path) != FileFormat::Npy) {
      hdf5[file.path].emplace_back(output, file.dataset.empty() ? output.name : file.dataset);
    } else if (const std::string latest = run.store().latest(output.name); run.store().output_version(latest)) {
      pending.adopt(latest, file.path);  // written in place beside the output: nothing to copy
    } else {
      export_npy(run, output, pending.add(file.path));
    }
  }
  for (const auto& [path, datasets] : hdf5) export_hdf5(run, pending.add(path), datasets);
  for (const TensorShape& output : run.info().outputs)
    if (const auto part = run.tensors().output_parts.find(output.name); part != run.tensors().output_parts.end())
      export_part(run, output, part->second);
  fault_point(run.context().rank(), "export");
  pending.commit();
}

}  // namespace tcert

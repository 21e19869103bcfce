// frontend/symmetry_options.cpp — --point-group, --restricted and --irreps (symmetry_options.h).
#include "frontend/symmetry_options.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace tcec::frontend {

namespace {

/// "3,0,1,1" as whole numbers, or nullopt.
std::optional<std::vector<std::uint64_t>> counts_of(const std::string& text) {
  std::vector<std::uint64_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long n = std::strtoull(item.c_str(), &end, 10);
    if (item.empty() || errno != 0 || *end != '\0' || item[0] == '-' || n > ir::kMaxRangeExtent) return std::nullopt;
    out.push_back(n);
  }
  if (out.empty() || text.back() == ',') return std::nullopt;
  return out;
}

}  // namespace

bool apply_symmetry_options(ir::Program& program, const Options& options, Reporter& r) {
  if (options.point_group.empty() && !options.restricted && options.irreps.empty()) return true;
  const int errors = r.error_count();
  if (!options.point_group.empty()) {
    const std::optional<int> irreps = ir::point_group_irreps(options.point_group);
    if (!irreps) {
      r.report(DiagId::err_cli_point_group, {}, options.point_group);
      return false;
    }
    program.symmetry = ir::PointGroup{options.point_group, *irreps, options.restricted, {}};
  } else if (!program.symmetry) {
    r.report(DiagId::err_cli_symmetry_needed, {}, options.restricted ? "--restricted" : "--irreps");
    return false;
  } else if (options.restricted) {
    program.symmetry->restricted = true;
  }
  const ir::PointGroup& group = *program.symmetry;
  for (const std::string& given : options.irreps) {
    const auto eq = given.find('=');
    const std::optional<std::vector<std::uint64_t>> counts =
        eq == std::string::npos ? std::nullopt : counts_of(given.substr(eq + 1));
    if (!counts) {
      r.report(DiagId::err_cli_irreps_syntax, {}, given);
      continue;
    }
    const int range = program.find_range(given.substr(0, eq));
    if (range < 0) {
      r.report(DiagId::err_cli_irreps_unknown_range, {}, given, given.substr(0, eq));
      continue;
    }
    ir::Range& target = program.ranges[static_cast<std::size_t>(range)];
    std::uint64_t spatial = 0;
    for (std::uint64_t n : *counts) spatial += n;
    if (static_cast<int>(counts->size()) != group.irreps)
      r.report(DiagId::err_cli_irreps_count, {}, given, counts->size(), group.name, group.irreps);
    else if (2 * spatial != target.extent)
      r.report(DiagId::err_cli_irreps_extent, {}, given, spatial, 2 * spatial, target.name, target.extent);
    else
      target.irreps = *counts;
  }
  for (const ir::Range& range : program.ranges)  // irreps a .tce file gave for another group
    if (!range.irreps.empty() && static_cast<int>(range.irreps.size()) != group.irreps)
      r.report(DiagId::err_cli_irreps_count, {}, range.name, range.irreps.size(), group.name, group.irreps);
  if (r.error_count() > errors) return false;
  for (const ir::Tensor& t : program.tensors) {
    if (t.dense) continue;
    for (int d : t.dims)
      if (program.ranges[static_cast<std::size_t>(d)].irreps.empty()) {
        const std::string& name = program.ranges[static_cast<std::size_t>(d)].name;
        r.report(DiagId::err_cli_range_without_irreps, {}, t.name, group.name, name, name);
        return false;
      }
  }
  return true;
}

}  // namespace tcec::frontend

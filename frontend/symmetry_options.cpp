// frontend/symmetry_options.cpp — --point-group, --restricted and --irreps (symmetry_options.h).
#include "frontend/symmetry_options.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>
#include <sstream>

#include <fmt/format.h>

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

bool check_antisymmetry(const ir::Program& program, Reporter& r) {
  if (!program.symmetry) return true;
  bool ok = true;
  for (const ir::Statement& s : program.statements) {
    const ir::Tensor& result = program.tensors[static_cast<std::size_t>(s.result.tensor)];
    if (s.antisymmetrized || result.dense) continue;
    for (const std::vector<int>& run : ir::antisymmetric_runs(result)) {
      std::vector<std::string> names, from;                   // the run's indices, and where each comes from
      std::set<std::pair<std::size_t, std::size_t>> sources;  // (operand, its run) of each index
      bool in_runs = true;                                    // every index in a run of its operand
      for (int d : run) {
        const int index = s.result.indices[static_cast<std::size_t>(d)];
        names.push_back(program.indices[static_cast<std::size_t>(index)].name);
        for (std::size_t k = 0; k < s.operands.size(); ++k) {
          const ir::TensorRef& op = s.operands[k];
          const auto at = std::find(op.indices.begin(), op.indices.end(), index);
          if (at == op.indices.end()) continue;
          const ir::Tensor& t = program.tensors[static_cast<std::size_t>(op.tensor)];
          const auto pos = static_cast<int>(at - op.indices.begin());
          const std::vector<std::vector<int>> runs = ir::antisymmetric_runs(t);
          std::size_t which = runs.size();  // none
          for (std::size_t q = 0; q < runs.size(); ++q)
            if (std::find(runs[q].begin(), runs[q].end(), pos) != runs[q].end()) which = q;
          sources.insert({k, which});
          in_runs = in_runs && which < runs.size();
          from.push_back(fmt::format("{} is dimension {} of '{}'{}", names.back(), pos + 1, t.name,
                                     which == runs.size() ? " (in no antisymmetric run of it)" : ""));
        }
      }
      if (in_runs && sources.size() == 1) continue;  // one run of one operand
      r.report(DiagId::err_breaks_antisymmetry, s.result.loc, result.name, fmt::format("{}", fmt::join(names, ", ")),
               fmt::format("{}", fmt::join(from, ", ")), result.name);
      ok = false;
    }
  }
  return ok;
}

}  // namespace tcec::frontend

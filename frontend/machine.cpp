// frontend/machine.cpp — machine blocks: properties, units, required fields.
// Units: B KB MB GB TB are powers of 10^3, KiB MiB GiB TiB powers of 2^10;
// bandwidths are a size unit per second ("MB/s" = 10^6 bytes per second).
#include "frontend/machine.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>

#include "frontend/syntax.h"

namespace tcec::frontend {

namespace {

using grammar::TceParser;

enum class Kind { Count, Size, Bandwidth, Factor, ElementSize, Duration, Rate, Fraction };

struct Property {
  const char* name;
  Kind kind;
};

// clang-format off
constexpr Property kProperties[] = {
    {"processors", Kind::Count},
    {"memory", Kind::Size},
    {"network", Kind::Bandwidth},
    {"disk", Kind::Bandwidth},
    {"disk_read", Kind::Bandwidth},
    {"disk_write", Kind::Bandwidth},
    {"element_size", Kind::ElementSize},
    {"replication_factor", Kind::Factor},
    {"reduction_factor", Kind::Factor},
    {"disk_latency", Kind::Duration},
    {"page_fault", Kind::Duration},
    {"flops", Kind::Rate},
    {"memory_bandwidth", Kind::Bandwidth},
    {"overlap", Kind::Fraction},
    {"ranks_per_node", Kind::Count},
    {"internode_network", Kind::Bandwidth},
    {"direct_read_bytes", Kind::Size},
    {"disk_mixed", Kind::Bandwidth},
    {"buffered_overlap", Kind::Fraction},
};
// clang-format on

const char* kPropertyList =
    "processors, memory, network, disk, disk_read, disk_write, element_size, "
    "replication_factor, reduction_factor, disk_latency, page_fault, flops, memory_bandwidth, overlap, ranks_per_node, "
    "internode_network, direct_read_bytes, disk_mixed, buffered_overlap";
const char* kSizeUnits = "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB";
const char* kBandwidthUnits = "B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s";
const char* kDurationUnits = "s, ms, us, ns";
const char* kRateUnits = "FLOP/s, MFLOP/s, GFLOP/s, TFLOP/s";

std::optional<double> rate_unit(const std::string& u) {
  static const std::map<std::string, double> units = {
      {"FLOP/s", 1.0}, {"MFLOP/s", 1e6}, {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}};
  auto it = units.find(u);
  if (it == units.end()) return std::nullopt;
  return it->second;
}

std::optional<double> duration_unit(const std::string& u) {
  static const std::map<std::string, double> units = {{"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  auto it = units.find(u);
  if (it == units.end()) return std::nullopt;
  return it->second;
}

std::optional<double> size_unit(const std::string& u) {
  static const std::map<std::string, double> units = {
      {"B", 1.0},         {"KB", 1e3},           {"MB", 1e6},
      {"GB", 1e9},        {"TB", 1e12},          {"KiB", 1024.0},
      {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
  auto it = units.find(u);
  if (it == units.end()) return std::nullopt;
  return it->second;
}

const Property* find_property(const std::string& name) {
  for (const Property& p : kProperties) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

// The unit's multiplier for `kind`, or nullopt after reporting what is wrong.
std::optional<double> unit_factor(Kind kind, TceParser::MachinePropContext& prop, Reporter& r) {
  const std::string key = prop.key->getText();
  auto* unit = prop.unit();
  const std::string text = unit ? unit->getText() : "";
  const auto loc = unit ? location_of(unit->getStart()) : location_of(prop.key);
  switch (kind) {
    case Kind::Count:
    case Kind::Factor:
    case Kind::Fraction:
      if (!unit) return 1.0;
      r.report(DiagId::err_unexpected_unit, loc, key, text);
      return std::nullopt;
    case Kind::ElementSize:
      if (!unit || text == "B") return 1.0;
      r.report(DiagId::err_bad_unit, loc, text, key, "B");
      return std::nullopt;
    case Kind::Duration: {
      const auto factor = unit && unit->ID().size() == 1 ? duration_unit(text) : std::nullopt;
      if (!unit)
        r.report(DiagId::err_missing_unit, location_of(prop.value->getStop()), key, kDurationUnits);
      else if (!factor)
        r.report(DiagId::err_bad_unit, loc, text, key, kDurationUnits);
      return factor;
    }
    case Kind::Rate: {
      const auto factor = unit ? rate_unit(text) : std::nullopt;
      if (!unit)
        r.report(DiagId::err_missing_unit, location_of(prop.value->getStop()), key, kRateUnits);
      else if (!factor)
        r.report(DiagId::err_bad_unit, loc, text, key, kRateUnits);
      return factor;
    }
    case Kind::Size:
    case Kind::Bandwidth: break;
  }
  const char* list = kind == Kind::Size ? kSizeUnits : kBandwidthUnits;
  if (!unit) {
    r.report(DiagId::err_missing_unit, location_of(prop.value->getStop()), key, list);
    return std::nullopt;
  }
  const bool per_second = unit->ID().size() == 2 && unit->ID(1)->getText() == "s";
  auto factor = size_unit(unit->ID(0)->getText());
  if (!factor || (kind == Kind::Bandwidth) != per_second || (kind == Kind::Size && unit->ID().size() != 1)) {
    r.report(DiagId::err_bad_unit, loc, text, key, list);
    return std::nullopt;
  }
  return factor;
}

// Checks the value's range for its kind and stores it. False if reported.
bool store(const Property& p, double value, TceParser::MachinePropContext& prop, Reporter& r, ir::MachineDesc& m) {
  const std::string key = p.name;
  const std::string shown = prop.value->getText();
  const auto loc = location_of(prop.value->getStart());
  if (!std::isfinite(value) || value < 0 || (value == 0 && p.kind != Kind::Duration && p.kind != Kind::Fraction)) {
    r.report(DiagId::err_not_positive, loc, key, shown);
    return false;
  }
  if (p.kind == Kind::Fraction && value > 1) {
    r.report(DiagId::err_not_a_fraction, loc, key, shown);
    return false;
  }
  if ((p.kind == Kind::Count || p.kind == Kind::ElementSize) && value != std::floor(value)) {
    r.report(DiagId::err_not_an_integer, loc, key, shown);
    return false;
  }
  const double limit = p.kind == Kind::Count ? 1 << 30 : p.kind == Kind::ElementSize ? 1024 : 9.2e18;
  if (value > limit) {
    r.report(DiagId::err_value_too_large, loc, key, shown);
    return false;
  }
  if (key == "processors")
    m.processors = static_cast<std::int64_t>(value);
  else if (key == "memory")
    m.memory_bytes = static_cast<std::uint64_t>(value);
  else if (key == "network")
    m.network_bytes_per_s = value;
  else if (key == "disk_read")
    m.disk_read_bytes_per_s = value;
  else if (key == "disk_write")
    m.disk_write_bytes_per_s = value;
  else if (key == "element_size")
    m.element_size_bytes = static_cast<std::uint64_t>(value);
  else if (key == "replication_factor")
    m.replication_factor = value;
  else if (key == "reduction_factor")
    m.reduction_factor = value;
  else if (key == "disk_latency")
    m.disk_latency_s = value;
  else if (key == "page_fault")
    m.page_fault_s = value;
  else if (key == "flops")
    m.flops_per_s = value;
  else if (key == "memory_bandwidth")
    m.memory_bytes_per_s = value;
  else if (key == "overlap")
    m.overlap = value;
  else if (key == "ranks_per_node")
    m.ranks_per_node = static_cast<std::int64_t>(value);
  else if (key == "internode_network")
    m.internode_network_bytes_per_s = value;
  else if (key == "direct_read_bytes")
    m.direct_read_bytes = static_cast<std::uint64_t>(value);
  else if (key == "disk_mixed")
    m.disk_mixed_bytes_per_s = value;
  else if (key == "buffered_overlap")
    m.buffered_overlap = value;
  return true;
}

}  // namespace

bool check_machine_block(TceParser::MachineBlockContext& block, Reporter& r, ir::MachineDesc& m) {
  const int errors_before = r.error_count();
  m = ir::MachineDesc{};
  m.name = block.name ? block.name->getText() : "machine";
  m.loc = location_of(block.getStart());
  std::map<std::string, TceParser::MachinePropContext*> seen;
  std::optional<double> disk;
  for (auto* prop : block.machineProp()) {
    const std::string key = prop->key->getText();
    const Property* p = find_property(key);
    if (p == nullptr) {
      r.report(DiagId::err_unknown_machine_property, location_of(prop->key), key, kPropertyList);
      continue;
    }
    if (auto [it, fresh] = seen.emplace(key, prop); !fresh) {
      r.report(DiagId::err_duplicate_machine_property, location_of(prop->key), key);
      r.report(DiagId::note_previous_definition, location_of(it->second->key));
      continue;
    }
    auto factor = unit_factor(p->kind, *prop, r);
    if (!factor) continue;
    const double value = std::strtod(prop->value->getText().c_str(), nullptr) * *factor;
    if (key == "disk") {
      if (store(*p, value, *prop, r, m)) disk = value;
      continue;
    }
    store(*p, value, *prop, r, m);
  }
  if (disk) {
    if (!seen.count("disk_read")) m.disk_read_bytes_per_s = *disk;
    if (!seen.count("disk_write")) m.disk_write_bytes_per_s = *disk;
  }
  const bool has_disk = seen.count("disk") || (seen.count("disk_read") && seen.count("disk_write"));
  for (const char* required : {"processors", "memory", "network"}) {
    if (!seen.count(required)) r.report(DiagId::err_machine_missing_property, m.loc, m.name, required);
  }
  if (!has_disk) r.report(DiagId::err_machine_missing_property, m.loc, m.name, "disk");
  return r.error_count() == errors_before;
}

}  // namespace tcec::frontend

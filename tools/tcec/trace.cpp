// tools/tcec/trace.cpp — read_trace(): a trace file into a Trace, checking its schema.
#include "trace.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tools/diagnostics.h"

namespace tcec::tools {

namespace {

using nlohmann::json;

/// Schema violations, thrown while reading and turned into read_trace's error.
struct SchemaError {
  std::string where, what;
};

const json& member(const json& object, const std::string& where, const char* key) {
  if (!object.is_object()) throw SchemaError{where, "expected an object"};
  auto it = object.find(key);
  if (it == object.end()) throw SchemaError{where.empty() ? key : where + "." + key, "missing"};
  return *it;
}

std::string child(const std::string& where, const char* key) { return where.empty() ? key : where + "." + key; }

std::string text(const json& object, const std::string& where, const char* key) {
  const json& v = member(object, where, key);
  if (!v.is_string()) throw SchemaError{child(where, key), "expected a string"};
  return v.get<std::string>();
}

std::vector<std::uint64_t> counts(const json& object, const std::string& where, const char* key, std::int64_t P) {
  const json& v = member(object, where, key);
  const std::string at = child(where, key);
  const std::string expected = fmt::format("expected {} non-negative integers (one per rank)", P);
  if (!v.is_array() || static_cast<std::int64_t>(v.size()) != P) throw SchemaError{at, expected};
  std::vector<std::uint64_t> out;
  for (const json& x : v) {
    if (!x.is_number_unsigned() && !(x.is_number_integer() && x.get<std::int64_t>() >= 0))
      throw SchemaError{at, expected};
    out.push_back(x.get<std::uint64_t>());
  }
  return out;
}

std::vector<double> seconds(const json& object, const std::string& where, const char* key, std::int64_t P) {
  auto it = object.find(key);
  if (it == object.end()) return {};
  if (!it->is_array() || static_cast<std::int64_t>(it->size()) != P)
    throw SchemaError{child(where, key), fmt::format("expected {} numbers (one per rank)", P)};
  std::vector<double> out;
  for (const json& x : *it) {
    if (!x.is_number()) throw SchemaError{child(where, key), fmt::format("expected {} numbers (one per rank)", P)};
    out.push_back(x.get<double>());
  }
  return out;
}

/// "device_read_bytes" and "device_write_bytes" of `object`, both or neither (empty vectors).
std::array<std::vector<std::uint64_t>, 2> device_pair(const json& object, const std::string& where, std::int64_t P) {
  if (!object.contains("device_read_bytes") && !object.contains("device_write_bytes")) return {};
  return {counts(object, where, "device_read_bytes", P), counts(object, where, "device_write_bytes", P)};
}

/// The trace's "device" object (TraceDevice).
TraceDevice run_device(const json& d, std::int64_t P) {
  TraceDevice out{counts(d, "device", "read_bytes", P),
                  counts(d, "device", "write_bytes", P),
                  counts(d, "device", "cancelled_write_bytes", P),
                  {}};
  const json& phases = member(d, "device", "phases");
  if (!phases.is_object()) throw SchemaError{"device.phases", "expected an object"};
  for (const auto& [name, figures] : phases.items()) {
    const std::string at = "device.phases." + name;
    out.phases[name] = {counts(figures, at, "read_bytes", P), counts(figures, at, "write_bytes", P)};
  }
  return out;
}

TraceContraction contraction(const json& c, const std::string& where, std::int64_t P) {
  TraceContraction out;
  out.statement = text(c, where, "statement");
  out.plan = text(c, where, "plan");
  out.comm = text(c, where, "comm");
  out.algorithm = text(c, where, "algorithm");
  out.order = text(c, where, "order");
  const json& predicted = member(c, where, "predicted");
  const json& measured = member(c, where, "measured");
  for (const tcert::VolumeField& f : tcert::kVolumeFields) {
    const bool requests = f.member == &tcert::RankVolumes::disk_requests;  // optional
    if (requests && !predicted.contains(f.name) && !measured.contains(f.name)) continue;
    if (tcert::optional_field(f)) {  // bytes that cross nodes: only for a machine of several nodes
      if (predicted.contains(f.name)) out.predicted.*f.member = counts(predicted, child(where, "predicted"), f.name, P);
      if (measured.contains(f.name)) out.measured.*f.member = counts(measured, child(where, "measured"), f.name, P);
      continue;
    }
    out.predicted.*f.member = counts(predicted, child(where, "predicted"), f.name, P);
    out.measured.*f.member = counts(measured, child(where, "measured"), f.name, P);
  }
  out.seconds = seconds(measured, child(where, "measured"), "seconds", P);
  out.disk_seconds = seconds(measured, child(where, "measured"), "disk_seconds", P);
  out.comm_seconds = seconds(measured, child(where, "measured"), "comm_seconds", P);
  out.kernel_seconds = seconds(measured, child(where, "measured"), "kernel_seconds", P);
  out.device = device_pair(measured, child(where, "measured"), P);
  if (measured.contains("resumed_at_nest_step")) {
    const json& r = measured["resumed_at_nest_step"];
    if (!r.is_array() || r.size() != 2 || !r[0].is_number_unsigned() || !r[1].is_number_unsigned())
      throw SchemaError{child(child(where, "measured"), "resumed_at_nest_step"), "expected [done, of] (integers)"};
    out.resumed_at = r[0].get<std::uint64_t>(), out.nest_steps = r[1].get<std::uint64_t>();
  }
  if (predicted.contains("seconds")) {
    if (!predicted["seconds"].is_number())
      throw SchemaError{child(child(where, "predicted"), "seconds"), "expected a number"};
    out.predicted_seconds = predicted["seconds"].get<double>();
  }
  if (c.contains("redistribution")) {
    const std::string at = child(where, "redistribution");
    const json& r = member(c, where, "redistribution");
    const json& p = member(r, at, "predicted");
    const json& m = member(r, at, "measured");
    for (const tcert::VolumeField& f : tcert::kStageVolumeFields) {
      if (tcert::optional_field(f)) {
        if (p.contains(f.name)) out.redistribution_predicted.*f.member = counts(p, child(at, "predicted"), f.name, P);
        if (m.contains(f.name)) out.redistribution_measured.*f.member = counts(m, child(at, "measured"), f.name, P);
        continue;
      }
      const bool requests = f.member == &tcert::RankVolumes::disk_requests;
      if (requests && !(p.contains(f.name) && m.contains(f.name))) break;  // an older trace: no requests
      out.redistribution_predicted.*f.member = counts(p, child(at, "predicted"), f.name, P);
      out.redistribution_measured.*f.member = counts(m, child(at, "measured"), f.name, P);
    }
    if (p.contains("seconds") && p["seconds"].is_number())
      out.redistribution_predicted_seconds = p["seconds"].get<double>();
    out.redistribution_seconds = seconds(m, child(at, "measured"), "seconds", P);
    out.redistribution_device = device_pair(m, child(at, "measured"), P);
  }
  if (c.contains("peak_tile_memory_bytes")) out.peak_tile_memory_bytes = counts(c, where, "peak_tile_memory_bytes", P);
  if (c.contains("planned_memory_bytes")) {
    const json& planned = c["planned_memory_bytes"];
    if (!planned.is_number_unsigned()) throw SchemaError{child(where, "planned_memory_bytes"), "expected a byte count"};
    out.planned_memory_bytes = planned.get<std::uint64_t>();
  }
  return out;
}

TraceTransfers transfers(const json& files, const char* key, std::int64_t P) {
  const std::string at = child("files", key);
  const json& t = member(files, "files", key);
  return {counts(t, at, "disk_read_bytes", P), counts(t, at, "disk_write_bytes", P), seconds(t, at, "seconds", P)};
}

Trace trace(const json& j) {
  Trace out;
  if (!j.is_object()) throw SchemaError{"the document", "expected an object"};
  if (j.contains("program")) out.program = text(j, "", "program");
  const json& P = member(j, "", "processors");
  if (!P.is_number_integer() || P.get<std::int64_t>() < 1)
    throw SchemaError{"processors", "expected a positive integer"};
  out.processors = P.get<std::int64_t>();
  const json& list = member(j, "", "contractions");
  if (!list.is_array()) throw SchemaError{"contractions", "expected an array"};
  for (std::size_t i = 0; i < list.size(); ++i)
    out.contractions.push_back(contraction(list[i], fmt::format("contractions[{}]", i), out.processors));
  if (j.contains("memory_bytes") && j["memory_bytes"].is_number_unsigned())
    out.memory_bytes = j["memory_bytes"].get<std::uint64_t>();
  if (j.contains("peak_resident_bytes")) out.peak_resident_bytes = counts(j, "", "peak_resident_bytes", out.processors);
  if (j.contains("files")) {
    out.imported = transfers(j["files"], "import", out.processors);
    out.exported = transfers(j["files"], "export", out.processors);
  }
  if (j.contains("device")) out.device = run_device(j["device"], out.processors);
  if (j.contains("verify") && !j["verify"].is_null()) {
    const json& v = j["verify"];
    const json& checked = member(v, "verify", "checked");
    const json& error = member(v, "verify", "max_rel_error");
    const json& passed = member(v, "verify", "passed");
    if (!checked.is_number_integer() || !error.is_number() || !passed.is_boolean())
      throw SchemaError{"verify", "expected {\"checked\": integer, \"max_rel_error\": number, \"passed\": bool}"};
    out.verify = TraceVerify{checked.get<std::uint64_t>(), error.get<double>(), passed.get<bool>()};
  }
  return out;
}

}  // namespace

std::optional<Trace> read_trace(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = message_text(ToolDiag::err_read_trace, path, std::strerror(errno));
    return std::nullopt;
  }
  std::ostringstream content;
  content << in.rdbuf();
  json document;
  try {
    document = json::parse(content.str());
  } catch (const json::parse_error& e) {
    *error = message_text(ToolDiag::err_trace_not_json, path, e.what());
    return std::nullopt;
  }
  try {
    return trace(document);
  } catch (const SchemaError& e) {
    *error = message_text(ToolDiag::err_trace_schema, path, e.where, e.what);
    return std::nullopt;
  }
}

}  // namespace tcec::tools

// runtime/base/trace.h — writing a JSON trace file atomically (the schema is the caller's).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tcert {

/// Writes `document` (pretty-printed, 2-space indent, final newline) to PATH.tmp-<pid>, flushes
/// it, then renames it to `path`, so readers never see a half-written trace. Throws
/// Error("cannot write trace PATH: <strerror>") and removes the temporary file on failure.
void write_json_atomically(const std::string& path, const nlohmann::json& document);

}  // namespace tcert

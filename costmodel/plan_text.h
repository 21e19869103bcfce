// costmodel/plan_text.h — (private) small parsers the methods' plan texts share (plan_text.cpp).
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>
#include <vector>

namespace tcec::costmodel {

/// `s` cut at every `sep` (empty pieces kept).
std::vector<std::string_view> split_text(std::string_view s, char sep);
/// The whole of `s` as a decimal integer; false when it is not one.
bool parse_int(std::string_view s, std::int64_t* v);

}  // namespace tcec::costmodel

// runtime/base/device_io.cpp — reading and parsing /proc/self/io.
#include "runtime/base/device_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <utility>

namespace tcert {

DeviceBytes& DeviceBytes::operator+=(const DeviceBytes& other) {
  read_bytes += other.read_bytes;
  write_bytes += other.write_bytes;
  cancelled_write_bytes += other.cancelled_write_bytes;
  return *this;
}

DeviceBytes& DeviceBytes::operator-=(const DeviceBytes& other) {
  read_bytes -= other.read_bytes;
  write_bytes -= other.write_bytes;
  cancelled_write_bytes -= other.cancelled_write_bytes;
  return *this;
}

std::optional<DeviceBytes> parse_proc_io(std::string_view text) {
  DeviceBytes out;
  const std::array<std::pair<std::string_view, std::uint64_t*>, 3> keys = {
      {{"read_bytes", &out.read_bytes},
       {"write_bytes", &out.write_bytes},
       {"cancelled_write_bytes", &out.cancelled_write_bytes}}};
  int found = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, colon);
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (key != keys[i].first) continue;
      const auto [rest, error] = std::from_chars(value.data(), value.data() + value.size(), *keys[i].second);
      if (error != std::errc() || rest == value.data() || rest != value.data() + value.size()) return std::nullopt;
      found |= 1 << i;
    }
  }
  if (found != 7) return std::nullopt;
  return out;
}

std::optional<DeviceBytes> device_bytes_now() {
  const int fd = ::open("/proc/self/io", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::array<char, 512> buf{};  // seven short lines
  std::size_t size = 0;
  ssize_t n = 0;
  while (size < buf.size() && (n = ::read(fd, buf.data() + size, buf.size() - size)) > 0)
    size += static_cast<std::size_t>(n);
  ::close(fd);
  if (n < 0) return std::nullopt;
  return parse_proc_io(std::string_view(buf.data(), size));
}

}  // namespace tcert

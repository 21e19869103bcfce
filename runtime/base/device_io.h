// runtime/base/device_io.h — the bytes a process made the storage device read and write
// (Linux's per-process I/O accounting, /proc/self/io), beside what the program asked for.
//
// The counters (counters.h) count the bytes a program asks its files for; in the page cache
// those may never reach the device, and out of core (tensors larger than memory, page cache
// included) the kernel may move many times more. These figures are the kernel's own
// (Documentation/filesystems/proc.rst, "/proc/<pid>/io"), for the whole process: every thread,
// finished ones included.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tcert {

/// Device transfers of a process, bytes:
/// - read_bytes: what the process's reads fetched from the block device (read(2), page faults on
///   mapped files, the readahead they start; counted when the request is issued). Pages found in
///   the page cache count 0.
/// - write_bytes: what the process queued for the device: page-cache bytes it turned from clean to
///   dirty (write(2), stores through a shared mapping; a page dirtied again before it is written
///   back counts once, after it counts again), plus direct writes. Counted when queued, not when
///   the device writes them: in the page cache regime it is the bytes written, not 0.
/// - cancelled_write_bytes: of those, dirty bytes whose writeback the process cancelled by
///   truncating or removing their file first (they never reach the device).
struct DeviceBytes {
  std::uint64_t read_bytes = 0, write_bytes = 0, cancelled_write_bytes = 0;

  /// Field-wise sum and difference (e.g. "after − before" of two readings).
  DeviceBytes& operator+=(const DeviceBytes& other);
  DeviceBytes& operator-=(const DeviceBytes& other);
  friend DeviceBytes operator+(DeviceBytes a, const DeviceBytes& b) { return a += b; }
  friend DeviceBytes operator-(DeviceBytes a, const DeviceBytes& b) { return a -= b; }
  friend bool operator==(const DeviceBytes&, const DeviceBytes&) = default;
};

/// The figures of a /proc/PID/io text: lines "key: value" (rchar, wchar, syscr, syscw,
/// read_bytes, write_bytes, cancelled_write_bytes, in any order; other keys ignored). nullopt
/// when read_bytes, write_bytes or cancelled_write_bytes is missing or not a decimal integer.
std::optional<DeviceBytes> parse_proc_io(std::string_view text);

/// This process's device bytes since it started (/proc/self/io); nullopt where that file cannot
/// be read or parsed (not Linux, a kernel without task I/O accounting, a restricted /proc).
/// Costs a few system calls (open, read, close): read it per phase, not per transfer.
std::optional<DeviceBytes> device_bytes_now();

}  // namespace tcert

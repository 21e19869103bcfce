// tools/calibrate/device.h — the disk past the page cache: what the storage device itself
// moves (the out-of-core regime, docs/out-of-core.md), all ranks at once. Collective.
#pragma once

#include <cstdint>
#include <string>

#include "machine_file.h"
#include "runtime/comm/comm.h"

namespace tcec::calibrate {

/// Measures DeviceFigures (machine_file.h) with `bytes` per rank (rounded down to whole 4 MiB
/// requests, at least one) in files under `dir`, in this order: an O_DIRECT file written (timed
/// through its fdatasync) and read back, and read back again on one thread while another writes
/// as much into a new file through the runtime's write-behind (direct_mixed_bytes_per_s); a buffered file written (timed through its fdatasync),
/// its pages dropped (posix_fadvise(POSIX_FADV_DONTNEED), clean after the sync), read back, and
/// its pages dropped again and read in short runs as programs stream tensors (streamed_run_s), and
/// again in runs far apart (lone_read_s); a file written through the runtime's write-behind
/// (streamed_write_bytes_per_s); runs far apart written into a new file (lone_write_s).
/// The device bytes of each read are taken from /proc/self/io (runtime/base/device_io.h): a file
/// system with no device behind it (tmpfs) reads 0 and its figures are the page cache's. The
/// files are removed. Throws tcert::Error on an I/O failure.
DeviceFigures measure_device(const tcert::Context& ctx, const std::string& dir, std::uint64_t bytes);

}  // namespace tcec::calibrate

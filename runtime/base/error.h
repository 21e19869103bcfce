// runtime/base/error.h — tcert::Error, the one exception every runtime failure throws.
#pragma once

#include <stdexcept>
#include <string>
#include <system_error>

namespace tcert {

/// Thrown by every tcert function that fails: disk and MPI I/O, the memory budget, malformed
/// .npy inputs, a bad command line. The message is lower-case, has no trailing period, and
/// names the numbers, paths and strerror(errno) text involved, e.g.
/// "cannot read 800 bytes from /scratch/rank-0/A.tile at byte offset 1600: Input/output error".
/// run_program() (runtime/program/main_guard.h) prints it as "<program>: error: <message>".
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The strerror() text of an errno value (thread-safe), e.g. errno_text(ENOSPC) ==
/// "No space left on device".
inline std::string errno_text(int errno_value) { return std::generic_category().message(errno_value); }

}  // namespace tcert

// runtime/base/fault.h — fault injection for the resume tests: a rank kills itself (SIGKILL) at a
// named point of a run, so a test can stop a run exactly there and resume it.
#pragma once

#include <string>
#include <string_view>

namespace tcert {

/// Kills this process with SIGKILL when the environment variable TCERT_FAULT is "RANK:POINT"
/// with RANK this process's rank in the run's communicator and POINT equal to `point`; does
/// nothing otherwise (the variable is read once per process). The points a run passes:
///  - "compute:N"     step N (1-based, as Run::step() counts) has computed its result but not
///                    yet stored it (a contraction records its volumes: RunRecords::record());
///  - "step:N"        step N has finished, before the checkpoint after it is written;
///  - "checkpoint:N"  the checkpoint after step N is written (between steps);
///  - "export"        the outputs are written under their temporary names, not yet renamed;
///  - "within:N"      the N-th checkpoint inside a step (--checkpoint-every) of this process
///                    is written;
///  - "write_C:N"     a contraction has written C's tiles for the N-th time in this process
///                    (GaoGemm::write_C(), SfcGemm's rows of a tile; counted over the
///                    run).
/// For tests only: a production run leaves TCERT_FAULT unset. Never throws.
void fault_point(int rank, std::string_view point);

/// fault_point(rank, "NAME:N") for the N-th call with this `name` in the process (thread-safe).
void counted_fault_point(int rank, const std::string& name);

}  // namespace tcert

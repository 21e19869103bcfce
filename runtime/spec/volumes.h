// runtime/spec/volumes.h — a stage's volumes per rank by name: what the compiler predicts
// (GemmSpec::predicted, from costmodel/plan.h PlanVolumes, whose names these are) and what the
// runtime measures (program/run.h ContractionRecord) and writes to the trace under the same names.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace tcert {

/// One stage's volumes, one entry per rank (index = rank): disk bytes read and written, bytes
/// sent and received, and disk requests (base/counters.h Volumes::disk_requests). Stages 1 and 3
/// (redistribution) carry the disk fields only (kStageVolumeFields); their comm fields stay
/// empty. An empty field is one not predicted or not measured.
struct RankVolumes {
  std::vector<std::uint64_t> disk_read_bytes, disk_write_bytes;
  std::vector<std::uint64_t> comm_sent_bytes, comm_recv_bytes;
  std::vector<std::uint64_t> disk_requests;
  friend bool operator==(const RankVolumes&, const RankVolumes&) = default;
};

/// One field of RankVolumes: its name (the trace's JSON key), the words tables use for it, and
/// the member.
struct VolumeField {
  const char* name;
  const char* label;
  std::vector<std::uint64_t> RankVolumes::*member;
};

/// RankVolumes' fields in declaration order (the trace's order).
inline constexpr std::array<VolumeField, 5> kVolumeFields = {{
    {"disk_read_bytes", "disk read", &RankVolumes::disk_read_bytes},
    {"disk_write_bytes", "disk write", &RankVolumes::disk_write_bytes},
    {"comm_sent_bytes", "sent", &RankVolumes::comm_sent_bytes},
    {"comm_recv_bytes", "received", &RankVolumes::comm_recv_bytes},
    {"disk_requests", "disk requests", &RankVolumes::disk_requests},
}};

/// The fields stages 1 and 3 carry: disk read, disk write, disk requests.
inline constexpr std::array<VolumeField, 3> kStageVolumeFields = {kVolumeFields[0], kVolumeFields[1], kVolumeFields[4]};

}  // namespace tcert

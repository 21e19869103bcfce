// runtime/spec/volumes.h — a stage's volumes per rank by name: what the compiler predicts
// (GemmSpec::predicted, from costmodel/plan.h PlanVolumes, whose names these are) and what the
// runtime measures (program/run.h ContractionRecord) and writes to the trace under the same names.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace tcert {

/// One stage's volumes, one entry per rank (index = rank): disk bytes read and written, bytes
/// sent and received (and of those, the bytes that cross nodes), and disk requests
/// (base/counters.h Volumes::disk_requests). Stages 1 and 3 (redistribution) carry the disk
/// fields and the crossing ones (kStageVolumeFields); their comm fields stay empty. An empty
/// field is one not predicted or not measured.
struct RankVolumes {
  std::vector<std::uint64_t> disk_read_bytes, disk_write_bytes;
  std::vector<std::uint64_t> comm_sent_bytes, comm_recv_bytes;
  /// Of those, the bytes sent to and received from ranks on other nodes (base/counters.h
  /// Volumes::internode_sent_bytes); predicted only for a machine of several nodes.
  std::vector<std::uint64_t> internode_sent_bytes, internode_recv_bytes;
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
inline constexpr std::array<VolumeField, 7> kVolumeFields = {{
    {"disk_read_bytes", "disk read", &RankVolumes::disk_read_bytes},
    {"disk_write_bytes", "disk write", &RankVolumes::disk_write_bytes},
    {"comm_sent_bytes", "sent", &RankVolumes::comm_sent_bytes},
    {"comm_recv_bytes", "received", &RankVolumes::comm_recv_bytes},
    {"internode_sent_bytes", "sent to other nodes", &RankVolumes::internode_sent_bytes},
    {"internode_recv_bytes", "received from other nodes", &RankVolumes::internode_recv_bytes},
    {"disk_requests", "disk requests", &RankVolumes::disk_requests},
}};

/// Whether a trace may leave field f out (older traces, and predictions for one node, have no
/// inter-node bytes).
constexpr bool optional_field(const VolumeField& f) {
  return f.member == &RankVolumes::internode_sent_bytes || f.member == &RankVolumes::internode_recv_bytes;
}

/// The fields stages 1 and 3 carry: disk read, disk write, the bytes that cross nodes (optional:
/// predicted for a machine of several nodes only), disk requests.
inline constexpr std::array<VolumeField, 5> kStageVolumeFields = {kVolumeFields[0], kVolumeFields[1], kVolumeFields[4],
                                                                  kVolumeFields[5], kVolumeFields[6]};

}  // namespace tcert

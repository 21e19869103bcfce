// runtime/spec/vocabulary.h — the choices a Gao et al. plan makes, one enumeration each, shared
// by the cost model (costmodel/model.h names them with `using`) and the runtime (gao_spec.h):
// inside / outside communication, the parallel algorithm, the operand replication broadcasts and
// the disk placement order; their names as plan texts, reports and traces write them, and back.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace tcert {

/// Inside / outside communication (Gao et al. §2.1).
enum class Communication {
  /// Interleave communication with computation on in-core tiles.
  /// Pros: no extra disk traffic for communication. Cons: data is re-sent for every tile pass.
  Inside,
  /// Move all remote data disk-to-disk before computing.
  /// Pros: minimal communication volume. Cons: extra disk reads and writes (D1).
  Outside,
};

/// The parallel algorithm: how the macro-indices are distributed (Gao et al. §2.2, Table 1).
enum class Algorithm {
  /// Cannon on a √P×√P grid: A and B circular-shift. Pros: balanced, no replication.
  /// Cons: needs P to be a perfect square.
  Rotation,
  /// Broadcast one operand (A, or B when mirrored) to all ranks; the other and C are split by J (I).
  /// Pros: no reduction. Cons: every rank holds/receives the whole replicated operand.
  Replication,
  /// Split A and B by K; every rank holds a partial C, then all-reduce.
  /// Pros: no input traffic. Cons: C·log2 P reduction volume, C replicated.
  Accumulation,
};

/// The operand replication broadcasts (Table 1 "Replication A" / "Replication B").
enum class Operand { A, B };

/// The disk placement order: where the three disk reads sit in the tiling loop nest (Gao et al.
/// §3, Fig. 3); the first array is read outermost, the last innermost.
enum class PlacementOrder { ABC, ACB, BAC, BCA, CAB, CBA };

/// The six disk placement orders, in the order plan searches and reports go through them.
inline constexpr std::array<PlacementOrder, 6> kAllOrders = {PlacementOrder::ABC, PlacementOrder::ACB,
                                                             PlacementOrder::BAC, PlacementOrder::BCA,
                                                             PlacementOrder::CAB, PlacementOrder::CBA};

/// "inside" | "outside".
const char* to_string(Communication c);
/// "rotation" | "replication" | "accumulation".
const char* to_string(Algorithm a);
/// "A" | "B".
const char* to_string(Operand o);
/// "ABC" … "CBA".
const char* to_string(PlacementOrder o);

/// The operand whose to_string() is `name` ("A" or "B"); nullopt for any other text.
std::optional<Operand> parse_operand(std::string_view name);
/// The order whose to_string() is `name` ("ABC" … "CBA", case-sensitive); nullopt for any other text.
std::optional<PlacementOrder> parse_order(std::string_view name);

}  // namespace tcert

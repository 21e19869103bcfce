// costmodel/model.h — the vocabulary of the Gao et al. cost model: machine,
// problem, communication, parallel algorithm, disk placement order (the enumerations
// of runtime/spec/vocabulary.h), tile counts, and the model (continuous) optimum of one method.
//
// Units: every volume and memory size here is in BYTES (the model is
// homogeneous, so the paper's element counts times the element size give the
// same tile counts and times); bandwidths in bytes per second; times in seconds.
// Source: Gao et al., seed 003, with the corrections of docs/model.md.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/spec/units.h"
#include "runtime/spec/vocabulary.h"

namespace tcec::costmodel {

/// A machine as the cost model sees it (Gao et al. §2, Table 8).
struct Machine {
  std::int64_t processors = 1;        ///< P
  double memory_bytes = 0;            ///< per processor, all tiles together
  double network_bytes_per_s = 0;     ///< B_c
  double disk_read_bytes_per_s = 0;   ///< B_d for reads
  double disk_write_bytes_per_s = 0;  ///< B_d for writes
  /// e: bytes per tensor element (the runtime's kElementBytes; codegen accepts no other).
  double element_size_bytes = tcert::kElementBytes;
  double replication_factor = 1.0;  ///< f_rep: multiplies broadcast volume
  double reduction_factor = 1.0;    ///< f_red: multiplies all-reduce volume
  /// Seconds per disk request (a contiguous range moved by one call; plan.h PlanVolumes::
  /// disk_requests), added to the bandwidth terms. 0 (the default) is Gao et al.'s model.
  double disk_latency_s = 0;
  /// Seconds per page fault of a read through a tensor file's mapping: the first read into a
  /// 64 KiB window that is not mapped (Linux maps that much around a read fault;
  /// costmodel/methods/pass_runs.h kFaultAroundElements). Counted where a method reads panels
  /// straight from tensor files (plan.h PlanVolumes::page_faults) and added to the disk time.
  /// 0 (the default): not modelled.
  double page_fault_s = 0;
  /// The tile kernel's rate per processor, FLOP/s (a GEMM's flops are 2·m·n·k): the time model
  /// of plan.h plan_wall() charges each rank its multiplies at this rate. Default 50 GFLOP/s.
  double flops_per_s = 50e9;
  /// The rate, bytes per second per processor with all processors at once, at which the tile
  /// kernel streams what does not stay in its cache between calls: a C tile larger than
  /// kKernelCacheBytes is read and written by every call, and every call reads its A and B
  /// panels (plan.h gemm_efficiency(); a roofline, Williams et al. 2009). 0 (the default): not
  /// modelled, calls run at flops_per_s times their shape's efficiency whatever their K.
  double memory_bytes_per_s = 0;
  /// The share, 0 to 1, of the shorter of an overlapped plan's disk time and its network + kernel
  /// time that really runs beside the longer (plan.h plan_wall()). 1 (the default): an I/O thread
  /// hides it all, as on a node whose disks move data without its cores. Below 1 where the I/O
  /// thread takes cores the multiply needs: ranks sharing cores with a disk in the page cache
  /// (tcec-calibrate measures it). 0: overlap gains nothing, and the planner keeps serial plans.
  double overlap = 1.0;
  /// Processors per node (0, the default: every processor on one node). Fewer than P: a
  /// cluster whose nodes each have their own disk for the processors' scratch (Gao et al.'s
  /// model gives every processor its own disk), which the other nodes cannot read, so the run's
  /// tensor store (one directory all ranks read and write) is not there: the planner keeps every
  /// intermediate on the ranks (program/sequence.h) and writes outputs to their shared files.
  std::int64_t ranks_per_node = 0;
  /// B_c between ranks on different nodes, bytes per second (docs/cluster.md): what a byte that
  /// crosses nodes costs instead of network_bytes_per_s. 0 (the default): the same as
  /// network_bytes_per_s, as on one node.
  double internode_network_bytes_per_s = 0;
  /// Reads of at least this many bytes (a run, or runs read in one request) bypass the page cache
  /// (O_DIRECT), for nodes whose tensors do not fit in memory, page cache included
  /// (docs/out-of-core.md; `tcec-calibrate --regime device` sets it). 0 (the default): every read
  /// through the page cache. The bytes read and their cost are the same either way; the program
  /// takes it (ProgramInfo::direct_read_bytes).
  std::uint64_t direct_read_bytes = 0;
  /// The device's bytes per second, reads and writes together, while it reads one stream and
  /// writes another at once (`disk_mixed`; `tcec-calibrate --regime device` measures it). Where
  /// set, an overlapped Gao plan, whose I/O threads read A and B on one and read and write C on
  /// the other, spends on the disk the longest of the two threads' times and its bytes at this
  /// rate (plan.h wall_parts()), instead of the sum of its reads at B_d for reads and its writes
  /// at B_d for writes. 0 (the default): reads and writes take turns, as in Gao et al.'s model.
  double disk_mixed_bytes_per_s = 0;
  /// Of a machine that reads large requests past the page cache (direct_read_bytes > 0), the
  /// overlap of reads that stay in the page cache, 0 to 1 (`buffered_overlap`; `tcec-calibrate
  /// --regime device` measures it): the page cache's copies are work on the cores the multiply
  /// needs, where O_DIRECT reads leave them to the device. An overlapped plan whose requests
  /// average fewer bytes than direct_read_bytes (its reads are short runs, read buffered) hides
  /// this share instead of `overlap` (plan.h wall_parts()). < 0 (the default): `overlap` for all.
  double buffered_overlap = -1;
  /// The overlap of an overlapped plan's rank that makes `requests` disk requests moving `bytes`
  /// (reads and writes): buffered_overlap where it is set, direct reads are on and the requests
  /// average fewer bytes than direct_read_bytes; else `overlap`.
  double overlap_for(double bytes, double requests) const {
    if (buffered_overlap < 0 || direct_read_bytes == 0 || requests <= 0) return overlap;
    return bytes / requests < static_cast<double>(direct_read_bytes) ? buffered_overlap : overlap;
  }

  /// The node of rank `rank`: rank / ranks_per_node (ranks fill the nodes in order, as
  /// `mpirun` and Slurm's block distribution place them), 0 on one node.
  std::int64_t node_of(std::int64_t rank) const { return ranks_per_node > 0 ? rank / ranks_per_node : 0; }
  /// Whether a message between ranks a and b crosses nodes.
  bool apart(std::int64_t a, std::int64_t b) const { return node_of(a) != node_of(b); }
  /// Seconds a rank spends receiving `recv_bytes`, of which `internode_recv_bytes` come from
  /// other nodes: those at internode_network_bytes_per_s (when set), the rest at B_c.
  double network_s(double recv_bytes, double internode_recv_bytes) const {
    if (internode_network_bytes_per_s <= 0) return recv_bytes / network_bytes_per_s;
    return (recv_bytes - internode_recv_bytes) / network_bytes_per_s +
           internode_recv_bytes / internode_network_bytes_per_s;
  }

  /// Nodes the processors span: ceil(P / ranks_per_node), 1 when ranks_per_node is 0.
  std::int64_t nodes() const { return ranks_per_node > 0 ? (processors + ranks_per_node - 1) / ranks_per_node : 1; }
  /// Whether the scratch is node-local on several nodes (nodes() > 1), so that no tensor store
  /// is shared by all ranks.
  bool node_local_scratch() const { return nodes() > 1; }

  /// M: the memory for one array's tile on one processor, bytes. With the
  /// paper's fixed split each of A, B, C gets a third (Gao et al. §4).
  double array_memory_bytes() const { return memory_bytes / 3.0; }
};

/// The macro-index GEMM C(I,J) += A(I,K)·B(J,K) as the model sees it: extents in ELEMENTS
/// along each macro-index (I, J, K) and array sizes in BYTES (A, B, C).
struct Problem {
  double I = 1, J = 1, K = 1;  ///< macro-index extents, elements
  double A = 0, B = 0, C = 0;  ///< array sizes, bytes: I·K·e, J·K·e, I·J·e (e = Machine::element_size_bytes)
};

/// The choices of a Gao plan, named once for the cost model and the runtime
/// (runtime/spec/vocabulary.h): inside / outside communication (Gao et al. §2.1), the parallel
/// algorithm (§2.2, Table 1), the operand replication broadcasts, the disk placement order (§3,
/// Fig. 3) and all six orders; to_string() gives the names plan texts and reports write.
using tcert::Algorithm;
using tcert::Communication;
using tcert::kAllOrders;
using tcert::Operand;
using tcert::PlacementOrder;
using tcert::to_string;

/// Tile counts per loop group (Gao et al. Fig. 3(b)): a macro-index X is cut
/// into Xt1 tiles at the outer level and each of those into Xt2 at the inner
/// level. Real-valued (>= 1) in the model; integers in a plan.
struct TileCounts {
  double It1 = 1, It2 = 1, Jt1 = 1, Jt2 = 1, Kt1 = 1, Kt2 = 1;
};

class Method;

/// One row of the dry-run's methods table. For a Gao method (communication method ×
/// algorithm) under one disk placement order: the model optimum, real tile counts >= 1
/// minimising D_read/B_dr + D_write/B_dw + V/B_c (D includes D1 for outside methods). Other
/// methods (method.h) fill the volumes and time of their own schedule and leave the Gao
/// fields (comm, algorithm, order, replicated, case_id, tiles) at their defaults.
struct ModelPoint {
  const Method* method = nullptr;  ///< the method of the row (method.h); set by its analysis
  Communication comm = Communication::Inside;
  Algorithm algorithm = Algorithm::Rotation;
  PlacementOrder order = PlacementOrder::ABC;
  Operand replicated = Operand::A;  ///< meaningful for Replication only
  bool feasible = true;
  std::string reason;  ///< why infeasible (e.g. "P = 6 is not a perfect square")
  int case_id = 0;     ///< the table case ⟨1⟩⟨2⟩⟨3⟩ (0: in-core / no tiling needed)
  TileCounts tiles;
  double disk_read_bytes = 0;   ///< per processor
  double disk_write_bytes = 0;  ///< per processor
  double comm_bytes = 0;        ///< V per processor, collective factors included
  double time_s = 0;

  double disk_bytes() const { return disk_read_bytes + disk_write_bytes; }
};

}  // namespace tcec::costmodel

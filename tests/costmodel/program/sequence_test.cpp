// The sequence hand-off pass (costmodel/program/sequence.h): an intermediate result kept on the ranks
// skips its stage 3, the next contraction takes it rank to rank (its stage 1 from the
// producer's layout), a copy step flushes it to the store first, and cosma never keeps; a
// sequence no cheaper than the store's runs through the store; and plan_program() hands the
// pass's choices to code generation unless --no-handoff, with the disk requests of the moves
// (charged in the times with a disk latency). The hand-off tests force outside
// accumulation, whose partial C files are summed disk to disk: the other methods read and
// write the store directly (direct tile I/O), which keeping and taking tensors rarely beats.
#include <algorithm>
#include <deque>

#include <gtest/gtest.h>

#include "costmodel/costmodel.h"
#include "costmodel/method_model.h"
#include "costmodel/program/handoff_requests.h"
#include "costmodel/program/layout.h"
#include "costmodel/program/sequence.h"
#include "frontend/frontend.h"

namespace tcec::costmodel {
namespace {

using u64 = std::uint64_t;

/// T = A·B (line 7), then (line 9 on) C += T·D, or C += T as a copy step.
const char* kHead = R"(range N = 64;
index i, j, k, l : N;
tensor A[N,N] input;
tensor B[N,N] input;
tensor D[N,N] input;
tensor T[N,N];
T[i,j] = A[i,k] * B[k,j];
)";
const char* kMachine = "machine m { processors 4; memory 1 GB; network 1 GB/s; disk 500 MB/s; }\n";

struct Planned {
  const ir::Program* program;
  Machine machine;
  PlanOptions options;
  std::vector<std::optional<ContractionAnalysis>> store;
  HandoffSequence seq;
};

/// Parses kHead + `tail` + `machine`, analyses every contraction with `method` forced and runs
/// the hand-off pass.
Planned run(const std::string& tail, const char* method, const char* machine = kMachine) {
  auto parsed = frontend::parse_source("seq.tce", std::string(kHead) + tail + machine, {});
  EXPECT_TRUE(parsed.ok()) << parsed.diagnostics.render();
  static std::deque<ir::Program> keep;  // analyses point into their program
  keep.push_back(*parsed.program);
  Planned r{&keep.back(), machine_from(*keep.back().machine), {}, {}, {}};
  EXPECT_TRUE(parse_method(method, &r.options));
  for (const ir::Statement& s : r.program->statements)
    r.store.push_back(s.operands.size() == 2 ? std::optional(analyze(*r.program, s, r.machine, r.options))
                                             : std::nullopt);
  r.seq = plan_handoff(*r.program, r.machine, r.options, r.store);
  return r;
}

TEST(Sequence, KeptIntermediateIsTakenRankToRank) {
  const Planned r = run("tensor C[N,N] output;\nC[i,l] += T[i,j] * D[j,l];\n", "outside-accumulation");
  ASSERT_EQ(r.seq.steps.size(), 2u);
  const HandoffStep& first = r.seq.steps[0];
  const HandoffStep& second = r.seq.steps[1];
  ASSERT_TRUE(first.handoff);
  EXPECT_TRUE(first.result_kept);
  EXPECT_TRUE(first.taken.empty());
  // The producer's stage 3 is gone: it writes C's part no more (its plan is the store's).
  EXPECT_EQ(first.plan.plan.to_string(), r.store[0]->plan().plan.to_string());
  for (std::size_t rank = 0; rank < 4; ++rank)  // accumulation: C lies whole on rank 0
    EXPECT_EQ(
        r.store[0]->plan().redistribution.disk_write_bytes[rank] - first.plan.redistribution.disk_write_bytes[rank],
        rank == 0 ? 64u * 64 * 8 : 0u)
        << rank;
  EXPECT_DOUBLE_EQ(first.store_time_s, r.store[0]->plan().total_s());
  EXPECT_LT(first.time_s, first.store_time_s);
  // The consumer takes T from the producer's C layout; its result (an output) goes to the store.
  ASSERT_TRUE(second.handoff);
  EXPECT_EQ(second.taken, std::vector<std::string>{"A = T (kept by line 7)"});
  EXPECT_FALSE(second.result_kept);
  EXPECT_TRUE(second.flushed.empty());
  DeclaredLayouts kept;
  kept.names_A = {"i", "j"}, kept.names_B = {"j", "l"}, kept.names_C = {"i", "l"};
  kept.A = plan_layout(first.plan.plan, GemmArray::C, {"i", "j"});
  const PlanVolumes moved = redistribution_volumes(second.plan.plan, r.machine, false, &kept);
  EXPECT_EQ(moved.comm_recv_bytes, second.plan.redistribution.comm_recv_bytes);
  EXPECT_EQ(moved.disk_read_bytes, second.plan.redistribution.disk_read_bytes);
  EXPECT_DOUBLE_EQ(second.time_s, second.plan.total_s());
  EXPECT_DOUBLE_EQ(r.seq.total_s, first.time_s + second.time_s);
  EXPECT_DOUBLE_EQ(r.seq.store_total_s, r.store[0]->plan().total_s() + r.store[1]->plan().total_s());
  EXPECT_EQ(r.seq.handoffs, 2);
  const std::string text = handoff_text(r.seq, r.machine);
  EXPECT_NE(text.find("  line 9: hand-off " + second.plan.plan.to_string() + "; takes A = T (kept by line 7); "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  (0 other steps as through the store)\ntotal predicted time with hand-off: "),
            std::string::npos)
      << text;
  const nlohmann::json j = handoff_json(r.seq, r.machine);
  EXPECT_EQ(j["model_only"], false);  // generated programs run it (HandoffSequence::used)
  EXPECT_EQ(j["steps"][1]["taken"], nlohmann::json::array({"A = T (kept by line 7)"}));
  EXPECT_EQ(j["steps"][0]["result_kept"], true);
}

TEST(Sequence, CopyStepFlushesWhatTheProducerKept) {
  // T is kept and taken by line 12 (the sequence pays off); U (line 9) is kept too, and the
  // copy step on line 13 flushes it first.
  const Planned r =
      run("tensor U[N,N];\nU[i,j] = A[i,k] * D[k,j];\ntensor C[N,N] output;\ntensor E[N,N] output;\n"
          "C[i,l] += T[i,j] * D[j,l];\nE[i,j] += U[i,j];\n",
          "outside-accumulation");
  ASSERT_EQ(r.seq.steps.size(), 4u);
  ASSERT_GT(r.seq.handoffs, 0);
  const HandoffStep& first = r.seq.steps[1];
  const HandoffStep& copy = r.seq.steps[3];
  ASSERT_TRUE(first.result_kept);
  EXPECT_FALSE(copy.contraction);
  EXPECT_EQ(copy.flushed, std::vector<std::string>{"U"});
  // The flush: every rank reads the elements of T it holds and writes them, counted here
  // element by element from the layout's runs and owner table.
  const TensorLayout L = plan_layout(first.plan.plan, GemmArray::C, {"i", "j"});
  std::vector<u64> held(4);
  auto coordinate = [&](const DimSplit& d, std::int64_t v) {
    for (auto [length, c] : d.runs) {
      if (v < length) return c;
      v -= length;
    }
    ADD_FAILURE() << "value beyond the runs";
    return std::int64_t{0};
  };
  for (std::int64_t i = 0; i < 64; ++i)
    for (std::int64_t j = 0; j < 64; ++j)
      ++held[static_cast<std::size_t>(
          L.owner[static_cast<std::size_t>(coordinate(L.dims[0], i) * L.dims[1].parts + coordinate(L.dims[1], j))])];
  const double most = static_cast<double>(*std::max_element(held.begin(), held.end()));
  EXPECT_DOUBLE_EQ(copy.flush.time_s, most * 8 / 500e6 + most * 8 / 500e6);
  EXPECT_DOUBLE_EQ(copy.time_s, copy.flush.time_s + copy.store_time_s);
  // The flush is the producer's deferred stage 3: with the same plan, keeping and then
  // flushing costs what storing does.
  EXPECT_EQ(first.plan.plan.to_string(), r.store[1]->plan().plan.to_string());
  EXPECT_NEAR(first.time_s + copy.flush.time_s, first.store_time_s, 1e-12);
  const std::string text = handoff_text(r.seq, r.machine);
  EXPECT_NE(text.find("  line 13: flushes U ("), std::string::npos) << text;
}

TEST(Sequence, NoCheaperThanTheStoreRunsThroughTheStore) {
  // Kept for a copy step only: keeping T and flushing it costs what storing it does, so the
  // greedy sequence is no cheaper and every step goes through the store.
  const Planned r = run("tensor C[N,N] output;\nC[i,j] += T[i,j];\n", "outside-accumulation");
  ASSERT_EQ(r.seq.steps.size(), 2u);
  EXPECT_EQ(r.seq.handoffs, 0);
  EXPECT_GT(r.seq.rejected_total_s, 0);
  EXPECT_NEAR(r.seq.rejected_total_s, r.seq.store_total_s, 1e-12);
  EXPECT_DOUBLE_EQ(r.seq.total_s, r.seq.store_total_s);
  for (const HandoffStep& step : r.seq.steps) {
    EXPECT_FALSE(step.handoff || step.result_kept);
    EXPECT_TRUE(step.flushed.empty());
    EXPECT_DOUBLE_EQ(step.time_s, step.store_time_s);
  }
  EXPECT_NE(handoff_text(r.seq, r.machine).find("not below the store's: every step runs through the store"),
            std::string::npos);
  EXPECT_EQ(handoff_json(r.seq, r.machine)["rejected_total_predicted_time_s"], r.seq.rejected_total_s);
}

/// kMachine on 2 nodes of 2 processors with node-local scratch (Machine::node_local_scratch()).
const char* kCluster = "machine m { processors 4; memory 1 GB; network 1 GB/s; disk 500 MB/s; ranks_per_node 2; }\n";

TEST(Sequence, NodeLocalScratchKeepsEveryIntermediate) {
  // On one node inside replication beats the hand-off (InsideMethodsReadTheStoreDirectly); with
  // node-local scratch there is no store all ranks see, so T is kept and taken whatever it costs,
  // and the sequence is not rejected.
  const char* tail = "tensor C[N,N] output;\nC[i,l] += T[i,j] * D[j,l];\n";
  const Planned one = run(tail, "inside-replication");
  EXPECT_EQ(one.seq.handoffs, 0);
  const Planned r = run(tail, "inside-replication", kCluster);
  EXPECT_EQ(r.machine.nodes(), 2);
  EXPECT_TRUE(r.machine.node_local_scratch());
  ASSERT_EQ(r.seq.steps.size(), 2u);
  EXPECT_EQ(r.seq.handoffs, 2);
  EXPECT_EQ(r.seq.rejected_total_s, 0);
  EXPECT_TRUE(r.seq.steps[0].result_kept);
  EXPECT_EQ(r.seq.steps[1].taken, std::vector<std::string>{"A = T (kept by line 7)"});
  EXPECT_GE(r.seq.total_s, r.seq.store_total_s);  // dearer than the store, and chosen
  for (const HandoffStep& step : r.seq.steps) EXPECT_EQ(step.through_store, "") << step.statement->loc.line;
  const std::string text = handoff_text(r.seq, r.machine);
  EXPECT_NE(text.find("(the machine's 2 nodes have node-local scratch: the tensor store is one directory per node"),
            std::string::npos)
      << text;
}

TEST(Sequence, NodeLocalScratchSaysWhichStepGoesThroughTheStore) {
  // A copy step reads T from the store: T is flushed there, into every node's directory, and the
  // step says so (the pass, the dry-run's text and JSON); the flush then completes T on every
  // node (completion_volumes(), on top of the flush's own bytes).
  const Planned r = run("tensor C[N,N] output;\nC[i,j] += T[i,j];\n", "outside-accumulation", kCluster);
  ASSERT_EQ(r.seq.steps.size(), 2u);
  EXPECT_EQ(r.seq.steps[0].through_store, "");
  const char* why = "its operand T, kept on the ranks, is flushed to the store for a copy step";
  EXPECT_EQ(r.seq.steps[1].through_store, why);
  EXPECT_NE(handoff_text(r.seq, r.machine)
                .find(std::string("  line 9: note: through the store, copied to every node: ") + why + "\n"),
            std::string::npos);
  EXPECT_EQ(handoff_json(r.seq, r.machine)["steps"][1]["through_store"], why);
  EXPECT_EQ(handoff_json(r.seq, r.machine)["steps"][0]["through_store"], nullptr);
  const PlanVolumes& flush = r.seq.steps[1].flush;
  const PlanVolumes completion =
      completion_volumes(r.program->elements(r.seq.steps[1].statement->operands[0].tensor), r.machine);
  std::uint64_t read = 0, completed = 0;
  for (std::size_t rank = 0; rank < 4; ++rank) {
    read += flush.disk_read_bytes[rank], completed += completion.disk_read_bytes[rank];
    EXPECT_EQ(flush.comm_sent_bytes[rank], completion.comm_sent_bytes[rank]) << rank;  // the flush sends nothing
  }
  // The flush reads every element once, the completion once on each of the 2 nodes.
  const std::uint64_t bytes = 8 * r.program->elements(r.seq.steps[1].statement->operands[0].tensor);
  EXPECT_EQ(completed, 2 * bytes);
  EXPECT_EQ(read, bytes + completed);
  // A copy step that writes an intermediate to the store.
  const Planned w = run("tensor U[N,N];\nU[i,j] = A[i,j];\n", "outside-accumulation", kCluster);
  EXPECT_EQ(w.seq.steps[1].through_store, "a copy step writes the intermediate U to the store");
}

TEST(Sequence, CompletionOnEveryNodeIsRecursiveDoublingOverTheNodes) {
  // 4 ranks on 2 nodes: each local rank completes half of the 10 elements with its peer.
  Machine two;
  two.processors = 4, two.ranks_per_node = 2, two.memory_bytes = 1e9, two.element_size_bytes = 8;
  two.network_bytes_per_s = two.disk_read_bytes_per_s = two.disk_write_bytes_per_s = 1e8;
  const PlanVolumes v = completion_volumes(10, two);
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(v.disk_read_bytes[r], 40u) << r;
    EXPECT_EQ(v.disk_write_bytes[r], 40u) << r;
    EXPECT_EQ(v.comm_sent_bytes[r], 40u) << r;
    EXPECT_EQ(v.comm_recv_bytes[r], 40u) << r;
    EXPECT_EQ(v.disk_requests[r], 2u) << r;
  }
  // 5 ranks on nodes of 2, 2 and 1: local rank 0 alone completes all 10 000 elements (3 chunks);
  // node 2 folds into node 0 (sends its range, gets the result), nodes 0 and 1 exchange once.
  Machine three = two;
  three.processors = 5;
  const PlanVolumes w = completion_volumes(10000, three);
  const std::vector<std::uint64_t> read{80000, 0, 80000, 0, 80000}, net{160000, 0, 80000, 0, 80000},
      requests{6, 0, 6, 0, 6};
  EXPECT_EQ(w.disk_read_bytes, read);
  EXPECT_EQ(w.disk_write_bytes, read);
  EXPECT_EQ(w.comm_sent_bytes, net);
  EXPECT_EQ(w.comm_recv_bytes, net);
  EXPECT_EQ(w.disk_requests, requests);
}

TEST(Sequence, InsideMethodsReadTheStoreDirectly) {
  // Inside replication reads T straight from the store and works on C in its new file (direct
  // tile I/O), which keeping and taking T does not beat: the store's plans stand, with no
  // stage 1 for A and B and no stage 3 for C.
  const Planned r = run("tensor C[N,N] output;\nC[i,l] += T[i,j] * D[j,l];\n", "inside-replication");
  EXPECT_EQ(r.seq.handoffs, 0);
  const PlanVolumes& second = r.store[1]->plan().redistribution;
  for (std::size_t rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(second.disk_read_bytes[rank], 0u) << rank;
    EXPECT_EQ(second.disk_write_bytes[rank], 0u) << rank;
  }
  const std::vector<StatementPlan> plans = plan_program(*r.program, r.machine, r.options);
  EXPECT_TRUE(plans[1].direct_A && plans[1].direct_B && plans[1].direct_C);
}

TEST(Sequence, CosmaReadsTheStoreAndKeepsNothing) {
  const Planned r = run("tensor C[N,N] output;\nC[i,l] += T[i,j] * D[j,l];\n", "cosma");
  ASSERT_EQ(r.seq.steps.size(), 2u);
  for (const HandoffStep& step : r.seq.steps) {
    EXPECT_FALSE(step.handoff);
    EXPECT_FALSE(step.result_kept);
    EXPECT_TRUE(step.taken.empty());
    EXPECT_TRUE(step.flushed.empty());
    EXPECT_DOUBLE_EQ(step.time_s, step.store_time_s);
  }
  EXPECT_EQ(r.seq.handoffs, 0);
  EXPECT_DOUBLE_EQ(r.seq.total_s, r.seq.store_total_s);
}

TEST(Sequence, PlanProgramRunsTheHandOffUnlessTurnedOff) {
  const Planned r = run("tensor C[N,N] output;\nC[i,l] += T[i,j] * D[j,l];\n", "outside-accumulation");
  std::vector<StatementPlan> plans = plan_program(*r.program, r.machine, r.options);
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_TRUE(plans[0].keep_result);
  EXPECT_FALSE(plans[0].take_A || plans[0].take_B || plans[0].take_C);
  EXPECT_TRUE(plans[1].take_A);
  EXPECT_FALSE(plans[1].take_B || plans[1].take_C || plans[1].keep_result);  // C is an output
  EXPECT_EQ(plans[1].taken, std::vector<std::string>{"A = T (kept by line 7)"});
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(plans[i].plan.to_string(), r.seq.steps[i].plan.plan.to_string());
    EXPECT_EQ(plans[i].redistribution.disk_read_bytes, r.seq.steps[i].plan.redistribution.disk_read_bytes);
    EXPECT_EQ(plans[i].redistribution.disk_write_bytes, r.seq.steps[i].plan.redistribution.disk_write_bytes);
  }
  PlanOptions store = r.options;
  store.handoff = false;
  plans = plan_program(*r.program, r.machine, store);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_FALSE(plans[i].keep_result || plans[i].take_A || plans[i].take_B || plans[i].take_C);
    EXPECT_EQ(plans[i].redistribution.disk_write_bytes, r.store[i]->plan().redistribution.disk_write_bytes);
  }
}

TEST(Sequence, TakenTensorsDiskRequestsArePredictedAndChargedWithALatency) {
  Planned r = run("tensor C[N,N] output;\nC[i,l] += T[i,j] * D[j,l];\n", "outside-accumulation");
  for (double latency : {0.0, 1e-3}) {
    r.machine.disk_latency_s = latency;
    const std::vector<StatementPlan> plans = plan_program(*r.program, r.machine, r.options);
    ASSERT_EQ(plans.size(), 2u);
    ASSERT_TRUE(plans[1].take_A);
    // B and C through their files (the method's stage requests without A), A moved rank to rank
    // from T's C layout of line 7 into this plan's A layout.
    const Plan& p = plans[1].plan;
    StageAccess files{plans[1].gemm.perm_A, plans[1].gemm.perm_B, plans[1].gemm.perm_C, false, plans[1].direct_C, true};
    files.take_A = true;
    std::vector<u64> expected = model_of(p).stage_requests(p, files);
    const std::vector<u64> move = move_requests(array_placement(plans[0].plan, GemmArray::C, plans[0].gemm.perm_C),
                                                array_placement(p, GemmArray::A, plans[1].gemm.perm_A),
                                                handoff_round_elements(r.machine.memory_bytes));
    ASSERT_EQ(move.size(), 4u);
    for (std::size_t q = 0; q < 4; ++q) {
      EXPECT_GT(move[q], 0u);  // every rank reads its part of T and writes its part of A
      expected[q] += move[q];
    }
    EXPECT_EQ(plans[1].redistribution.disk_requests, expected);
    // The time: the slowest rank's bytes and, with a latency, its requests.
    double slowest = 0;
    const PlanVolumes& v = plans[1].redistribution;
    for (std::size_t q = 0; q < 4; ++q)
      slowest = std::max(
          slowest, rank_time_s(1.0, r.machine, v.disk_read_bytes[q], v.disk_write_bytes[q], v.comm_recv_bytes[q]) +
                       latency * static_cast<double>(expected[q]));
    if (latency > 0) {
      EXPECT_DOUBLE_EQ(v.time_s, slowest);
    }
    // The sequence charged the same time to the step it chose.
    const HandoffSequence seq = plan_handoff(*r.program, r.machine, r.options, r.store);
    if (latency > 0 && seq.steps[1].handoff) {
      EXPECT_DOUBLE_EQ(seq.steps[1].plan.redistribution.time_s, v.time_s);
    }
  }
}

}  // namespace
}  // namespace tcec::costmodel

// tests/runtime/blocks/block_file_test.cpp — block files: written and read back exactly, refused
// with their path when broken, and a contraction out of core (A and B read block by block) equal
// to the one in memory, with the bytes and requests block_reads() predicts.
#include "runtime/blocks/block_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "runtime/base/counters.h"
#include "runtime/base/error.h"
#include "runtime/blocks/block_contract.h"
#include "temp_dir.h"

namespace {

using tcert::BlockGroup;
using tcert::BlockLayout;
using tcert::BlockSymmetry;
using Groups = std::vector<BlockGroup>;

// Occupied 2 0 1 1 and virtual 3 1 0 2 orbitals per irrep (C2v), alpha then beta, in tiles of 2.
const Groups kO = tcert::tiles_of({{0, 0, 2}, {0, 2, 1}, {0, 3, 1}, {1, 0, 2}, {1, 2, 1}, {1, 3, 1}}, 2);
const Groups kV = tcert::tiles_of({{0, 0, 3}, {0, 1, 1}, {0, 3, 2}, {1, 0, 3}, {1, 1, 1}, {1, 3, 2}}, 2);

BlockSymmetry four(const Groups& a, const Groups& b, const Groups& c, const Groups& d, int irrep, bool restricted) {
  return {{a, b, c, d}, 2, {{0, 1}, {2, 3}}, irrep, restricted};
}

std::vector<double> random_values(std::int64_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = dist(rng);
  return v;
}

TEST(BlockFile, WritesAndReadsBackEveryBlock) {
  const tcert_test::TempDir dir;
  const BlockLayout t(four(kV, kV, kO, kO, 2, true));
  const std::vector<double> data = random_values(t.elements(), 1);
  tcert::write_block_file(dir.file("t.blocks"), t, data.data());
  EXPECT_FALSE(std::filesystem::exists(dir.file("t.blocks.part")));
  tcert::BlockFile file(dir.file("t.blocks"));
  ASSERT_EQ(file.layout().blocks(), t.blocks());
  EXPECT_EQ(file.layout().elements(), t.elements());
  for (std::size_t b = 0; b < t.blocks(); ++b) {
    EXPECT_EQ(file.layout().key(b), t.key(b));
    const double* got = file.block(b);
    for (std::int64_t x = 0; x < t.block_elements(b); ++x)
      ASSERT_EQ(got[x], data[static_cast<std::size_t>(t.offset(b) + x)]);
  }
  std::vector<double> all(data.size());
  file.read_all(all.data());
  EXPECT_EQ(all, data);
}

TEST(BlockFile, ABlockAskedForAgainIsNotReadAgain) {
  const tcert_test::TempDir dir;
  const BlockLayout t(four(kV, kV, kO, kO, 0, false));
  const std::vector<double> data = random_values(t.elements(), 5);
  tcert::write_block_file(dir.file("t.blocks"), t, data.data());
  tcert::BlockFile file(dir.file("t.blocks"));
  tcert::counters().reset();
  file.block(1);
  file.block(1);
  file.block(0);
  EXPECT_EQ(tcert::counters().total().disk_requests, 2u);
  EXPECT_EQ(tcert::counters().total().disk_read_bytes,
            8u * static_cast<std::uint64_t>(t.block_elements(0) + t.block_elements(1)));
  std::vector<tcert::BlockProduct> products(3);
  products[0].a.block = 1, products[1].a.block = 1, products[2].a.block = 0;
  EXPECT_EQ(tcert::block_reads(products, t, false).requests, 2u);
  EXPECT_EQ(tcert::block_reads(products, t, false).bytes, tcert::counters().total().disk_read_bytes);
}

TEST(BlockFile, StreamingOrderReadsEachBlockOfTheStreamedOperandOnce) {
  const tcert_test::TempDir dir;
  // The ladder with v streamed from disk, t and r in memory: v's used blocks read once each.
  const BlockLayout t(four(kV, kV, kO, kO, 0, true)), v(four(kV, kV, kV, kV, 0, true));
  const tcert::BlockLabels labels{"efij", "abef", "abij", {"ef"}};
  const std::vector<tcert::BlockProduct> loops = tcert::block_products(t, v, t, labels);
  const std::vector<tcert::BlockProduct> streamed = tcert::streaming_order(loops, true);
  std::vector<bool> used(v.blocks(), false);
  std::uint64_t used_bytes = 0, used_blocks = 0;
  for (const tcert::BlockProduct& p : loops)
    if (!used[p.b.block]) {
      used[p.b.block] = true;
      used_bytes += 8u * static_cast<std::uint64_t>(v.block_elements(p.b.block));
      ++used_blocks;
    }
  const std::vector<double> a = random_values(t.elements(), 6), b = random_values(v.elements(), 7);
  tcert::write_block_file(dir.file("v.blocks"), v, b.data());
  tcert::Workspace ws;
  std::vector<double> loop_order(static_cast<std::size_t>(t.elements()), 0.0), streaming = loop_order;
  tcert::BlockContraction(t, v, t, labels, loops).run(0.5, a.data(), b.data(), loop_order.data(), ws);
  tcert::BlockFile file_v(dir.file("v.blocks"));
  tcert::MemoryBlocks memory_t(t, a.data());
  const tcert::BlockContraction run(t, v, t, labels, streamed);
  tcert::counters().reset();
  run.run(0.5, memory_t, file_v, streaming.data(), ws);
  EXPECT_EQ(tcert::counters().total().disk_read_bytes, used_bytes);
  EXPECT_EQ(tcert::counters().total().disk_requests, used_blocks);
  EXPECT_EQ(tcert::block_reads(streamed, v, true).bytes, used_bytes);
  EXPECT_LE(used_bytes, 8u * static_cast<std::uint64_t>(v.elements()));
  for (std::size_t x = 0; x < streaming.size(); ++x) EXPECT_NEAR(streaming[x], loop_order[x], 1e-14);
}

TEST(BlockSchedule, ReadsTheFewestBytesThatFitTheMemory) {
  const BlockLayout t(four(kV, kV, kO, kO, 0, true)), v(four(kV, kV, kV, kV, 0, true));
  const std::vector<tcert::BlockProduct> products = tcert::block_products(t, v, t, {"efij", "abef", "abij", {"ef"}});
  std::uint64_t largest_t = 0, largest_v = 0, largest_c = 0;
  for (std::size_t b = 0; b < t.blocks(); ++b) largest_t = std::max<std::uint64_t>(largest_t, t.block_elements(b));
  for (std::size_t b = 0; b < v.blocks(); ++b) largest_v = std::max<std::uint64_t>(largest_v, v.block_elements(b));
  for (const tcert::BlockProduct& p : products) largest_c = std::max<std::uint64_t>(largest_c, t.block_elements(p.c));
  const auto T = static_cast<std::uint64_t>(t.elements()), V = static_cast<std::uint64_t>(v.elements());
  // Everything fits: nothing is read.
  const std::optional<tcert::BlockSchedule> all = tcert::block_schedule(t, v, t, products, 8 * (2 * T + V + largest_c));
  ASSERT_TRUE(all);
  EXPECT_FALSE(all->stream_a || all->stream_b);
  EXPECT_EQ(all->reads.bytes, 0u);
  EXPECT_EQ(all->memory_bytes, 8 * (2 * T + V + largest_c));
  // One byte less: one operand streamed once in its blocks' order, the other and r held: the one
  // that reads fewer bytes (here t: v's blocks are used by few of r's).
  const std::uint64_t stream_v = 8 * (2 * T + 2 * largest_v + largest_c),
                      stream_t = 8 * (T + 2 * largest_t + V + largest_c);
  const tcert::BlockReads reads_v = tcert::block_reads(tcert::streaming_order(products, true), v, true),
                          reads_t = tcert::block_reads(tcert::streaming_order(products, false), t, false);
  const std::optional<tcert::BlockSchedule> one =
      tcert::block_schedule(t, v, t, products, 8 * (2 * T + V + largest_c) - 1);
  ASSERT_TRUE(one);
  ASSERT_LT(reads_t.bytes, reads_v.bytes);
  EXPECT_TRUE(one->stream_a && !one->stream_b);
  EXPECT_EQ(one->memory_bytes, stream_t);
  EXPECT_EQ(one->reads.bytes, reads_t.bytes);
  EXPECT_LE(reads_t.bytes, 8 * T);
  // Where t held no longer fits but v streamed does: v streamed once.
  ASSERT_LT(stream_v, stream_t);
  const std::optional<tcert::BlockSchedule> b = tcert::block_schedule(t, v, t, products, stream_t - 1);
  ASSERT_TRUE(b);
  EXPECT_TRUE(!b->stream_a && b->stream_b);
  EXPECT_EQ(b->memory_bytes, stream_v);
  EXPECT_EQ(b->reads.bytes, reads_v.bytes);
  EXPECT_LE(b->reads.bytes, 8 * V);
  // Below that, both streamed in the TCE's order: every product reads its two blocks.
  const std::optional<tcert::BlockSchedule> both = tcert::block_schedule(t, v, t, products, stream_v - 1);
  ASSERT_TRUE(both);
  EXPECT_TRUE(both->stream_a && both->stream_b);
  EXPECT_EQ(both->reads.requests, 2 * products.size());
  EXPECT_EQ(both->memory_bytes, 8 * (T + 2 * largest_t + 2 * largest_v + largest_c));
  EXPECT_FALSE(tcert::block_schedule(t, v, t, products, both->memory_bytes - 1));
}

TEST(BlockFile, RefusesWhatIsNotABlockFileWithItsPath) {
  const tcert_test::TempDir dir;
  const auto message = [](const std::string& path) {
    try {
      tcert::BlockFile file(path);
    } catch (const tcert::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(dir.file("none.blocks")), "cannot open " + dir.file("none.blocks") + ": no such file");
  EXPECT_FALSE(std::filesystem::exists(dir.file("none.blocks")));
  std::ofstream(dir.file("text.blocks")) << "hello\n";
  EXPECT_EQ(message(dir.file("text.blocks")), dir.file("text.blocks") + ": not a block file (shorter than its header)");
  const BlockLayout t(four(kV, kV, kO, kO, 0, false));
  const std::vector<double> data = random_values(t.elements(), 2);
  tcert::write_block_file(dir.file("t.blocks"), t, data.data());
  std::filesystem::resize_file(dir.file("t.blocks"), tcert::kBlockHeaderBytes + 8);
  EXPECT_EQ(message(dir.file("t.blocks")), dir.file("t.blocks") + ": a block file shorter than its blocks");
}

TEST(BlockFile, AContractionOutOfCoreEqualsItInMemoryWithThePredictedReads) {
  const tcert_test::TempDir dir;
  for (bool restricted : {false, true}) {
    // r[a,b,i,j] += 1/2 · t[e,f,i,j] · v[a,b,e,f], t and v from block files.
    const BlockLayout t(four(kV, kV, kO, kO, 0, restricted)), v(four(kV, kV, kV, kV, 0, restricted));
    const tcert::BlockLabels labels{"efij", "abef", "abij", {"ef"}};
    const std::vector<tcert::BlockProduct> products = tcert::block_products(t, v, t, labels);
    const std::vector<double> a = random_values(t.elements(), 3), b = random_values(v.elements(), 4);
    tcert::write_block_file(dir.file("t.blocks"), t, a.data());
    tcert::write_block_file(dir.file("v.blocks"), v, b.data());
    const tcert::BlockContraction run(t, v, t, labels, products);
    tcert::Workspace ws;
    std::vector<double> in_memory(static_cast<std::size_t>(t.elements()), 0.0), out_of_core = in_memory;
    run.run(0.5, a.data(), b.data(), in_memory.data(), ws);
    tcert::BlockFile file_t(dir.file("t.blocks")), file_v(dir.file("v.blocks"));
    tcert::counters().reset();
    run.run(0.5, file_t, file_v, out_of_core.data(), ws);
    const tcert::Volumes measured = tcert::counters().total();
    EXPECT_EQ(out_of_core, in_memory);
    const tcert::BlockReads reads_t = tcert::block_reads(products, t, false),
                            reads_v = tcert::block_reads(products, v, true);
    EXPECT_EQ(measured.disk_read_bytes, reads_t.bytes + reads_v.bytes);
    EXPECT_EQ(measured.disk_requests, reads_t.requests + reads_v.requests);
    // The TCE's loop order: every product reads both of its blocks (the summed pair changes both).
    EXPECT_EQ(reads_t.requests, products.size());
    EXPECT_EQ(reads_v.requests, products.size());
  }
}

}  // namespace

// tests/runtime/mpi/copy_mpi.cpp — copy_step on P ranks (P = the MPI world size) from a .npy
// input: a fill with reordered dimensions, then an addition with other reordered dimensions,
// against values computed here, with and without --verify (without it, an addition of another
// tensor updates the latest version in place). At P = 1 the step goes through the transposing
// kernel (one rank's whole tensor from mapped files), at P > 1 element by element over each
// rank's range. Also versions held in memory unwritten on one rank, the spare files a released
// version becomes, input mappings kept from one run to the next, and the bound on mapped pages a
// run derives from the memory per rank.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "runtime/methods/copy_step.h"
#include "runtime/program/run.h"
#include "runtime/storage/npy.h"
#include "runtime/storage/spare_files.h"

namespace {

/// A new directory NAME-<rank 0's pid> in the temporary directory, made by rank 0; its path on every rank.
std::string shared_temp_dir(const tcert::Context& ctx, const std::string& name) {
  return ctx.root_value([&] {
    const auto path = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    return path.string();
  });
}

TEST(CopyStep, ReordersAndAddsFromAnInputFile) {
  tcert::Context ctx = tcert::Context::world();
  const std::string dir = shared_temp_dir(ctx, "copy-step");
  const std::int64_t e0 = 3, e1 = 4, e2 = 5;  // in[a, b, c]
  auto in_value = [](std::int64_t linear) { return std::sin(0.3 + 0.71 * static_cast<double>(linear)); };
  if (ctx.rank() == 0) {
    tcert::NpyWriter w(dir + "/X.npy", {3, 4, 5});
    for (std::size_t e = 0; e < w.size(); ++e) w.data()[e] = in_value(static_cast<std::int64_t>(e));
    w.commit(true);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  tcert::TensorLocations files;
  files.inputs = {{"X", {dir + "/X.npy", ""}}};
  // An addition of another tensor updates Y's latest version in place, unless --verify needs
  // the version before (then it writes the next); adding Y to itself always writes the next.
  for (bool verify : {false, true}) {
    tcert::RunOptions options;
    options.quiet = true, options.verify = verify;
    tcert::Run run(ctx, options, files,
                   tcert::ProgramInfo{"copy", "test", ctx.size(), 0, {{"X", {e0, e1, e2}}}, {}, "", 0});
    // Y[c, a, b] = 2 · X[a, b, c]; then Y += -0.5 · Y (in and out the same tensor); then
    // Y[c, a, b] += X[a, b, c] again. Out dimension d takes in dimension in_dim_of_out[d].
    tcert::CopySpec fill{"Y[c,a,b] = 2 * X[a,b,c]", {"Y", {e2, e0, e1}}, {"X", {e0, e1, e2}}, {2, 0, 1}, 2.0, false};
    tcert::copy_step(run, fill);
    tcert::CopySpec add{"Y[c,a,b] += -0.5 * Y[c,a,b]", {"Y", {e2, e0, e1}}, {"Y", {e2, e0, e1}}, {0, 1, 2}, -0.5, true};
    const std::string filled = run.store().latest("Y");
    tcert::copy_step(run, add);  // reads Y's version of the fill, as in and as the start
    const std::string added = run.store().latest("Y");
    EXPECT_NE(added, filled);
    tcert::CopySpec again{
        "Y[c,a,b] += X[a,b,c] (again)", {"Y", {e2, e0, e1}}, {"X", {e0, e1, e2}}, {2, 0, 1}, 1.0, true};
    tcert::copy_step(run, again);
    EXPECT_EQ(run.store().latest("Y") == added, !verify);
    // One rank: every version stays in memory, with no file, until one is needed.
    EXPECT_EQ(std::filesystem::exists(run.store().latest("Y")), !run.defers_writes());
    run.held().write_out(run.store().latest("Y"));
    const tcert::NpyReader y(run.store().latest("Y"));
    ASSERT_EQ(y.size(), static_cast<std::size_t>(e0 * e1 * e2));
    for (std::int64_t c = 0; c < e2; ++c)
      for (std::int64_t a = 0; a < e0; ++a)
        for (std::int64_t b = 0; b < e1; ++b) {
          const double x = in_value((a * e1 + b) * e2 + c);
          const double expected = 2.0 * x * 0.5 + x;  // fill, then Y - 0.5·Y, then + X
          EXPECT_NEAR(y.data()[(c * e0 + a) * e1 + b], expected, 1e-15) << c << " " << a << " " << b;
        }
    MPI_Barrier(MPI_COMM_WORLD);  // every rank has read the store before rank 0's Run removes it
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (ctx.rank() == 0) std::filesystem::remove_all(dir);
}

// A released version goes to the spare files on rank 0 (SpareFiles), and the next version of its
// size is written in it, from zeros: the values are those of a new file.
TEST(CopyStep, ReleasedVersionsAreWrittenAgain) {
  tcert::Context ctx = tcert::Context::world();
  const std::int64_t e0 = 6, e1 = 7;
  tcert::RunOptions options;
  options.quiet = true, options.random_seed = 5;
  tcert::Run run(ctx, options, {}, tcert::ProgramInfo{"spare", "test", ctx.size(), 0, {{"X", {e0, e1}}}, {}, "", 0});
  const std::uint64_t before = tcert::spare_files().bytes();
  tcert::CopySpec fill{"Y[b,a] = 3 * X[a,b]", {"Y", {e1, e0}}, {"X", {e0, e1}}, {1, 0}, 3.0, false};
  tcert::copy_step(run, fill);
  // One rank (Run::defers_writes()): Y stays in memory and has no file to give to the spares.
  const bool files = !run.defers_writes();
  const std::string first = run.store().latest("Y");
  EXPECT_EQ(std::filesystem::exists(first), files);
  const std::uint64_t bytes = files ? std::filesystem::file_size(first) : 0;
  MPI_Barrier(MPI_COMM_WORLD);  // every rank has looked at the file before rank 0 releases it
  run.release("Y");
  EXPECT_EQ(tcert::spare_files().bytes(), before + (ctx.rank() == 0 ? bytes : 0));
  tcert::CopySpec twice{"Z[b,a] = 2 * X[a,b]", {"Z", {e1, e0}}, {"X", {e0, e1}}, {1, 0}, 2.0, false};
  tcert::copy_step(run, twice);
  EXPECT_EQ(tcert::spare_files().bytes(), before);  // taken for Z
  run.held().write_out(run.store().latest("Z"));
  const tcert::NpyReader z(run.store().latest("Z"));
  const tcert::ElementSource x = run.input({"X", {e0, e1}});
  for (std::int64_t b = 0; b < e1; ++b)
    for (std::int64_t a = 0; a < e0; ++a) EXPECT_EQ(z.data()[b * e0 + a], 2.0 * x(a * e1 + b)) << a << " " << b;
  MPI_Barrier(MPI_COMM_WORLD);  // every rank has read the store before rank 0's Run removes it
}

// On one rank (Run::defers_writes()) a version stays in memory, with no file, until something
// needs one: write_out() writes a new file, or an updated version's file in place (a mapping of it
// made before sees the values), release() drops a version that has none, and the export writes
// an output from memory. On more ranks every version has its file.
TEST(CopyStep, OneRankVersionsStayInMemoryUntilAFileIsNeeded) {
  tcert::Context ctx = tcert::Context::world();
  const std::string dir = shared_temp_dir(ctx, "unwritten");
  const std::int64_t e0 = 4, e1 = 6;
  const tcert::TensorShape x_shape{"X", {e0, e1}}, y_shape{"Y", {e1, e0}}, z_shape{"Z", {e1, e0}};
  tcert::TensorLocations files;
  files.outputs = {{"Y", {dir + "/Y.npy", ""}}};
  tcert::RunOptions options;
  options.quiet = true, options.random_seed = 9;
  const bool defers = ctx.size() == 1;
  {
    tcert::Run run(ctx, options, files,
                   tcert::ProgramInfo{"unwritten", "test", ctx.size(), 0, {x_shape}, {y_shape}, "", 0});
    EXPECT_EQ(run.defers_writes(), defers);
    const tcert::ElementSource x = run.input(x_shape);
    auto expect_y = [&](const double* y, double factor, const char* where) {  // y = factor · Xᵀ
      for (std::int64_t b = 0; b < e1; ++b) {
        for (std::int64_t a = 0; a < e0; ++a)
          EXPECT_EQ(y[b * e0 + a], factor * x(a * e1 + b)) << where << " " << a << " " << b;
      }
    };
    tcert::copy_step(run, {"Y[b,a] = 2 * X[a,b]", y_shape, x_shape, {1, 0}, 2.0, false});
    const std::string v = run.store().latest("Y");
    EXPECT_EQ(std::filesystem::exists(v), !defers);
    EXPECT_EQ(run.held().unwritten(v) != nullptr, defers);
    run.held().write_out(v);  // a new file; the data stay held
    EXPECT_TRUE(std::filesystem::exists(v));
    EXPECT_EQ(run.held().unwritten(v), nullptr);
    const tcert::NpyReader mapped(v);
    expect_y(mapped.data(), 2, "written out");
    // An addition in place: the run reads the new values, the file keeps the old until written out.
    tcert::copy_step(run, {"Y[b,a] += X[a,b]", y_shape, x_shape, {1, 0}, 1.0, true});
    EXPECT_EQ(run.store().latest("Y"), v);
    EXPECT_EQ(run.held().unwritten(v) != nullptr, defers);
    expect_y(run.input(y_shape).data(), 3, "read through the run");
    expect_y(mapped.data(), defers ? 2 : 3, "the file before write_out()");
    run.held().write_out(v);
    expect_y(mapped.data(), 3, "the file after write_out(), through the mapping made before");
    // A version with no file, released: nothing to remove.
    tcert::copy_step(run, {"Z[b,a] = X[a,b]", z_shape, x_shape, {1, 0}, 1.0, false});
    const std::string z = run.store().latest("Z");
    EXPECT_EQ(std::filesystem::exists(z), !defers);
    MPI_Barrier(MPI_COMM_WORLD);  // every rank has looked at the file before rank 0 releases it
    run.release("Z");
    EXPECT_TRUE(!defers || !std::filesystem::exists(z));
    // Y's next version (Y += 0.5·Y: in and out the same tensor) is exported from memory.
    tcert::copy_step(run, {"Y[b,a] += 0.5 * Y[b,a]", y_shape, y_shape, {0, 1}, 0.5, true});
    EXPECT_NE(run.store().latest("Y"), v);
    EXPECT_EQ(std::filesystem::exists(run.store().latest("Y")), !defers);
    MPI_Barrier(MPI_COMM_WORLD);  // every rank has looked at the file before rank 0 exports it
    run.finish();
  }
  const tcert::NpyReader out(dir + "/Y.npy");
  tcert::Run reader(ctx, options, {}, tcert::ProgramInfo{"reader", "test", ctx.size(), 0, {x_shape}, {}, "", 0});
  const tcert::ElementSource x = reader.input(x_shape);
  for (std::int64_t b = 0; b < e1; ++b)
    for (std::int64_t a = 0; a < e0; ++a) {
      const double y = 3 * x(a * e1 + b);  // as the steps round it
      EXPECT_EQ(out.data()[b * e0 + a], y + 0.5 * y) << a << " " << b;
    }
  MPI_Barrier(MPI_COMM_WORLD);
  if (ctx.rank() == 0) std::filesystem::remove_all(dir);
}

// An input file stays mapped from one run to the next while the path names the same file; a file
// written anew under that path is mapped anew, and its values are read.
TEST(MappedPages, InputsStayMappedForLaterRunsOfTheSameFile) {
  tcert::Context ctx = tcert::Context::world();
  const std::string dir = shared_temp_dir(ctx, "mapped-inputs");
  auto write = [&](double value) {
    MPI_Barrier(MPI_COMM_WORLD);  // every rank has read the file before rank 0 replaces it
    if (ctx.rank() == 0) {
      tcert::NpyWriter w(dir + "/X.npy", {2, 3});
      for (std::size_t e = 0; e < w.size(); ++e) w.data()[e] = value + static_cast<double>(e);
      w.commit(false);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  };
  tcert::TensorLocations files;
  files.inputs = {{"X", {dir + "/X.npy", ""}}};
  tcert::RunOptions options;
  options.quiet = true;
  const tcert::TensorShape x{"X", {2, 3}};
  auto read = [&](double* first) {  // X's mapping in a new run, and its element 1 (into *first)
    tcert::Run run(ctx, options, files, tcert::ProgramInfo{"inputs", "test", ctx.size(), 0, {x}, {}, "", 0});
    const tcert::ElementSource source = run.input(x);
    *first = source(1);
    return source.data();
  };
  write(10.0);
  double value = 0;
  const double* mapped = read(&value);
  EXPECT_EQ(value, 11.0);
  EXPECT_EQ(read(&value), mapped);  // the same mapping
  write(20.0);                      // another file under the same path
  read(&value);
  EXPECT_EQ(value, 21.0);
  MPI_Barrier(MPI_COMM_WORLD);
  if (ctx.rank() == 0) std::filesystem::remove_all(dir);
}

// The growth of mapped pages after which a run drops them: half of what the step's tile
// buffers leave of the memory per rank, at least 8 MiB, and 8 MiB where the memory is unlimited.
TEST(MappedPages, DropBoundFollowsTheMemoryTheTilesLeave) {
  tcert::Context ctx = tcert::Context::world();
  constexpr std::uint64_t MB = std::uint64_t{1} << 20, floor = tcert::MappedInputs::kDropBytes;
  tcert::RunOptions options;
  options.quiet = true;
  for (const std::uint64_t memory : {std::uint64_t{0}, 512 * MB}) {
    tcert::Run run(ctx, options, {}, tcert::ProgramInfo{"bound", "test", ctx.size(), memory, {}, {}, "", 0});
    run.mapped().bound_pages(100 * MB);
    EXPECT_EQ(run.mapped().drop_bytes(), memory == 0 ? floor : 206 * MB);
    run.mapped().bound_pages(510 * MB);  // a plan that fills the memory: the floor
    EXPECT_EQ(run.mapped().drop_bytes(), floor);
    run.step([](tcert::Run&) {});  // no buffers held between steps: half the memory
    EXPECT_EQ(run.mapped().drop_bytes(), memory == 0 ? floor : 256 * MB);
  }
}

}  // namespace

// tests/runtime/mpi/generated_mpi.cpp — run_generated() (runtime/program/generated.h) on P ranks, with a
// one-statement program B[j,i] = 2·A[i,j] (a copy step) as its steps: repeated calls with .npy
// and HDF5 inputs and outputs leave no scratch files, store or memory behind and give the
// right values; failures come back as the same Status on every rank (a missing input, the
// wrong number of ranks, locations that do not fit, an error every rank throws) and the next
// call works; the function runs on a sub-communicator; a checkpointed call that fails resumes. DISABLED_RankFailsAloneInsideACollective is
// run on its own by ctest (runtime.mpi.generated_abort): the job must end by MPI_Abort.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/base/error.h"
#include "runtime/base/memory.h"
#include "runtime/comm/comm.h"
#include "runtime/methods/copy_step.h"
#include "runtime/program/generated.h"
#include "runtime/storage/npy.h"

namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kRows = 5, kCols = 6;

tcert::ProgramInfo transpose_info(std::int64_t processors) {
  return {"transpose",
          "generated_mpi.cpp",
          processors,
          1 << 20,
          {{"A", {kRows, kCols}}},
          {{"B", {kCols, kRows}}},
          "0123456789abcdef",
          1};
}

void transpose_steps(tcert::Run& run) {
  tcert::copy_step(run, {"B[j,i] = 2 * A[i,j]", {"B", {kCols, kRows}}, {"A", {kRows, kCols}}, {1, 0}, 2.0, false});
}

double a_value(std::int64_t i, std::int64_t j, int call) {
  return 100.0 * call + 10.0 * static_cast<double>(i) + static_cast<double>(j);
}

/// A directory all ranks share (made by rank 0), removed at the end.
class SharedDir {
 public:
  explicit SharedDir(const tcert::Context& ctx) : ctx_(ctx) {
    std::string path;
    if (ctx.rank() == 0) {
      std::string pattern = "/tmp/tcert-generated-XXXXXX";
      if (::mkdtemp(pattern.data()) == nullptr) std::abort();
      path = pattern;
    }
    path_ = ctx.bcast_string(path);
  }
  ~SharedDir() {
    ctx_.barrier();
    std::error_code ec;
    if (ctx_.rank() == 0) fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  tcert::Context ctx_;
  std::string path_;
};

void write_npy_input(const std::string& path, int call) {
  tcert::NpyWriter writer(path, {kRows, kCols});
  for (std::int64_t i = 0; i < kRows; ++i)
    for (std::int64_t j = 0; j < kCols; ++j) writer.data()[i * kCols + j] = a_value(i, j, call);
  writer.commit();
}

void write_h5_input(const std::string& path, const std::string& dataset, int call) {
  std::vector<double> values;
  for (std::int64_t i = 0; i < kRows; ++i)
    for (std::int64_t j = 0; j < kCols; ++j) values.push_back(a_value(i, j, call));
  const hsize_t dims[2] = {kRows, kCols};
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t space = H5Screate_simple(2, dims, nullptr);
  const hid_t links = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(links, 1);
  const hid_t set = H5Dcreate2(file, dataset.c_str(), H5T_NATIVE_DOUBLE, space, links, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(set);
  H5Pclose(links);
  H5Sclose(space);
  H5Fclose(file);
}

std::vector<double> read_h5_output(const std::string& path, const std::string& dataset) {
  std::vector<double> values(kRows * kCols);
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t set = H5Dopen2(file, dataset.c_str(), H5P_DEFAULT);
  const hid_t space = H5Dget_space(set);
  hsize_t dims[2] = {0, 0};
  EXPECT_EQ(H5Sget_simple_extent_ndims(space), 2);
  H5Sget_simple_extent_dims(space, dims, nullptr);
  EXPECT_EQ(dims[0], static_cast<hsize_t>(kCols));
  EXPECT_EQ(dims[1], static_cast<hsize_t>(kRows));
  H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Sclose(space);
  H5Dclose(set);
  H5Fclose(file);
  return values;
}

/// B = 2·Aᵀ of call `call`'s A, row-major [kCols, kRows].
void expect_transpose(const std::vector<double>& b, int call) {
  ASSERT_EQ(b.size(), static_cast<std::size_t>(kRows * kCols));
  for (std::int64_t j = 0; j < kCols; ++j)
    for (std::int64_t i = 0; i < kRows; ++i)
      EXPECT_EQ(b[static_cast<std::size_t>(j * kRows + i)], 2 * a_value(i, j, call))
          << "call " << call << " B[" << j << "," << i << "]";
}

std::vector<double> read_npy_output(const std::string& path) {
  const tcert::NpyReader reader(path);
  EXPECT_EQ(reader.header().shape, (std::vector<std::uint64_t>{kCols, kRows}));
  return {reader.data(), reader.data() + reader.size()};
}

/// Every rank's message, the same on all (checked on rank 0).
void expect_same_message_everywhere(const tcert::Context& ctx, const tcert::Status& status) {
  const std::string root = ctx.bcast_string(status.message());
  EXPECT_EQ(status.message(), root);
}

// Calls with .npy and HDF5 inputs and outputs in turn, three times each: right values, and
// nothing left behind (no rank directory or store under the scratch, no tile memory in use,
// the budget's limit the program's).
TEST(Generated, RepeatedCallsLeaveNothingBehind) {
  const tcert::Context ctx = tcert::Context::world();
  const SharedDir dir(ctx);
  for (int call = 0; call < 6; ++call) {
    const bool hdf5 = call % 2 == 1;
    if (ctx.rank() == 0)
      hdf5 ? write_h5_input(dir.file("in.h5"), "group/A", call) : write_npy_input(dir.file("A.npy"), call);
    ctx.barrier();
    tcert::TensorLocations tensors;
    tensors.inputs["A"] =
        hdf5 ? tcert::TensorFile{dir.file("in.h5"), "group/A"} : tcert::TensorFile{dir.file("A.npy"), ""};
    tensors.outputs["B"] = {dir.file(hdf5 ? "out/B.h5" : "out/B.npy"), ""};
    tcert::RunOptions options;
    options.quiet = true;
    options.scratch = dir.file("scratch");
    const tcert::Status status =
        tcert::run_generated(MPI_COMM_WORLD, tensors, options, transpose_info(ctx.size()), transpose_steps);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(tcert::budget().in_use_bytes(), 0u);
    EXPECT_EQ(tcert::budget().limit_bytes(), 1u << 20);
    ctx.barrier();
    if (ctx.rank() == 0) {
      expect_transpose(hdf5 ? read_h5_output(dir.file("out/B.h5"), "B") : read_npy_output(dir.file("out/B.npy")), call);
      // Empty, or never made (one rank: nothing of this program needed it)
      EXPECT_TRUE(!fs::exists(dir.file("scratch")) || fs::is_empty(dir.file("scratch"))) << "call " << call;
      for (const auto& entry : fs::directory_iterator(dir.file("out"))) {
        EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
        // every rank saw the output directory (shared_paths.h): the probe file is gone
        EXPECT_EQ(entry.path().string().find(".tcec-shared-"), std::string::npos) << entry.path();
      }
    }
    ctx.barrier();
  }
}

/// This rank's part [first, end) of n elements: slot k of the P slots holds n/P + k % 2 elements
/// (the last slot the rest) and rank r the slot P - 1 - r (rank 0 the last elements); with
/// `hole` rank 1 (of 3 or more) holds none, rank 0's slot starting where rank 1's did.
std::pair<std::uint64_t, std::uint64_t> uneven_part(const tcert::Context& ctx, std::uint64_t n, bool hole) {
  const auto P = static_cast<std::uint64_t>(ctx.size()), slot = P - 1 - static_cast<std::uint64_t>(ctx.rank());
  std::vector<std::uint64_t> starts{0};
  for (std::uint64_t k = 0; k + 1 < P; ++k) starts.push_back(starts.back() + n / P + k % 2);
  starts.push_back(n);
  if (hole && P >= 3) starts[P - 1] = starts[P - 2];  // slot P - 2 (rank 1) empty
  return {starts[slot], starts[slot + 1]};
}

// Inputs and outputs as parts in memory, each rank its own uneven range (one holding none): the
// right values in every rank's part of B, no file named by the caller (also on emulated nodes
// with node-local scratch: e2e.cluster.parts); and parts that overlap,
// miss an element, are given on some ranks only, or also as a file, are a Status on every rank.
TEST(Generated, PartsInMemoryAreReadAndWrittenRankByRank) {
  const tcert::Context ctx = tcert::Context::world();
  const SharedDir dir(ctx);
  const std::uint64_t n = kRows * kCols;
  const auto [a_first, a_end] = uneven_part(ctx, n, true);
  std::vector<double> a;
  for (std::uint64_t e = a_first; e < a_end; ++e)
    a.push_back(a_value(static_cast<std::int64_t>(e) / kCols, static_cast<std::int64_t>(e) % kCols, 7));
  const auto [b_first, b_end] = uneven_part(ctx, n, false);
  std::vector<double> b(b_end - b_first, -1.0);
  tcert::TensorLocations tensors;
  tensors.input_parts["A"] = {a, a_first};
  tensors.output_parts["B"] = {b, b_first};
  tcert::RunOptions options;
  options.quiet = true;  // scratch and store under $TMPDIR: node-local where e2e.cluster.parts runs this
  tcert::Status status =
      tcert::run_generated(MPI_COMM_WORLD, tensors, options, transpose_info(ctx.size()), transpose_steps);
  ASSERT_TRUE(status.ok()) << status.message();
  for (std::uint64_t e = b_first; e < b_end; ++e) {  // B[j,i] = 2·A[i,j], e = j·kRows + i
    const auto j = static_cast<std::int64_t>(e) / kRows, i = static_cast<std::int64_t>(e) % kRows;
    EXPECT_EQ(b[e - b_first], 2 * a_value(i, j, 7)) << "B[" << j << "," << i << "] on rank " << ctx.rank();
  }
  if (ctx.size() >= 2) {  // rank 0's part one element earlier: it overlaps the previous one
    const std::uint64_t earlier = std::stoull(ctx.bcast_string(std::to_string(a_first - 1)));
    tensors.input_parts["A"] = {a, ctx.rank() == 0 ? earlier : a_first};
    status = tcert::run_generated(MPI_COMM_WORLD, tensors, options, transpose_info(ctx.size()), transpose_steps);
    EXPECT_EQ(
        status.message(),
        fmt::format("input A: its parts in memory overlap at element {} (every element must be in one part)", earlier));
  }
  // rank 0's part one element short: the last element is in none
  tensors.input_parts["A"] = {std::span<double>(a).first(ctx.rank() == 0 ? a.size() - 1 : a.size()), a_first};
  status = tcert::run_generated(MPI_COMM_WORLD, tensors, options, transpose_info(ctx.size()), transpose_steps);
  EXPECT_EQ(status.message(),
            fmt::format("input A: its parts in memory miss element {} (every element must be in one part)", n - 1));
  expect_same_message_everywhere(ctx, status);
  tensors.input_parts["A"] = {a, a_first};
  if (ctx.rank() == ctx.size() - 1) tensors.output_parts.erase("B");
  status = tcert::run_generated(MPI_COMM_WORLD, tensors, options, transpose_info(ctx.size()), transpose_steps);
  if (ctx.size() > 1) {
    EXPECT_EQ(status.message(),
              fmt::format("output B: given as parts in memory on some ranks but not on rank {}", ctx.size() - 1));
  }
  tensors.output_parts["B"] = {b, b_first};
  tensors.inputs["A"] = {dir.file("A.npy"), ""};
  status = tcert::run_generated(MPI_COMM_WORLD, tensors, options, transpose_info(ctx.size()), transpose_steps);
  EXPECT_EQ(status.message(), "input A: given both as a file and as parts in memory");
  expect_same_message_everywhere(ctx, status);
}

// One rank whose results stay in memory makes neither its scratch directory nor the store (they
// are made by the first file they hold): with --scratch under a plain file it still runs. On more
// ranks both are made at the start, and that fails on every rank.
TEST(Generated, OneRankInMemoryMakesNoDirectories) {
  const tcert::Context ctx = tcert::Context::world();
  const SharedDir dir(ctx);
  if (ctx.rank() == 0) {
    write_npy_input(dir.file("A.npy"), 3);
    std::ofstream(dir.file("plain")) << "not a directory";
  }
  ctx.barrier();
  tcert::TensorLocations tensors;
  tensors.inputs["A"] = {dir.file("A.npy"), ""};
  tensors.outputs["B"] = {dir.file("B.npy"), ""};
  tcert::RunOptions options;
  options.quiet = true;
  options.scratch = dir.file("plain/scratch");
  const tcert::Status status =
      tcert::run_generated(MPI_COMM_WORLD, tensors, options, transpose_info(ctx.size()), transpose_steps);
  if (ctx.size() == 1) {
    ASSERT_TRUE(status.ok()) << status.message();
    expect_transpose(read_npy_output(dir.file("B.npy")), 3);
  } else {
    EXPECT_EQ(status.message().rfind("cannot create scratch directory " + dir.file("plain/scratch"), 0), 0u)
        << status.message();
    expect_same_message_everywhere(ctx, status);
  }
}

// A missing input: the same failure on every rank, no output, and the next call works.
TEST(Generated, MissingInputIsAStatusAndTheNextCallWorks) {
  const tcert::Context ctx = tcert::Context::world();
  const SharedDir dir(ctx);
  tcert::TensorLocations tensors;
  tensors.inputs["A"] = {dir.file("none.h5"), ""};
  tensors.outputs["B"] = {dir.file("B.h5"), ""};
  tcert::RunOptions options;
  options.quiet = true;
  options.scratch = dir.path();
  const tcert::Status failed =
      tcert::run_generated(MPI_COMM_WORLD, tensors, options, transpose_info(ctx.size()), transpose_steps);
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.message(), "input A: cannot open " + dir.file("none.h5") + ": No such file or directory");
  expect_same_message_everywhere(ctx, failed);
  EXPECT_FALSE(fs::exists(dir.file("B.h5")));
  if (ctx.rank() == 0) write_npy_input(dir.file("A.npy"), 7);
  ctx.barrier();
  tensors.inputs["A"] = {dir.file("A.npy"), ""};
  const tcert::Status ok =
      tcert::run_generated(MPI_COMM_WORLD, tensors, options, transpose_info(ctx.size()), transpose_steps);
  ASSERT_TRUE(ok.ok()) << ok.message();
  if (ctx.rank() == 0) {
    expect_transpose(read_h5_output(dir.file("B.h5"), "B"), 7);
  }
}

// Locations that do not fit the program, and the wrong number of ranks: a Status on every rank.
TEST(Generated, BadArgumentsAreAStatusOnEveryRank) {
  const tcert::Context ctx = tcert::Context::world();
  const SharedDir dir(ctx);
  tcert::RunOptions options;
  options.quiet = true;
  options.scratch = dir.path();
  tcert::TensorLocations tensors;
  tcert::Status status =
      tcert::run_generated(MPI_COMM_WORLD, tensors, options, transpose_info(ctx.size()), transpose_steps);
  EXPECT_EQ(status.message(), "input A: no location given and no random seed");
  tensors.inputs["Q"] = {dir.file("Q.npy"), ""};
  status = tcert::run_generated(MPI_COMM_WORLD, tensors, options, transpose_info(ctx.size()), transpose_steps);
  EXPECT_EQ(status.message(), "input Q: the program has no input of that name (its inputs: A)");
  tensors = {};
  tensors.outputs["B"] = {dir.file("B.txt"), ""};
  options.random_seed = 3;
  status = tcert::run_generated(MPI_COMM_WORLD, tensors, options, transpose_info(ctx.size()), transpose_steps);
  EXPECT_EQ(status.message(), "output B: unknown format of " + dir.file("B.txt") + " (expected .npy, .h5 or .hdf5)");
  status = tcert::run_generated(MPI_COMM_WORLD, {}, options, transpose_info(ctx.size() + 1), transpose_steps);
  EXPECT_EQ(status.message(), "this program was planned for P = " + std::to_string(ctx.size() + 1) +
                                  " processes but runs on " + std::to_string(ctx.size()) +
                                  "; start it with mpirun -np " + std::to_string(ctx.size() + 1));
  expect_same_message_everywhere(ctx, status);
  ctx.barrier();
  if (ctx.rank() == 0) {
    EXPECT_TRUE(fs::is_empty(dir.path()));  // no scratch or store left
  }
}

// Every rank fails in its steps (as when the runtime refuses a plan): every rank returns the
// message, and the next call works.
void fail_everywhere(tcert::Run& run) {
  transpose_steps(run);
  throw tcert::Error("every rank fails after " + std::to_string(run.records().contractions().size()) + " contractions");
}

TEST(Generated, AnErrorOfEveryRankIsAStatusAndTheNextCallWorks) {
  const tcert::Context ctx = tcert::Context::world();
  const SharedDir dir(ctx);
  tcert::RunOptions options;
  options.quiet = true, options.scratch = dir.path(), options.random_seed = 1;
  const tcert::Status status =
      tcert::run_generated(MPI_COMM_WORLD, {}, options, transpose_info(ctx.size()), fail_everywhere);
  EXPECT_EQ(status.message(), "every rank fails after 0 contractions");
  const tcert::Status next =
      tcert::run_generated(MPI_COMM_WORLD, {}, options, transpose_info(ctx.size()), transpose_steps);
  EXPECT_TRUE(next.ok()) << next.message();
}

// The same transpose in two steps through an intermediate T (Run::step), for checkpoints; the
// second step throws while `stop_in_second_step` is set, as a run that is stopped there.
bool stop_in_second_step = false;
void transpose_first(tcert::Run& run) {
  tcert::copy_step(run, {"T[j,i] = 2 * A[i,j]", {"T", {kCols, kRows}}, {"A", {kRows, kCols}}, {1, 0}, 2.0, false});
}
void transpose_second(tcert::Run& run) {
  if (stop_in_second_step) throw tcert::Error("stopped in step 2");
  tcert::copy_step(run, {"B[j,i] = T[j,i]", {"B", {kCols, kRows}}, {"T", {kCols, kRows}}, {0, 1}, 1.0, false});
}
void transpose_in_two_steps(tcert::Run& run) {
  run.step(transpose_first);
  run.step(transpose_second);
  run.release("T");
}

// A call with a checkpoint that fails in step 2 leaves the checkpoint of step 1; the next call
// with resume skips step 1, does not import the HDF5 input again, gives the right values and
// removes the checkpoint. A call without resume refuses the checkpoint instead of overwriting it.
TEST(Generated, ACheckpointedCallThatFailsResumesAfterItsLastStep) {
  const tcert::Context ctx = tcert::Context::world();
  const SharedDir dir(ctx);
  if (ctx.rank() == 0) write_h5_input(dir.file("in.h5"), "A", 3);
  ctx.barrier();
  tcert::TensorLocations tensors;
  tensors.inputs["A"] = {dir.file("in.h5"), "A"};
  tensors.outputs["B"] = {dir.file("B.npy"), ""};
  tcert::ProgramInfo info = transpose_info(ctx.size());
  info.steps = 2;
  tcert::RunOptions options;
  options.quiet = true, options.scratch = dir.path(), options.checkpoint = dir.file("ck");
  options.trace = dir.file("trace.json");
  stop_in_second_step = true;
  tcert::Status status = tcert::run_generated(MPI_COMM_WORLD, tensors, options, info, transpose_in_two_steps);
  EXPECT_EQ(status.message(), "stopped in step 2");
  EXPECT_TRUE(fs::exists(dir.file("ck/manifest.json")));
  EXPECT_FALSE(fs::exists(dir.file("B.npy")));
  stop_in_second_step = false;
  status = tcert::run_generated(MPI_COMM_WORLD, tensors, options, info, transpose_in_two_steps);
  EXPECT_EQ(status.message(), dir.file("ck") + " holds a checkpoint of transpose (step 1 of 2 done); continue it " +
                                  "with --resume, or remove " + dir.file("ck") + " to start again");
  options.resume = true;
  status = tcert::run_generated(MPI_COMM_WORLD, tensors, options, info, transpose_in_two_steps);
  ASSERT_TRUE(status.ok()) << status.message();
  if (ctx.rank() == 0) {
    expect_transpose(read_npy_output(dir.file("B.npy")), 3);
    EXPECT_FALSE(fs::exists(dir.file("ck")));
    std::ifstream in(dir.file("trace.json"));
    const nlohmann::json trace = nlohmann::json::parse(in);
    EXPECT_EQ(trace.at("resumed_steps"), 1);
    for (std::uint64_t bytes : trace.at("files").at("import").at("disk_read_bytes")) EXPECT_EQ(bytes, 0u);
  }
  status = tcert::run_generated(MPI_COMM_WORLD, tensors, options, info, transpose_in_two_steps);
  EXPECT_EQ(status.message(), "--resume: no checkpoint in " + dir.file("ck"));
}

// The caller's communicator, whatever it is: each half of the world runs the program planned
// for its size (the halves' outputs apart).
TEST(Generated, RunsOnASubCommunicator) {
  const tcert::Context world = tcert::Context::world();
  const SharedDir dir(world);
  const int half = world.rank() < (world.size() + 1) / 2 ? 0 : 1;
  MPI_Comm part;
  MPI_Comm_split(MPI_COMM_WORLD, half, world.rank(), &part);
  int size = 0;
  MPI_Comm_size(part, &size);
  tcert::TensorLocations tensors;
  const std::string own = half == 0 ? "half0" : "half1";
  tensors.outputs["B"] = {dir.file(own + ".npy"), ""};
  tcert::RunOptions options;
  options.quiet = true, options.scratch = dir.file(own), options.random_seed = 5;
  const tcert::Status status = tcert::run_generated(part, tensors, options, transpose_info(size), transpose_steps);
  EXPECT_TRUE(status.ok()) << status.message();
  MPI_Comm_free(&part);
  world.barrier();
  EXPECT_TRUE(fs::exists(dir.file(own + ".npy")));
}

void fail_inside_a_collective(tcert::Run& run) {
  if (run.context().rank() == 1) throw tcert::Error("rank 1 fails alone");
  run.context().barrier();  // the others wait here for rank 1 forever
}

// Run alone (runtime.mpi.generated_abort, 3 ranks): rank 1 fails while the others wait for it in
// a barrier; after error_wait_s it prints its error and aborts the job.
TEST(Generated, DISABLED_RankFailsAloneInsideACollective) {
  tcert::RunOptions options;
  options.quiet = true, options.random_seed = 1, options.error_wait_s = 1;
  const tcert::Status status = tcert::run_generated(
      MPI_COMM_WORLD, {}, options, transpose_info(tcert::Context::world().size()), fail_inside_a_collective);
  ADD_FAILURE() << "returned instead of aborting: " << status.message();
}

}  // namespace

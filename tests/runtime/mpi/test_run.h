// tests/runtime/mpi/test_run.h — a tcert::Run for the MPI tests: on every rank of the world,
// quiet, verifying, with random inputs of `seed`, planned for the world's size, unlimited memory.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/run.h"

namespace tcert_test {

inline std::unique_ptr<tcert::Run> make_test_run(const tcert::Context& ctx, const std::string& name, int seed) {
  std::vector<std::string> args = {name, "--quiet", "--verify", "--init", "random:" + std::to_string(seed)};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return std::make_unique<tcert::Run>(ctx, static_cast<int>(argv.size()), argv.data(),
                                      tcert::ProgramInfo{name, "test", ctx.size(), 0, {}});
}

}  // namespace tcert_test

// tests/random/random_program_main.cpp — `tcec_random_program SEED MAX_EXTENT MAX_P`: prints
// the random program of SEED (random_program.h) on stdout, for the end-to-end sample.
#include <cstdio>
#include <cstdlib>

#include "random/random_program.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: tcec_random_program SEED MAX_EXTENT MAX_PROCESSORS\n");
    return 2;
  }
  const tcec::testing::RandomLimits limits{std::strtoll(argv[2], nullptr, 10), std::strtoll(argv[3], nullptr, 10)};
  std::fputs(tcec::testing::random_program(std::strtoull(argv[1], nullptr, 10), limits).text.c_str(), stdout);
  return 0;
}

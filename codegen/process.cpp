// codegen/process.cpp — run_command(): runs a program without a shell (posix_spawnp)
// and collects its stdout and stderr through one pipe.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "codegen/codegen.h"

extern char** environ;

namespace tcec::codegen {

namespace {

void drain(int fd, std::string* output) {
  char buffer[4096];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n == 0) return;
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    output->append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

int run_command(const std::vector<std::string>& argv, std::string* output) {
  output->clear();
  if (argv.empty()) {
    *output = "no command to run";
    return -1;
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *output = fmt::format("cannot create a pipe: {}", std::strerror(errno));
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);  // dup2 clears O_CLOEXEC on 1 and 2
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    *output = fmt::format("cannot run '{}': {}", argv[0], std::strerror(rc));
    return -1;
  }
  drain(fds[0], output);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno == EINTR) continue;
    *output += fmt::format("cannot wait for '{}': {}", argv[0], std::strerror(errno));
    return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace tcec::codegen

// SPDX-License-Identifier: Apache-2.0
// ChildProcess: every process the tools start, on Boost.Process v2 (vfork and
// exec): zklab's zkd nodes and relay daemon, the zkd servers zk::lab starts
// for tests and benchmarks, the command of `zkctl lock|elect -- CMD`.
//
// What the child gets, whatever it is:
// - argv exactly as given (argv[0] too); the program is argv[0] itself (a
//   path, relative to the current directory), or with `search_path` and no
//   '/' in it the first executable of that name in this process's PATH;
// - this process's environment with the spec's NAME=VALUE settings added,
//   each replacing a variable of the same name;
// - no blocked signals, and the default action for every signal this process
//   handles (ignored signals stay ignored, as exec keeps them);
// - every descriptor this process has open without close-on-exec (as
//   posix_spawn passes them), and stdio as the spec says.
//
// Ownership: the object owns the child until detach(). Destroying an owned
// child that still runs SIGKILLs and reaps it; a detached one is left alone
// (a child in a session of its own outlives this process, and init reaps it).
//
// Threading: one object from one thread. start() may run on several threads
// at once.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace zk::toolkit {

// Every member has an initializer, so that designated initializers may leave
// any out.
struct ChildSpec {
  std::vector<std::string> argv = {};  // required; argv[0] names the program
  // Look argv[0] up in PATH when it has no '/' (as execvp does).
  bool search_path = false;
  // NAME=VALUE settings added to the environment, replacing same-named ones.
  std::vector<std::string> environment = {};
  // Set: stdin from /dev/null, stdout and stderr appended to this file
  // (created 0644, opened by start() with O_APPEND). Unset: stdin, stdout and
  // stderr are this process's.
  std::optional<std::filesystem::path> log = {};
  // The child leads a new session (setsid): no controlling terminal, and
  // nothing sent to this process's group or session reaches it.
  bool new_session = false;
};

class ChildProcess {
 public:
  // Starts the child. Nothing when it could not be started (the program is
  // missing or not executable, the log cannot be opened, ...), with the
  // reason in `error` (strerror's text, or the file and strerror's text).
  static std::optional<ChildProcess> start(const ChildSpec& spec, std::string& error);

  ChildProcess(ChildProcess&&) noexcept;
  ChildProcess& operator=(ChildProcess&&) noexcept;
  ~ChildProcess();

  pid_t pid() const { return pid_; }

  // Sends `signal_number`; false once the child has been reaped or detached,
  // or when kill(2) fails.
  bool signal(int signal_number);
  // The child's wait status once it has exited (reaping it, without
  // blocking); the same status on every later call; nothing while it runs
  // (stopped counts as running) or after detach().
  std::optional<int> poll_exit();
  // As poll_exit(), but waits up to `deadline` for the exit (on the child's
  // pidfd; no polling).
  std::optional<int> wait_for_exit(std::chrono::milliseconds deadline);
  // Gives the child up: this object no longer signals, reaps or kills it.
  // Its pid; whoever cares reaps it with waitpid.
  pid_t detach();

  // The exit code a shell reports for `wait_status`: the exit status, or
  // 128 + the signal that ended the process.
  static int shell_code(int wait_status);

 private:
  struct Handle;  // Boost.Process's process, and the io_context it is bound to
  explicit ChildProcess(std::unique_ptr<Handle> handle);

  std::unique_ptr<Handle> handle_;  // null once detached
  pid_t pid_ = -1;
  std::optional<int> status_;  // the wait status, once reaped
};

}  // namespace zk::toolkit

// SPDX-License-Identifier: Apache-2.0
// Boost.Process v2 on std::filesystem, so that nothing needs Boost.Filesystem.
// Defined before the first include, in the one file that includes Boost.Process.
#define BOOST_PROCESS_USE_STD_FS 1

#include "toolkit/child_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

// Boost 1.81's Boost.Process v2 on std::filesystem names boost::optional and
// boost::is_constructible and boost::remove_pointer without including them
// (boostorg/process#280).
#include <boost/optional.hpp>
#include <boost/type_traits/is_constructible.hpp>
#include <boost/type_traits/remove_pointer.hpp>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/posix/vfork_launcher.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/stdio.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

extern char** environ;

namespace zk::toolkit {

namespace bp = boost::process::v2;

using Process = bp::basic_process<boost::asio::io_context::executor_type>;

// One io_context per child, made before the launch: Boost 1.81's vfork
// launcher calls the context's notify_fork(fork_child) in the child, which
// would rebuild a reactor in this process's memory; a fresh context has none.
struct ChildProcess::Handle {
  boost::asio::io_context context;
  std::optional<Process> process;
  bool waiting = false;  // an async_wait is pending
};

namespace {

// Closes a descriptor when it goes.
class OwnedFd {
 public:
  explicit OwnedFd(int fd = -1) : fd_(fd) {}
  ~OwnedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  int get() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// Every signal blocked in the calling thread while it lives: no handler of
// this process may run in the vfork child, which shares this memory.
class AllSignalsBlocked {
 public:
  AllSignalsBlocked() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous_);
  }
  ~AllSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  AllSignalsBlocked(const AllSignalsBlocked&) = delete;
  AllSignalsBlocked& operator=(const AllSignalsBlocked&) = delete;

 private:
  sigset_t previous_;
};

std::string_view name_of(std::string_view setting) { return setting.substr(0, setting.find('=')); }

// This process's environment with `settings` replacing same-named variables.
std::vector<std::string> merged_environment(const std::vector<std::string>& settings) {
  std::vector<std::string> merged;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view variable(*e);
    const auto replaces = [&](const std::string& s) { return name_of(s) == name_of(variable); };
    if (std::none_of(settings.begin(), settings.end(), replaces)) merged.emplace_back(variable);
  }
  merged.insert(merged.end(), settings.begin(), settings.end());
  return merged;
}

// This process's descriptors without close-on-exec: what posix_spawn passes
// on. Boost's launcher closes every descriptor above the highest one it is
// told to keep, so naming these keeps them (none, beyond stdio, if /proc
// cannot be read).
std::vector<int> inheritable_descriptors() {
  std::vector<int> fds;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return fds;
  const int own = ::dirfd(dir);
  while (const dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == own) continue;
    const int flags = ::fcntl(static_cast<int>(fd), F_GETFD);
    if (flags >= 0 && (flags & FD_CLOEXEC) == 0) fds.push_back(static_cast<int>(fd));
  }
  ::closedir(dir);
  return fds;
}

// A Boost.Process initializer: the environment, what the launcher keeps
// open, and what the child does before exec. The child shares this process's
// memory (vfork), so its part makes system calls only. (Boost's own
// process_environment is defined out of line, in its compiled part.)
struct ChildSetup {
  const char* const* environment = nullptr;  // NAME=VALUE..., nullptr
  bool new_session = false;
  std::vector<int> keep_open;

  template <typename Launcher>
  bp::error_code on_setup(Launcher& launcher, const std::filesystem::path&, const char* const*) {
    launcher.env = environment;
    launcher.fd_whitelist.insert(launcher.fd_whitelist.end(), keep_open.begin(), keep_open.end());
    return {};
  }

  template <typename Launcher>
  bp::error_code on_exec_setup(Launcher&, const std::filesystem::path&, const char* const*) {
    if (new_session && ::setsid() < 0) return bp::error_code(errno, bp::system_category());
    // The signals this process handles get their default action (exec would
    // reset them too, but a signal may arrive before it); then none blocked.
    for (int s = 1; s < NSIG; ++s) {
      struct sigaction action;
      if (::sigaction(s, nullptr, &action) != 0) continue;
      if (action.sa_handler == SIG_DFL || action.sa_handler == SIG_IGN) continue;
      action.sa_handler = SIG_DFL;
      action.sa_flags = 0;
      sigemptyset(&action.sa_mask);
      ::sigaction(s, &action, nullptr);
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    return {};
  }

  // The child could not exec (the error is already in the parent's hands).
  // Boost 1.81 would call exit(), running this process's atexit handlers and
  // static destructors in its memory; leave at once instead. Variadic because
  // 1.81 detects the hook with one argument list and calls it with another.
  template <typename... Args>
  void on_exec_error(Args&&...) {
    ::_exit(127);
  }
};

}  // namespace

ChildProcess::ChildProcess(std::unique_ptr<Handle> handle)
    : handle_(std::move(handle)), pid_(handle_->process->id()) {}

ChildProcess::ChildProcess(ChildProcess&&) noexcept = default;
ChildProcess& ChildProcess::operator=(ChildProcess&&) noexcept = default;
// An owned child that still runs: Boost's process SIGKILLs and reaps it.
ChildProcess::~ChildProcess() = default;

std::optional<ChildProcess> ChildProcess::start(const ChildSpec& spec, std::string& error) {
  if (spec.argv.empty()) {
    error = "no command";
    return std::nullopt;
  }
  std::filesystem::path program = spec.argv.front();
  if (spec.search_path && spec.argv.front().find('/') == std::string::npos) {
    program = bp::environment::find_executable(spec.argv.front());
    if (program.empty()) {
      error = std::strerror(ENOENT);
      return std::nullopt;
    }
  }
  OwnedFd null_input, log_output;
  if (spec.log) {
    null_input.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    log_output.reset(::open(spec.log->c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    if (null_input.get() < 0 || log_output.get() < 0) {
      error = spec.log->string() + ": " + std::strerror(errno);
      return std::nullopt;
    }
  }
  // argv as given (argv[0] too, not the path found in PATH).
  std::vector<const char*> argv;
  for (const auto& arg : spec.argv) argv.push_back(arg.c_str());
  argv.push_back(nullptr);
  const char** args = argv.data();
  const std::vector<std::string> environment = merged_environment(spec.environment);
  std::vector<const char*> envp;
  for (const auto& setting : environment) envp.push_back(setting.c_str());
  envp.push_back(nullptr);
  ChildSetup setup{envp.data(), spec.new_session, inheritable_descriptors()};

  auto handle = std::make_unique<Handle>();
  bp::posix::vfork_launcher launcher;
  bp::error_code ec;
  std::string failure;  // what an exception said
  try {
    AllSignalsBlocked blocked;
    const auto executor = handle->context.get_executor();
    if (spec.log) {
      handle->process.emplace(
          launcher(executor, ec, program, args, setup,
                   bp::process_stdio{null_input.get(), log_output.get(), log_output.get()}));
    } else {
      handle->process.emplace(launcher(executor, ec, program, args, setup));
    }
  } catch (const std::exception& e) {  // the pidfd could not be opened or registered
    if (!ec) ec = bp::error_code(ECHILD, bp::system_category());
    failure = e.what();
    if (launcher.pid > 0) ::kill(launcher.pid, SIGKILL);
  }
  if (ec) {
    // A child that could not exec has exited already (on_exec_error).
    if (launcher.pid > 0) ::waitpid(launcher.pid, nullptr, 0);
    error = failure.empty() ? ec.message() : failure;
    return std::nullopt;
  }
  return ChildProcess(std::move(handle));
}

bool ChildProcess::signal(int signal_number) {
  return handle_ != nullptr && ::kill(pid_, signal_number) == 0;
}

std::optional<int> ChildProcess::poll_exit() {
  if (!handle_) return status_;
  bp::error_code ec;
  if (!handle_->process->running(ec) && !ec) {
    status_ = handle_->process->native_exit_code();
    // Reaped: the pid may be reused, so the process must not kill it later.
    (void)handle_->process->detach();
    handle_.reset();
  }
  return status_;
}

std::optional<int> ChildProcess::wait_for_exit(std::chrono::milliseconds deadline) {
  if (poll_exit() || !handle_) return status_;
  Handle& h = *handle_;
  if (!h.waiting) {  // one wait at a time; a wait cut short by its deadline stays pending
    h.waiting = true;
    h.process->async_wait([&h](bp::error_code, int) { h.waiting = false; });
  }
  h.context.restart();
  h.context.run_for(deadline);
  if (h.waiting || bp::process_is_running(h.process->native_exit_code())) return status_;
  status_ = h.process->native_exit_code();  // the wait reaped it
  (void)h.process->detach();
  handle_.reset();
  return status_;
}

pid_t ChildProcess::detach() {
  if (handle_) {
    (void)handle_->process->detach();
    handle_.reset();
  }
  return pid_;
}

int ChildProcess::shell_code(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

}  // namespace zk::toolkit

#include "tests/lab/zkd_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "tests/lab/raw_client.h"

extern char** environ;

#ifndef ZKD_BINARY
#error "ZKD_BINARY must name the zkd executable under test"
#endif

namespace zk::lab {

using Clock = std::chrono::steady_clock;

std::string zkd_binary() { return ZKD_BINARY; }

uint16_t pick_free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  uint16_t port = 0;
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

namespace {

// A descriptor that becomes readable when `pid` exits (-1 if unsupported).
// Called through syscall(2): glibc 2.36's <sys/pidfd.h> lacks C++ linkage.
int open_pidfd(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

std::filesystem::path make_temp_dir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "zkd_lab_XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) return {};
  return tmpl;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos; pos += to.size()) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

std::string config_text(const ZkdOptions& o, uint16_t port, const std::filesystem::path& data) {
  if (o.raw_config) {
    return replace_all(replace_all(*o.raw_config, "{port}", std::to_string(port)), "{dataDir}",
                       data.string());
  }
  std::ostringstream cfg;
  cfg << "tickTime=" << o.tick_time_ms << "\n"
      << "dataDir=" << data.string() << "\n"
      << "clientPort=" << port << "\n"
      << "clientPortAddress=127.0.0.1\n"
      << "maxClientCnxns=" << o.max_client_cnxns << "\n"
      << "4lw.commands.whitelist=" << o.four_letter_whitelist << "\n";
  if (o.min_session_timeout_ms) cfg << "minSessionTimeout=" << *o.min_session_timeout_ms << "\n";
  if (o.max_session_timeout_ms) cfg << "maxSessionTimeout=" << *o.max_session_timeout_ms << "\n";
  for (const auto& line : o.extra_lines) cfg << line << "\n";
  return cfg.str();
}

// Starts `args` with stdout and stderr going to `log`; -1 on failure.
pid_t spawn(const std::vector<std::string>& args, const std::filesystem::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

StartResult ZkdProcess::start(const ZkdOptions& options) {
  StartResult result;
  std::unique_ptr<ZkdProcess> p(new ZkdProcess());
  p->dir_ = make_temp_dir();
  if (p->dir_.empty()) {
    result.error = "cannot create a temporary directory";
    return result;
  }
  p->port_ = pick_free_port();
  if (p->port_ == 0) {
    result.error = "cannot find a free loopback port";
    return result;
  }
  {
    std::ofstream out(p->dir_ / "zoo.cfg");
    out << config_text(options, p->port_, p->data_dir());
  }
  p->start_deadline_ = options.start_deadline;
  result.error = p->launch();
  if (result.error.empty()) result.process = std::move(p);
  return result;
}

std::string ZkdProcess::launch() {
  ++runs_;
  exit_status_.reset();
  if (pidfd_ >= 0) ::close(pidfd_);
  pidfd_ = -1;
  pid_ = spawn({zkd_binary(), "--config", (dir_ / "zoo.cfg").string()}, log_path());
  if (pid_ < 0) return "cannot start " + zkd_binary();
  pidfd_ = open_pidfd(pid_);
  auto until = Clock::now() + start_deadline_;
  while (Clock::now() < until) {
    if (!running()) return "zkd exited during start-up; its log:\n" + log();
    auto text = four_letter_word(host_, port_, "srvr", std::chrono::seconds(1));
    if (text && text->rfind("Zookeeper version: ", 0) == 0) return {};
    // Not listening yet: wait (briefly) for the process to exit instead of
    // spinning; then ask again.
    if (wait_for_exit(std::chrono::milliseconds(20))) {
      return "zkd exited during start-up; its log:\n" + log();
    }
  }
  return "zkd did not answer srvr in time; its log:\n" + log();
}

std::string ZkdProcess::restart() {
  if (running()) return "zkd still runs: stop or kill it first";
  return launch();
}

bool ZkdProcess::kill(std::chrono::milliseconds deadline) {
  if (!running()) return true;
  ::kill(pid_, SIGKILL);
  return wait_for_exit(deadline).has_value();
}

ZkdProcess::~ZkdProcess() {
  if (pid_ > 0 && !exit_status_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  if (pidfd_ >= 0) ::close(pidfd_);
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

bool ZkdProcess::signal(int signal_number) {
  if (pid_ <= 0 || !running()) return false;
  return ::kill(pid_, signal_number) == 0;
}

bool ZkdProcess::running() {
  if (pid_ <= 0 || exit_status_) return false;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    exit_status_ = status;
    return false;
  }
  return true;
}

std::optional<int> ZkdProcess::wait_for_exit(std::chrono::milliseconds deadline) {
  auto until = Clock::now() + deadline;
  while (running()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    if (pidfd_ < 0) return std::nullopt;  // cannot wait for the event
    // The pidfd becomes readable when the process exits.
    pollfd p{pidfd_, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(left.count()));
  }
  return exit_status_;
}

std::filesystem::path ZkdProcess::log_path() const {
  return dir_ / (runs_ <= 1 ? std::string("zkd.log") : "zkd." + std::to_string(runs_) + ".log");
}

std::string ZkdProcess::log() const { return read_file(log_path()); }

RunResult run_zkd(const std::vector<std::string>& args, std::chrono::milliseconds deadline) {
  RunResult result;
  auto dir = make_temp_dir();
  if (dir.empty()) return result;
  std::vector<std::string> argv{zkd_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  pid_t pid = spawn(argv, dir / "out.log");
  if (pid > 0) {
    auto until = Clock::now() + deadline;
    int status = 0;
    int pidfd = open_pidfd(pid);
    pid_t r = 0;
    while ((r = ::waitpid(pid, &status, WNOHANG)) == 0 && Clock::now() < until && pidfd >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
      pollfd p{pidfd, POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0)));
    }
    if (pidfd >= 0) ::close(pidfd);
    if (r == pid) {
      result.status = status;
    } else {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
    }
    result.output = read_file(dir / "out.log");
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return result;
}

}  // namespace zk::lab

#include "bench/zkd_runner.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

extern char** environ;

namespace zk::bench {

using Clock = std::chrono::steady_clock;

namespace {

uint16_t free_loopback_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

// Milliseconds left until `until`, at least 0.
int left_ms(Clock::time_point until) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

}  // namespace

ZkdRunner::ZkdRunner(std::string binary, std::filesystem::path dir,
                     std::vector<std::string> extra_lines)
    : binary_(std::move(binary)), dir_(std::move(dir)), port_(free_loopback_port()) {
  std::filesystem::create_directories(dir_);
  std::ofstream cfg(dir_ / "zoo.cfg");
  cfg << "tickTime=2000\n"
      << "dataDir=" << data_dir().string() << "\n"
      << "clientPort=" << port_ << "\n"
      << "clientPortAddress=127.0.0.1\n"
      << "maxClientCnxns=0\n"
      << "4lw.commands.whitelist=*\n";
  for (const auto& line : extra_lines) cfg << line << "\n";
}

ZkdRunner::~ZkdRunner() {
  kill();
  if (pidfd_ >= 0) ::close(pidfd_);
}

std::string ZkdRunner::spawn() {
  if (port_ == 0) return "no free loopback port";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, (dir_ / "zkd.log").c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::string flag = "--config";
  std::string cfg = (dir_ / "zoo.cfg").string();
  char* argv[] = {binary_.data(), flag.data(), cfg.data(), nullptr};
  int rc = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    pid_ = -1;
    return "cannot start " + binary_;
  }
  if (pidfd_ >= 0) ::close(pidfd_);
  pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
  return {};
}

std::string ZkdRunner::wait_serving(std::chrono::milliseconds deadline) {
  auto until = Clock::now() + deadline;
  while (Clock::now() < until) {
    if (pid_ <= 0) return "zkd is not running";
    auto text = four_letter_word("127.0.0.1", port_, "srvr", std::chrono::seconds(1));
    if (text.rfind("Zookeeper version: ", 0) == 0) return {};
    if (exited_within(std::chrono::milliseconds(20))) {
      return "zkd exited during start-up; log tail:\n" + log_tail();
    }
  }
  return "zkd did not answer srvr in time; log tail:\n" + log_tail();
}

void ZkdRunner::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

bool ZkdRunner::exited_within(std::chrono::milliseconds wait) {
  if (pidfd_ >= 0) {
    pollfd p{pidfd_, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(wait.count()));
  }
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    return true;
  }
  return false;
}

std::string ZkdRunner::log_tail(size_t bytes) const {
  std::ifstream in(dir_ / "zkd.log", std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

std::string four_letter_word(const std::string& host, uint16_t port, const std::string& word,
                             std::chrono::milliseconds deadline) {
  auto until = Clock::now() + deadline;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return {};
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  std::string out;
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) == 1) {
    int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    bool connected = rc == 0;
    if (!connected && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int err = 0;
      socklen_t len = sizeof err;
      connected = ::poll(&p, 1, left_ms(until)) == 1 &&
                  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0;
    }
    if (connected &&
        ::send(fd, word.data(), word.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(word.size())) {
      char buf[8192];
      while (true) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, left_ms(until)) != 1) break;
        ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        out.append(buf, static_cast<size_t>(n));
      }
    }
  }
  ::close(fd);
  return out;
}

int64_t resident_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  return -1;
}

}  // namespace zk::bench

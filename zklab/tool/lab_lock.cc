// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "toolkit/poll_until.h"

namespace zk::lab {

namespace {

// Between two attempts while another command holds the lock: a poll interval
// bounded by the caller's deadline.
constexpr auto kRetryInterval = std::chrono::milliseconds(50);

std::string read_holder(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
  std::string pid(buf, n > 0 ? static_cast<size_t>(n) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == '\0')) pid.pop_back();
  return pid;
}

}  // namespace

LabLock::LabLock(const std::filesystem::path& dir, std::chrono::milliseconds deadline) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const auto path = dir / ".lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    error_ = "cannot open " + path.string() + ": " + std::strerror(errno);
    return;
  }
  int failure = 0;  // errno of a failure other than "held by another"
  const bool locked = toolkit::poll_until(
      [&] {
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
        if (errno != EWOULDBLOCK && errno != EINTR) failure = errno;
        return failure != 0;
      },
      deadline, kRetryInterval);
  if (failure != 0) {
    error_ = "cannot lock " + path.string() + ": " + std::strerror(failure);
    ::close(fd);
    return;
  }
  if (!locked) {
    const std::string holder = read_holder(fd);
    error_ = "another zklab command" + (holder.empty() ? "" : " (pid " + holder + ")") +
             " is still working on the lab in " + dir.string();
    ::close(fd);
    return;
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] ssize_t written = ::pwrite(fd, pid.data(), pid.size(), 0);
  }
  fd_ = fd;
}

LabLock::~LabLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace zk::lab

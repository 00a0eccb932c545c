// SPDX-License-Identifier: Apache-2.0
#include "zkd/audit/audit_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "zkd/audit/audit_line.h"
#include "zkd/log/log.h"

namespace zkd::audit {
namespace {

int open_append(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

// Writes all of `bytes`, retrying short writes and EINTR.
bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

std::string backup(const std::string& path, int index) {
  return path + "." + std::to_string(index);
}

}  // namespace

StatusOr<std::unique_ptr<AuditLogFile>> AuditLogFile::open(AuditFileOptions options, Clock& clock) {
  const int fd = open_append(options.path);
  if (fd < 0) {
    return Status::config("cannot open the audit log " + options.path + ": " +
                          std::strerror(errno));
  }
  struct stat st {};
  const uint64_t size = ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  return std::unique_ptr<AuditLogFile>(new AuditLogFile(std::move(options), clock, fd, size));
}

AuditLogFile::AuditLogFile(AuditFileOptions options, Clock& clock, int fd, uint64_t size)
    : options_(std::move(options)), clock_(clock), fd_(fd), size_(size) {}

AuditLogFile::~AuditLogFile() {
  if (fd_ >= 0) ::close(fd_);
}

void AuditLogFile::write(const AuditEvent& event) {
  const std::string line = audit_line(event, clock_.wall_ms());
  std::lock_guard lock(mutex_);
  if (options_.max_file_size > 0 && size_ >= options_.max_file_size && !roll_over()) return;
  if (fd_ < 0 || !write_all(fd_, line)) {
    warn(std::string("cannot write to the audit log ") + options_.path + ": " +
         std::strerror(errno));
    return;
  }
  size_ += line.size();
  failing_ = false;
}

bool AuditLogFile::roll_over() {
  const std::string& path = options_.path;
  if (options_.max_backup_index > 0) {
    std::remove(backup(path, options_.max_backup_index).c_str());
    for (int i = options_.max_backup_index - 1; i >= 1; --i) {
      std::rename(backup(path, i).c_str(), backup(path, i + 1).c_str());  // absent: nothing
    }
    if (std::rename(path.c_str(), backup(path, 1).c_str()) != 0) {
      warn("cannot roll over the audit log " + path + ": " + std::strerror(errno));
      return false;
    }
  } else {
    std::remove(path.c_str());
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = open_append(path);
  size_ = 0;
  if (fd_ < 0) {
    warn("cannot reopen the audit log " + path + ": " + std::strerror(errno));
    return false;
  }
  return true;
}

void AuditLogFile::warn(const std::string& what) {
  if (!failing_) net::log_warn(what, " (audit lines are lost until it works again)");
  failing_ = true;
}

}  // namespace zkd::audit

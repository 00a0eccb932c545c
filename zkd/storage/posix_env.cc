// SPDX-License-Identifier: Apache-2.0
// posix_env(): the Env over the real file system (declared in env.h).
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "zkd/clock/real_time.h"
#include "zkd/storage/env.h"

namespace zkd::storage {
namespace {

Status posix_error(const char* op, const std::string& path, int err) {
  char buf[256];
  const char* text = strerror_r(err, buf, sizeof buf);  // GNU variant: returns the text
  return Status::error(std::string(op) + " " + path + ": " + text);
}

// Retries on EINTR. Returns the result of the last call.
template <typename F>
auto retry(F f) {
  decltype(f()) r;
  do {
    r = f();
  } while (r == -1 && errno == EINTR);
  return r;
}

Status write_all_at(int fd, const std::string& path, const char* data, size_t n, uint64_t offset) {
  while (n > 0) {
    ssize_t w = retry([&] { return ::pwrite(fd, data, n, static_cast<off_t>(offset)); });
    if (w < 0) return posix_error("write", path, errno);
    data += w;
    n -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
  return Status();
}

// How far past the logical end a preallocated file is kept written with
// zeros (see PosixWritableFile), and the least left before it is topped up.
constexpr uint64_t kZeroAhead = 1 << 20;
constexpr uint64_t kZeroAheadLow = kZeroAhead / 2;

// kZeroAhead bytes of zeros to write from: read-only anonymous pages, which
// all map the kernel's zero page and so take no memory.
const char* zero_bytes() {
  static const void* const zeros =
      ::mmap(nullptr, kZeroAhead, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return zeros == MAP_FAILED ? nullptr : static_cast<const char*>(zeros);
}

// Appends with pwrite at the logical end. In a preallocated file (fallocate's
// blocks are "unwritten" until written) it keeps at least kZeroAheadLow and
// at most kZeroAhead bytes past the end written with real zeros, a piece at a
// time: an fdatasync after an append then finds the appended blocks already
// written, so it flushes the data only, instead of also committing the
// file system's journal to mark them written (measured on ext4: p50 of 4 KiB
// pwrite + fdatasync 230 -> 150 us). A topping-up's zeros reach the disk with
// the next sync, once per kZeroAheadLow bytes appended.
class PosixWritableFile final : public WritableFile {
 public:
  // `preallocated_end`: the end of the preallocated blocks (0: none); the
  // bytes from `offset` to it read as zeros but are not written yet.
  PosixWritableFile(std::string path, int fd, uint64_t offset, uint64_t preallocated_end)
      : path_(std::move(path)),
        fd_(fd),
        offset_(offset),
        zeroed_to_(offset),
        preallocated_end_(preallocated_end) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Status append(std::string_view bytes) override {
    if (fd_ < 0) return Status::error("append to closed file " + path_);
    Status s = write_all_at(fd_, path_, bytes.data(), bytes.size(), offset_);
    if (!s.ok()) return s;
    offset_ += bytes.size();
    zeroed_to_ = std::max(zeroed_to_, offset_);
    return zero_ahead();
  }

  Status sync() override {
    if (fd_ < 0) return Status::error("sync of closed file " + path_);
    if (retry([&] { return ::fdatasync(fd_); }) != 0) return posix_error("fdatasync", path_, errno);
    return Status();
  }

  Status close() override {
    if (fd_ < 0) return Status();
    int fd = fd_;
    fd_ = -1;
    // No retry on EINTR: Linux releases the descriptor either way.
    if (::close(fd) != 0 && errno != EINTR) return posix_error("close", path_, errno);
    return Status();
  }

  uint64_t size() const override { return offset_; }

 private:
  Status zero_ahead() {
    const uint64_t want = std::min(offset_ + kZeroAhead, preallocated_end_);
    if (zeroed_to_ >= want || zeroed_to_ >= offset_ + kZeroAheadLow) return Status();
    const char* zeros = zero_bytes();
    if (zeros == nullptr) return Status();  // no zero pages: syncs stay correct, only slower
    Status s = write_all_at(fd_, path_, zeros, want - zeroed_to_, zeroed_to_);
    if (!s.ok()) return s;
    zeroed_to_ = want;
    return Status();
  }

  std::string path_;
  int fd_;
  uint64_t offset_;
  uint64_t zeroed_to_;  // bytes before it are written (data or zeros)
  const uint64_t preallocated_end_;
};

Status preallocate(int fd, const std::string& path, uint64_t from, uint64_t to) {
  if (to <= from) return Status();
  int err = ::posix_fallocate(fd, static_cast<off_t>(from), static_cast<off_t>(to - from));
  if (err != 0) return posix_error("fallocate", path, err);
  return Status();
}

// Reads `n` bytes into `out` (at `offset`, or from the current position when
// there is none), retrying short reads; fewer only at the end of the file.
// Returns how many it read.
StatusOr<size_t> read_up_to(int fd, const std::string& path, std::optional<uint64_t> offset,
                            size_t n, char* out) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = retry([&] {
      return offset ? ::pread(fd, out + done, n - done, static_cast<off_t>(*offset + done))
                    : ::read(fd, out + done, n - done);
    });
    if (r < 0) return posix_error("read", path, errno);
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  return done;
}

// Reads all of `fd` from its current position into `data`: a buffer of the
// size fstat reports, then, in case the file grew meanwhile, a small probe
// whose bytes are appended only if there are any. A file that does not grow
// is held once and never copied.
Status read_whole(int fd, const std::string& path, std::string& data) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return posix_error("stat", path, errno);
  data.resize(static_cast<size_t>(st.st_size));
  auto got = read_up_to(fd, path, std::nullopt, data.size(), data.data());
  if (!got.ok()) return got.status();
  if (*got < data.size()) {  // the file shrank meanwhile
    data.resize(*got);
    return Status();
  }
  char probe[4096];
  while (true) {
    auto more = read_up_to(fd, path, std::nullopt, sizeof probe, probe);
    if (!more.ok()) return more.status();
    if (*more == 0) return Status();
    data.append(probe, *more);
  }
}

// An existing file opened with `flags` (O_CLOEXEC added), with its size
// then; the caller closes fd.
struct OpenedFile {
  int fd = -1;
  uint64_t size = 0;
};
StatusOr<OpenedFile> open_existing(const std::string& path, int flags) {
  int fd = retry([&] { return ::open(path.c_str(), flags | O_CLOEXEC); });
  if (fd < 0) return posix_error("open", path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status s = posix_error("stat", path, errno);
    ::close(fd);
    return s;
  }
  return OpenedFile{fd, static_cast<uint64_t>(st.st_size)};
}

class MappedFile final : public FileView {
 public:
  MappedFile(const void* addr, size_t size) : addr_(addr), size_(size) {}
  ~MappedFile() override {
    if (size_ > 0) ::munmap(const_cast<void*>(addr_), size_);
  }
  std::string_view bytes() const override { return {static_cast<const char*>(addr_), size_}; }

 private:
  const void* const addr_;
  const size_t size_;
};

class PosixReadableFile final : public ReadableFile {
 public:
  PosixReadableFile(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {}
  ~PosixReadableFile() override { ::close(fd_); }

  uint64_t size() const override { return size_; }
  StatusOr<size_t> read(uint64_t offset, size_t n, char* scratch) override {
    return read_up_to(fd_, path_, offset, n, scratch);
  }

 private:
  const std::string path_;
  const int fd_;
  const uint64_t size_;
};

class PosixEnv final : public Env {
 public:
  StatusOr<std::unique_ptr<WritableFile>> new_writable_file(const std::string& path,
                                                            uint64_t prealloc) override {
    int fd =
        retry([&] { return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644); });
    if (fd < 0) return posix_error("open", path, errno);
    auto file = std::make_unique<PosixWritableFile>(path, fd, 0, prealloc);
    Status s = preallocate(fd, path, 0, prealloc);
    if (!s.ok()) return s;
    return std::unique_ptr<WritableFile>(std::move(file));
  }

  StatusOr<std::unique_ptr<WritableFile>> reopen_writable_file(const std::string& path,
                                                               uint64_t offset) override {
    auto opened = open_existing(path, O_WRONLY);
    if (!opened.ok()) return opened.status();
    const int fd = opened->fd;
    const uint64_t size = opened->size;
    auto file = std::make_unique<PosixWritableFile>(path, fd, offset, size);
    if (offset > size) {
      return Status::error("reopen " + path + " at offset " + std::to_string(offset) +
                           ": past its end (" + std::to_string(size) + " bytes)");
    }
    // Zero everything after `offset` but keep the preallocated size: cut, then
    // allocate again (new blocks read as zeros).
    if (offset < size) {
      if (retry([&] { return ::ftruncate(fd, static_cast<off_t>(offset)); }) != 0) {
        return posix_error("truncate", path, errno);
      }
      Status s = preallocate(fd, path, offset, size);
      if (!s.ok()) return s;
    }
    return std::unique_ptr<WritableFile>(std::move(file));
  }

  StatusOr<std::string> read_file(const std::string& path) override {
    int fd = retry([&] { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC); });
    if (fd < 0) return posix_error("open", path, errno);
    std::string data;
    Status s = read_whole(fd, path, data);
    ::close(fd);
    if (!s.ok()) return s;
    return data;
  }

  StatusOr<std::unique_ptr<FileView>> view_file(const std::string& path) override {
    auto opened = open_existing(path, O_RDONLY);
    if (!opened.ok()) return opened.status();
    const int fd = opened->fd;
    const auto size = static_cast<size_t>(opened->size);
    void* addr = nullptr;
    if (size > 0) {
      // MAP_POPULATE: every page is going to be read, so map them in one go
      // (page by page faults, with readahead, cost several times more).
      addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (addr == MAP_FAILED) {
        Status s = posix_error("mmap", path, errno);
        ::close(fd);
        return s;
      }
    }
    ::close(fd);  // the mapping keeps the file
    return std::unique_ptr<FileView>(std::make_unique<MappedFile>(addr, size));
  }

  StatusOr<std::unique_ptr<ReadableFile>> open_readable_file(const std::string& path) override {
    auto opened = open_existing(path, O_RDONLY);
    if (!opened.ok()) return opened.status();
    return std::unique_ptr<ReadableFile>(
        std::make_unique<PosixReadableFile>(path, opened->fd, opened->size));
  }

  StatusOr<std::vector<std::string>> list_dir(const std::string& dir) override {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return posix_error("list", dir, errno);
    std::vector<std::string> names;
    errno = 0;
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(std::move(name));
    }
    int err = errno;
    ::closedir(d);
    if (err != 0) return posix_error("list", dir, err);
    std::sort(names.begin(), names.end());
    return names;
  }

  Status create_dirs(const std::string& dir) override {
    if (dir.empty()) return Status();
    size_t pos = 0;
    while (pos != std::string::npos) {
      pos = dir.find('/', pos + 1);
      std::string prefix = dir.substr(0, pos);
      if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
        return posix_error("mkdir", prefix, errno);
      }
    }
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) return posix_error("stat", dir, errno);
    if (!S_ISDIR(st.st_mode)) return Status::error("mkdir " + dir + ": not a directory");
    return Status();
  }

  Status remove_file(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return posix_error("remove", path, errno);
    return Status();
  }

  Status rename_file(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) {
      return posix_error("rename", from + " to " + to, errno);
    }
    return Status();
  }

  Status sync_dir(const std::string& dir) override {
    int fd = retry([&] { return ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); });
    if (fd < 0) return posix_error("open", dir, errno);
    Status s;
    if (retry([&] { return ::fsync(fd); }) != 0) s = posix_error("fsync", dir, errno);
    ::close(fd);
    return s;
  }

  bool file_exists(const std::string& path) override { return ::access(path.c_str(), F_OK) == 0; }

  Clock& clock() override { return real_clock(); }
  std::unique_ptr<Timer> new_timer(boost::asio::io_context& io) override {
    return new_real_timer(io);
  }
  uint64_t secure_random() override { return real_secure_random(); }
};

}  // namespace

Env& posix_env() {
  static PosixEnv env;
  return env;
}

}  // namespace zkd::storage

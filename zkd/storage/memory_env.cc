// SPDX-License-Identifier: Apache-2.0
#include "zkd/storage/memory_env.h"

#include <algorithm>

namespace zkd::storage {
namespace {

std::string parent_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string strip_trailing_slashes(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace

class MemoryEnv::File final : public WritableFile {
 public:
  File(MemoryEnv& env, std::string path, std::shared_ptr<Inode> inode, uint64_t offset)
      : env_(env), path_(std::move(path)), inode_(std::move(inode)), offset_(offset) {}

  Status append(std::string_view bytes) override {
    if (closed_) return Status::error("append to closed file " + path_);
    std::lock_guard lock(env_.mu_);
    std::string& data = inode_->data;
    if (data.size() < offset_ + bytes.size()) data.resize(offset_ + bytes.size(), '\0');
    std::copy(bytes.begin(), bytes.end(), data.begin() + static_cast<ptrdiff_t>(offset_));
    offset_ += bytes.size();
    return Status();
  }

  Status sync() override {
    if (closed_) return Status::error("sync of closed file " + path_);
    std::lock_guard lock(env_.mu_);
    inode_->synced = inode_->data;
    ++env_.file_syncs_;
    return Status();
  }

  Status close() override {
    closed_ = true;
    return Status();
  }

  uint64_t size() const override { return offset_; }

 private:
  MemoryEnv& env_;
  std::string path_;
  std::shared_ptr<Inode> inode_;
  uint64_t offset_;
  bool closed_ = false;
};

// Reads the inode it was opened on, even after the name is removed or
// renamed (as POSIX does).
class MemoryEnv::Reader final : public ReadableFile {
 public:
  Reader(MemoryEnv& env, std::shared_ptr<Inode> inode, uint64_t size)
      : env_(env), inode_(std::move(inode)), size_(size) {}

  uint64_t size() const override { return size_; }

  StatusOr<size_t> read(uint64_t offset, size_t n, char* scratch) override {
    std::lock_guard lock(env_.mu_);
    const std::string& data = inode_->data;
    if (offset >= data.size()) return size_t{0};
    n = std::min<uint64_t>(n, data.size() - offset);
    std::copy_n(data.begin() + static_cast<ptrdiff_t>(offset), n, scratch);
    env_.count_read(n);
    return n;
  }

 private:
  MemoryEnv& env_;
  std::shared_ptr<Inode> inode_;
  uint64_t size_;
};

void MemoryEnv::count_read(uint64_t n) {
  bytes_read_ += n;
  largest_read_ = std::max(largest_read_, n);
}

std::shared_ptr<MemoryEnv::Inode> MemoryEnv::find(const std::string& path) const {
  auto it = live_.find(path);
  return it == live_.end() ? nullptr : it->second;
}

StatusOr<std::unique_ptr<WritableFile>> MemoryEnv::new_writable_file(const std::string& path,
                                                                     uint64_t preallocate) {
  std::lock_guard lock(mu_);
  if (dirs_.count(parent_of(path)) == 0) {
    return Status::error("open " + path + ": No such file or directory");
  }
  if (dirs_.count(path) != 0) return Status::error("open " + path + ": Is a directory");
  std::shared_ptr<Inode> inode = find(path);
  if (inode == nullptr) {
    inode = std::make_shared<Inode>();
    live_[path] = inode;
  }
  inode->data.assign(preallocate, '\0');
  return std::unique_ptr<WritableFile>(std::make_unique<File>(*this, path, inode, 0));
}

StatusOr<std::unique_ptr<WritableFile>> MemoryEnv::reopen_writable_file(const std::string& path,
                                                                        uint64_t offset) {
  std::lock_guard lock(mu_);
  std::shared_ptr<Inode> inode = find(path);
  if (inode == nullptr) return Status::error("open " + path + ": No such file or directory");
  if (offset > inode->data.size()) {
    return Status::error("reopen " + path + " at offset " + std::to_string(offset) +
                         ": past its end (" + std::to_string(inode->data.size()) + " bytes)");
  }
  std::fill(inode->data.begin() + static_cast<ptrdiff_t>(offset), inode->data.end(), '\0');
  return std::unique_ptr<WritableFile>(std::make_unique<File>(*this, path, inode, offset));
}

StatusOr<std::string> MemoryEnv::read_file(const std::string& path) {
  std::lock_guard lock(mu_);
  std::shared_ptr<Inode> inode = find(path);
  if (inode == nullptr) return Status::error("open " + path + ": No such file or directory");
  count_read(inode->data.size());
  return inode->data;
}

namespace {
class CopiedFile final : public FileView {
 public:
  explicit CopiedFile(std::string bytes) : bytes_(std::move(bytes)) {}
  std::string_view bytes() const override { return bytes_; }

 private:
  const std::string bytes_;
};
}  // namespace

StatusOr<std::unique_ptr<FileView>> MemoryEnv::view_file(const std::string& path) {
  auto bytes = read_file(path);
  if (!bytes.ok()) return bytes.status();
  return std::unique_ptr<FileView>(std::make_unique<CopiedFile>(std::move(*bytes)));
}

StatusOr<std::unique_ptr<ReadableFile>> MemoryEnv::open_readable_file(const std::string& path) {
  std::lock_guard lock(mu_);
  std::shared_ptr<Inode> inode = find(path);
  if (inode == nullptr) return Status::error("open " + path + ": No such file or directory");
  const uint64_t size = inode->data.size();
  return std::unique_ptr<ReadableFile>(std::make_unique<Reader>(*this, std::move(inode), size));
}

StatusOr<std::vector<std::string>> MemoryEnv::list_dir(const std::string& dir_in) {
  std::string dir = strip_trailing_slashes(dir_in);
  std::lock_guard lock(mu_);
  if (dirs_.count(dir) == 0) return Status::error("list " + dir + ": No such file or directory");
  std::vector<std::string> names;
  auto add_if_child = [&](const std::string& path) {
    if (path != dir && parent_of(path) == dir) names.push_back(path.substr(path.rfind('/') + 1));
  };
  for (const auto& [path, inode] : live_) add_if_child(path);
  for (const auto& path : dirs_) add_if_child(path);
  std::sort(names.begin(), names.end());
  return names;
}

Status MemoryEnv::create_dirs(const std::string& dir_in) {
  std::string dir = strip_trailing_slashes(dir_in);
  std::lock_guard lock(mu_);
  for (std::string d = dir;;) {
    if (live_.count(d) != 0) return Status::error("mkdir " + d + ": File exists");
    dirs_.insert(d);
    std::string parent = parent_of(d);
    if (parent == d || parent == ".") break;
    d = std::move(parent);
  }
  return Status();
}

Status MemoryEnv::remove_file(const std::string& path) {
  std::lock_guard lock(mu_);
  if (live_.erase(path) == 0)
    return Status::error("remove " + path + ": No such file or directory");
  return Status();
}

Status MemoryEnv::rename_file(const std::string& from, const std::string& to) {
  std::lock_guard lock(mu_);
  std::shared_ptr<Inode> inode = find(from);
  if (inode == nullptr) {
    return Status::error("rename " + from + " to " + to + ": No such file or directory");
  }
  if (dirs_.count(parent_of(to)) == 0) {
    return Status::error("rename " + from + " to " + to + ": No such file or directory");
  }
  live_.erase(from);
  live_[to] = std::move(inode);
  return Status();
}

Status MemoryEnv::sync_dir(const std::string& dir_in) {
  std::string dir = strip_trailing_slashes(dir_in);
  std::lock_guard lock(mu_);
  if (dirs_.count(dir) == 0) return Status::error("open " + dir + ": No such file or directory");
  std::erase_if(durable_, [&](const auto& entry) { return parent_of(entry.first) == dir; });
  for (const auto& [path, inode] : live_) {
    if (parent_of(path) == dir) durable_[path] = inode;
  }
  return Status();
}

bool MemoryEnv::file_exists(const std::string& path) {
  std::lock_guard lock(mu_);
  return live_.count(path) != 0 || dirs_.count(strip_trailing_slashes(path)) != 0;
}

void MemoryEnv::drop_unsynced() {
  std::lock_guard lock(mu_);
  live_ = durable_;
  for (auto& [path, inode] : live_) inode->data = inode->synced;
}

Status MemoryEnv::corrupt(const std::string& path, uint64_t offset, uint8_t xor_mask) {
  std::lock_guard lock(mu_);
  std::shared_ptr<Inode> inode = find(path);
  if (inode == nullptr) return Status::error("corrupt " + path + ": No such file");
  if (offset >= inode->data.size()) return Status::error("corrupt " + path + ": offset past end");
  inode->data[offset] = static_cast<char>(inode->data[offset] ^ xor_mask);
  if (offset < inode->synced.size()) {
    inode->synced[offset] = static_cast<char>(inode->synced[offset] ^ xor_mask);
  }
  return Status();
}

Status MemoryEnv::truncate(const std::string& path, uint64_t size) {
  std::lock_guard lock(mu_);
  std::shared_ptr<Inode> inode = find(path);
  if (inode == nullptr) return Status::error("truncate " + path + ": No such file");
  inode->data.resize(size, '\0');
  inode->synced.resize(std::min<uint64_t>(size, inode->synced.size()));
  return Status();
}

Status MemoryEnv::write_file(const std::string& path, const std::string& content) {
  std::lock_guard lock(mu_);
  if (dirs_.count(parent_of(path)) == 0) {
    return Status::error("open " + path + ": No such file or directory");
  }
  std::shared_ptr<Inode> inode = find(path);
  if (inode == nullptr) inode = std::make_shared<Inode>();
  inode->data = content;
  inode->synced = content;
  live_[path] = inode;
  durable_[path] = inode;
  return Status();
}

std::vector<std::string> MemoryEnv::files() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> paths;
  for (const auto& [path, inode] : live_) paths.push_back(path);
  return paths;
}

uint64_t MemoryEnv::file_syncs() const {
  std::lock_guard lock(mu_);
  return file_syncs_;
}

uint64_t MemoryEnv::bytes_read() const {
  std::lock_guard lock(mu_);
  return bytes_read_;
}

uint64_t MemoryEnv::largest_read() const {
  std::lock_guard lock(mu_);
  return largest_read_;
}

}  // namespace zkd::storage

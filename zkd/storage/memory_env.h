// SPDX-License-Identifier: Apache-2.0
// MemoryEnv: an in-memory Env for tests, with the faults storage code must
// survive. Its crash model (drop_unsynced):
//  - a file's content reverts to what it was at its last WritableFile::sync()
//    (empty if never synced), including the preallocated zeros then present;
//  - the directory entries (creations, renames, removals) revert to the state
//    of the last sync_dir() of their directory: a file created and synced but
//    whose directory was never synced disappears; a removed file comes back.
// Directories themselves are durable as soon as create_dirs() returns.
// Paths are plain strings: the parent of "a/b/c" is "a/b"; use one spelling.
// Its time is simulated (simulated_time.h): the clocks stand still and the
// timers fire only when time() is advanced; secure_random() draws from the
// seed.
// Thread-safe (one mutex).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "zkd/storage/env.h"
#include "zkd/storage/simulated_time.h"

namespace zkd::storage {

class MemoryEnv final : public Env {
 public:
  explicit MemoryEnv(uint64_t seed = 1) : time_(seed) {}
  MemoryEnv(const MemoryEnv&) = delete;
  MemoryEnv& operator=(const MemoryEnv&) = delete;

  StatusOr<std::unique_ptr<WritableFile>> new_writable_file(const std::string& path,
                                                            uint64_t preallocate) override;
  StatusOr<std::unique_ptr<WritableFile>> reopen_writable_file(const std::string& path,
                                                               uint64_t offset) override;
  StatusOr<std::string> read_file(const std::string& path) override;
  // A copy of the file's bytes (counted as read).
  StatusOr<std::unique_ptr<FileView>> view_file(const std::string& path) override;
  StatusOr<std::unique_ptr<ReadableFile>> open_readable_file(const std::string& path) override;
  StatusOr<std::vector<std::string>> list_dir(const std::string& dir) override;
  Status create_dirs(const std::string& dir) override;
  Status remove_file(const std::string& path) override;
  Status rename_file(const std::string& from, const std::string& to) override;
  Status sync_dir(const std::string& dir) override;
  bool file_exists(const std::string& path) override;
  Clock& clock() override { return time_; }
  std::unique_ptr<Timer> new_timer(boost::asio::io_context&) override { return time_.new_timer(); }
  uint64_t secure_random() override { return time_.random(); }

  // The simulated time: advance it to move the clocks and fire the timers.
  SimulatedTime& time() { return time_; }

  // --- Fault injection and inspection (tests only) ---

  // Simulates a power loss (see the crash model above). WritableFiles opened
  // before must not be used afterwards.
  void drop_unsynced();
  // XORs the byte at `offset` with `xor_mask`, on "disk" (survives
  // drop_unsynced).
  Status corrupt(const std::string& path, uint64_t offset, uint8_t xor_mask);
  // Cuts the file to `size` bytes (or extends it with zeros), on "disk".
  Status truncate(const std::string& path, uint64_t size);
  // Replaces the content of an existing or new file, as if written, synced
  // and its directory synced. The parent directory must exist.
  Status write_file(const std::string& path, const std::string& content);
  // Every file path, sorted.
  std::vector<std::string> files() const;
  // WritableFile::sync() calls so far, over all files.
  uint64_t file_syncs() const;
  // Bytes returned by read_file() and ReadableFile::read() so far, and the
  // most that one call returned (what a reader held at once).
  uint64_t bytes_read() const;
  uint64_t largest_read() const;

 private:
  struct Inode {
    std::string data;    // what readers see now
    std::string synced;  // what survives drop_unsynced
  };
  class File;
  class Reader;
  void count_read(uint64_t n);  // mu_ held

  std::shared_ptr<Inode> find(const std::string& path) const;  // mu_ held

  SimulatedTime time_;
  mutable std::mutex mu_;
  std::set<std::string> dirs_;
  std::map<std::string, std::shared_ptr<Inode>> live_;     // directory entries now
  std::map<std::string, std::shared_ptr<Inode>> durable_;  // as of the last sync_dir
  uint64_t file_syncs_ = 0;
  uint64_t bytes_read_ = 0;
  uint64_t largest_read_ = 0;
};

}  // namespace zkd::storage

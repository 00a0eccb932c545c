// SPDX-License-Identifier: Apache-2.0
// Env: everything the storage layer needs from the operating system — files,
// directories, fsync — behind one interface, so tests can run the same code
// on an in-memory file system that loses unsynced writes and corrupts bytes
// on purpose (memory_env.h), and production runs on POSIX (posix_env() below:
// pwrite at the logical end, posix_fallocate with written zeros kept about
// 1 MiB ahead of the end so that syncs change no metadata, fdatasync, EINTR
// retried; errors read "<operation> <path>: <strerror>").
//
// Besides files, an Env is the server's time and its secure randomness
// (clock.h): its clocks, the timers of its state thread, and the source of
// its secrets; posix_env() gives the real ones, MemoryEnv simulated ones.
//
// Threading: an Env may be used from several threads at once; one
// WritableFile or ReadableFile is used by one thread at a time; a Timer is
// used by the thread it fires on.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "zkd/status/status.h"
#include "zkd/storage/clock.h"

namespace boost::asio {
class io_context;
}

namespace zkd::storage {

class WritableFile {
 public:
  virtual ~WritableFile() = default;
  // Appends at the logical end (after the last append, not after the
  // preallocated zeros).
  virtual Status append(std::string_view bytes) = 0;
  // Makes every byte appended so far durable (fdatasync).
  virtual Status sync() = 0;
  virtual Status close() = 0;
  // Bytes appended so far (the logical size).
  virtual uint64_t size() const = 0;
};

// A file opened for reading at any offset (pread), so a big file can be
// checked in bounded pieces instead of read whole.
class ReadableFile {
 public:
  virtual ~ReadableFile() = default;
  // The file's size when it was opened.
  virtual uint64_t size() const = 0;
  // Reads up to `n` bytes at `offset` into `scratch` (which has room for `n`)
  // and returns how many it read: fewer than `n` only at the end of the file,
  // 0 at or past it.
  virtual StatusOr<size_t> read(uint64_t offset, size_t n, char* scratch) = 0;
};

// A whole file as one read-only byte range, for parsing big files (log
// segments, snapshots) without copying them: PosixEnv maps the file, so only
// the pages touched are read and nothing is zero-filled first. The bytes are
// the file's when it was opened; it must not be shrunk while the view lives.
class FileView {
 public:
  virtual ~FileView() = default;
  virtual std::string_view bytes() const = 0;
};

class Env {
 public:
  virtual ~Env() = default;

  // Creates (or truncates) `path` for appending. With preallocate > 0 the file
  // is extended with zeros to that many bytes first (fallocate), so appends do
  // not change its size on disk; the zeros are visible to readers.
  virtual StatusOr<std::unique_ptr<WritableFile>> new_writable_file(const std::string& path,
                                                                    uint64_t preallocate) = 0;
  // Opens an existing file for appending at `offset` (after recovery cut a
  // torn tail back to `offset`); bytes after it are zeroed.
  virtual StatusOr<std::unique_ptr<WritableFile>> reopen_writable_file(const std::string& path,
                                                                       uint64_t offset) = 0;
  // The whole content of a file, in one buffer of its size (bytes appended
  // while it is read are included).
  virtual StatusOr<std::string> read_file(const std::string& path) = 0;
  // An existing file's content as a view (FileView).
  virtual StatusOr<std::unique_ptr<FileView>> view_file(const std::string& path) = 0;
  // Opens an existing file for reading in pieces.
  virtual StatusOr<std::unique_ptr<ReadableFile>> open_readable_file(const std::string& path) = 0;
  // Names (not paths) of the entries of a directory, sorted.
  virtual StatusOr<std::vector<std::string>> list_dir(const std::string& dir) = 0;
  virtual Status create_dirs(const std::string& dir) = 0;
  virtual Status remove_file(const std::string& path) = 0;
  // Atomically replaces `to` with `from`; durable once sync_dir(parent) returns.
  virtual Status rename_file(const std::string& from, const std::string& to) = 0;
  // Makes the directory's entries (creations, renames, removals) durable.
  virtual Status sync_dir(const std::string& dir) = 0;
  virtual bool file_exists(const std::string& path) = 0;

  // The clocks (clock.h).
  virtual Clock& clock() = 0;
  // A timer of the thread that runs `io` (the state thread). A simulated Env
  // ignores `io`: its timers fire when its time is advanced.
  virtual std::unique_ptr<Timer> new_timer(boost::asio::io_context& io) = 0;
  // 64 bits from the operating system's secure random source (posix: the
  // kernel's), for secrets and for the seeds main hands to the parts; a
  // simulated Env draws them from its seed.
  virtual uint64_t secure_random() = 0;
};

// The process's real file system.
Env& posix_env();

}  // namespace zkd::storage

// SPDX-License-Identifier: Apache-2.0
// posix_env() against a real temporary directory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <thread>
#include <vector>

#include "tests/unit/zkd/storage/storage_test_util.h"
#include "zkd/storage/env.h"
#include "zkd/storage/snapshot_file.h"
#include "zkd/storage/txn_log.h"

namespace zkd::storage {
namespace {

using testing::TempDir;

TEST(PosixEnvTest, PreallocatedFileKeepsItsSizeAndShowsZeros) {
  TempDir tmp;
  const std::string path = tmp.at("f");
  auto file = posix_env().new_writable_file(path, 4096);
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_TRUE((*file)->append("hello").ok());
  ASSERT_TRUE((*file)->append(" world").ok());
  ASSERT_TRUE((*file)->sync().ok());
  EXPECT_EQ((*file)->size(), 11u);
  EXPECT_EQ(std::filesystem::file_size(path), 4096u);
  auto data = posix_env().read_file(path);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(*data, "hello world" + std::string(4096 - 11, '\0'));
  ASSERT_TRUE((*file)->close().ok());
}

TEST(PosixEnvTest, ReopenZeroesTheTailAndKeepsThePreallocation) {
  TempDir tmp;
  const std::string path = tmp.at("f");
  {
    auto file = posix_env().new_writable_file(path, 1000);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE((*file)->append("abcdefgh").ok());
  }
  auto file = posix_env().reopen_writable_file(path, 3);
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_TRUE((*file)->append("XY").ok());
  ASSERT_TRUE((*file)->sync().ok());
  EXPECT_EQ(std::filesystem::file_size(path), 1000u);
  auto data = posix_env().read_file(path);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(*data, "abcXY" + std::string(995, '\0'));
  EXPECT_FALSE(posix_env().reopen_writable_file(path, 1001).ok());
}

// Whether the block at `offset` of `path` is allocated but unwritten (it
// reads as zeros, and a sync after writing it must also mark it written);
// nothing when the file system cannot tell (no FIEMAP, no unwritten extents).
std::optional<bool> unwritten_at(const std::string& path, uint64_t offset) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  constexpr unsigned kMaxExtents = 64;
  std::vector<char> buf(sizeof(fiemap) + kMaxExtents * sizeof(fiemap_extent));
  auto* map = reinterpret_cast<fiemap*>(buf.data());
  map->fm_start = offset;
  map->fm_length = 1;
  map->fm_flags = FIEMAP_FLAG_SYNC;
  map->fm_extent_count = kMaxExtents;
  const int r = ::ioctl(fd, FS_IOC_FIEMAP, map);
  ::close(fd);
  if (r != 0 || map->fm_mapped_extents == 0) return std::nullopt;
  return (map->fm_extents[0].fe_flags & FIEMAP_EXTENT_UNWRITTEN) != 0;
}

TEST(PosixEnvTest, PreallocatedFileIsWrittenWithZerosAheadOfItsEnd) {
  TempDir tmp;
  const std::string path = tmp.at("f");
  constexpr uint64_t kSize = 8 << 20;
  auto file = posix_env().new_writable_file(path, kSize);
  ASSERT_TRUE(file.ok()) << file.status().message();
  if (unwritten_at(path, 0) != true) GTEST_SKIP() << "no unwritten extents to observe here";
  ASSERT_TRUE((*file)->append(std::string(100, 'a')).ok());
  ASSERT_TRUE((*file)->sync().ok());
  // The next half MiB is written zeros already; far ahead nothing is.
  EXPECT_EQ(unwritten_at(path, 4096), false);
  EXPECT_EQ(unwritten_at(path, 512 << 10), false);
  EXPECT_EQ(unwritten_at(path, 4 << 20), true);
  // Topped up as the end moves on.
  const std::string big(3 << 20, 'b');
  ASSERT_TRUE((*file)->append(big).ok());
  ASSERT_TRUE((*file)->sync().ok());
  EXPECT_EQ(unwritten_at(path, (3 << 20) + 4096 + (256 << 10)), false);
  EXPECT_EQ(unwritten_at(path, 7 << 20), true);
  // Readers see the appended bytes, then zeros to the preallocated size.
  EXPECT_EQ(std::filesystem::file_size(path), kSize);
  auto data = posix_env().read_file(path);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(*data, std::string(100, 'a') + big + std::string(kSize - 100 - big.size(), '\0'));
  ASSERT_TRUE((*file)->close().ok());
}

TEST(PosixEnvTest, AppendsNeverWriteZerosPastThePreallocatedSize) {
  TempDir tmp;
  const std::string path = tmp.at("f");
  auto file = posix_env().new_writable_file(path, 4096);
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_TRUE((*file)->append("x").ok());
  ASSERT_TRUE((*file)->append(std::string(5000, 'y')).ok());  // past the preallocation
  ASSERT_TRUE((*file)->sync().ok());
  EXPECT_EQ(std::filesystem::file_size(path), 5001u);
  auto unallocated = posix_env().new_writable_file(tmp.at("g"), 0);
  ASSERT_TRUE(unallocated.ok());
  ASSERT_TRUE((*unallocated)->append("z").ok());
  ASSERT_TRUE((*unallocated)->sync().ok());
  EXPECT_EQ(std::filesystem::file_size(tmp.at("g")), 1u);
}

TEST(PosixEnvTest, DirectoryOperations) {
  TempDir tmp;
  Env& env = posix_env();
  const std::string dir = tmp.at("a/b/c");
  ASSERT_TRUE(env.create_dirs(dir).ok());
  ASSERT_TRUE(env.create_dirs(dir).ok());  // idempotent
  for (const char* name : {"z", "y", "x"}) {
    auto file = env.new_writable_file(dir + "/" + name, 0);
    ASSERT_TRUE(file.ok());
  }
  ASSERT_TRUE(env.rename_file(dir + "/x", dir + "/w").ok());
  ASSERT_TRUE(env.remove_file(dir + "/y").ok());
  ASSERT_TRUE(env.sync_dir(dir).ok());
  auto names = env.list_dir(dir);
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"w", "z"}));
  EXPECT_TRUE(env.file_exists(dir + "/w"));
  EXPECT_FALSE(env.file_exists(dir + "/x"));
}

TEST(PosixEnvTest, ErrorsNameThePathAndTheReason) {
  TempDir tmp;
  const std::string missing = tmp.at("no/such/file");
  auto data = posix_env().read_file(missing);
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.status().message().find(missing), std::string::npos);
  EXPECT_NE(data.status().message().find("No such file or directory"), std::string::npos);
  EXPECT_FALSE(posix_env().remove_file(missing).ok());
  EXPECT_FALSE(posix_env().list_dir(missing).ok());
}

TEST(PosixEnvTest, ReadableFileReadsPiecesAtAnyOffset) {
  TempDir tmp;
  const std::string path = tmp.at("f");
  auto file = posix_env().new_writable_file(path, 0);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->append("0123456789").ok());
  ASSERT_TRUE((*file)->close().ok());
  auto reader = posix_env().open_readable_file(path);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  testing::expect_digits_read_in_pieces(**reader);
  auto missing = posix_env().open_readable_file(tmp.at("none"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(tmp.at("none")), std::string::npos);
}

// A FIFO reports size 0 and its bytes arrive after read_file() has sized its
// buffer: the most a file can grow while it is read.
TEST(PosixEnvTest, ViewFileShowsTheWholeFileAndOutlivesItsRemoval) {
  TempDir tmp;
  const std::string path = tmp.at("f");
  auto file = posix_env().new_writable_file(path, 8192);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->append("log bytes").ok());
  ASSERT_TRUE((*file)->close().ok());
  auto view = posix_env().view_file(path);
  ASSERT_TRUE(view.ok()) << view.status().message();
  EXPECT_EQ((*view)->bytes(), "log bytes" + std::string(8192 - 9, '\0'));
  ASSERT_TRUE(posix_env().remove_file(path).ok());
  EXPECT_EQ((*view)->bytes().substr(0, 9), "log bytes");  // mapped, not re-read

  const std::string empty = tmp.at("empty");
  ASSERT_TRUE(posix_env().new_writable_file(empty, 0).ok());
  auto none = posix_env().view_file(empty);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE((*none)->bytes().empty());

  auto missing = posix_env().view_file(tmp.at("missing"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/missing"), std::string::npos);
}

TEST(PosixEnvTest, ReadFileKeepsBytesAddedAfterItsSizeWasTaken) {
  TempDir tmp;
  const std::string path = tmp.at("fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  std::string content(300000, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>(i * 7 + i / 251);
  std::thread writer([&] {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);  // waits for the reader
    if (fd < 0) return;
    for (size_t done = 0; done < content.size();) {
      ssize_t w =
          ::write(fd, content.data() + done, std::min<size_t>(10000, content.size() - done));
      if (w <= 0) break;
      done += static_cast<size_t>(w);
    }
    ::close(fd);
  });
  auto data = posix_env().read_file(path);
  writer.join();
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->size(), content.size());
  EXPECT_TRUE(*data == content);
}

TEST(PosixEnvTest, TxnLogSurvivesATornTailOnRealFiles) {
  TempDir tmp;
  LogOptions options{tmp.at("log"), 4096, true};
  auto records = testing::make_records(1, 200, 50);
  testing::append_records(posix_env(), options, LogTail{}, records);

  auto segments = list_segments(posix_env(), options.dir);
  ASSERT_TRUE(segments.ok());
  ASSERT_GT(segments->size(), 2u);
  // Cut the last segment in the middle of its last record.
  auto before = read_txn_log(posix_env(), options.dir, 0);
  ASSERT_TRUE(before.ok()) << before.status().message();
  const std::string last = options.dir + "/" + before->tail.segment;
  std::filesystem::resize_file(last, before->tail.offset - 7);

  auto recovered = read_txn_log(posix_env(), options.dir, 0);
  ASSERT_TRUE(recovered.ok()) << recovered.status().message();
  EXPECT_EQ(recovered->records.size(), 199u);
  EXPECT_NE(recovered->repaired.find("cut torn record"), std::string::npos);

  auto more = testing::make_records(200, 260, 50);
  testing::append_records(posix_env(), options, recovered->tail, more);
  auto again = read_txn_log(posix_env(), options.dir, 0);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->repaired, "");
  records.pop_back();
  records.insert(records.end(), more.begin(), more.end());
  EXPECT_TRUE(testing::same_records(again->records, records));
}

TEST(PosixEnvTest, SnapshotRoundTrip) {
  TempDir tmp;
  auto writer = SnapshotWriter::create(posix_env(), tmp.path(), 0x2a);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  ASSERT_TRUE((*writer)->append("tree;").ok());
  ASSERT_TRUE((*writer)->append("sessions").ok());
  ASSERT_TRUE((*writer)->finish().ok());
  auto loaded = read_latest_snapshot(posix_env(), tmp.path());
  ASSERT_TRUE(loaded.ok());
  ASSERT_TRUE(loaded->snapshot.has_value());
  EXPECT_EQ(loaded->snapshot->zxid, 0x2a);
  EXPECT_EQ(loaded->snapshot->payload, "tree;sessions");
  auto names = posix_env().list_dir(tmp.path());
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"snapshot.000000000000002a"}));
}

}  // namespace
}  // namespace zkd::storage

// SPDX-License-Identifier: Apache-2.0
// The audit log file: lines appended whole, rolled over in a fixed window.
#include "zkd/audit/audit_log.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/common/temp_dir.h"

namespace zkd::audit {
namespace {

class FixedClock final : public Clock {
 public:
  int64_t wall_ms() override { return 0; }
  int64_t steady_us() override { return 0; }
};

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

AuditEvent numbered(int n) {
  AuditEvent event;
  event.znode = "/" + std::to_string(n);
  return event;
}

TEST(AuditLogFile, AppendsOneLinePerEventToWhatIsThere) {
  zk::test::TempDir dir("zkd-audit");
  const std::string path = dir.write("zookeeper_audit.log", "earlier\n");
  FixedClock clock;
  auto log = AuditLogFile::open({.path = path}, clock);
  ASSERT_TRUE(log.ok()) << log.status().message();
  (*log)->write(numbered(1));
  (*log)->write(numbered(2));
  const std::string text = read(path);
  EXPECT_EQ(text.substr(0, 8), "earlier\n");
  EXPECT_NE(text.find("Slf4jAuditLogger: znode=/1\tresult=success\n"), std::string::npos);
  EXPECT_NE(text.find("Slf4jAuditLogger: znode=/2\tresult=success\n"), std::string::npos);
}

// Writes znode=/1 .. /`count` to <dir>/audit.log rolled over at 10 bytes
// (each line is longer: every write after the first rolls over), keeping
// `backups`; returns the file's path.
std::string write_small_files(const zk::test::TempDir& dir, int count, int backups) {
  const std::string path = dir.at("audit.log");
  FixedClock clock;
  auto log =
      AuditLogFile::open({.path = path, .max_file_size = 10, .max_backup_index = backups}, clock);
  EXPECT_TRUE(log.ok());
  for (int n = 1; log.ok() && n <= count; ++n) (*log)->write(numbered(n));
  return path;
}

TEST(AuditLogFile, RollsOverInAFixedWindowOnceFull) {
  zk::test::TempDir dir("zkd-audit");
  const std::string path = write_small_files(dir, 4, 2);
  EXPECT_NE(read(path).find("znode=/4\t"), std::string::npos);
  EXPECT_NE(read(path + ".1").find("znode=/3\t"), std::string::npos);
  EXPECT_NE(read(path + ".2").find("znode=/2\t"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path + ".3"));
}

TEST(AuditLogFile, WithoutBackupsAFullFileStartsAfresh) {
  zk::test::TempDir dir("zkd-audit");
  const std::string path = write_small_files(dir, 2, 0);
  EXPECT_EQ(read(path).find("znode=/1\t"), std::string::npos);
  EXPECT_NE(read(path).find("znode=/2\t"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path + ".1"));
}

TEST(AuditLogFile, AFileThatCannotBeOpenedIsAConfigurationError) {
  FixedClock clock;
  auto log = AuditLogFile::open({.path = "/nonexistent-dir/zookeeper_audit.log"}, clock);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().kind(), Status::Kind::kConfig);
  EXPECT_NE(log.status().message().find("/nonexistent-dir/zookeeper_audit.log"), std::string::npos);
}

}  // namespace
}  // namespace zkd::audit

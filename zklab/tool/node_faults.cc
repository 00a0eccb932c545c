// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/node_faults.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>

#include "zklab/process/zkd_process.h"

namespace zk::lab::check {

namespace {

namespace fs = std::filesystem;

// The file of `dir` named `prefix` + hex zxid with the highest zxid (a
// `snapshot.<zxid>.tmp` does not count); empty when there is none.
fs::path newest(const fs::path& dir, const std::string& prefix) {
  fs::path best;
  uint64_t best_zxid = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string hex = name.substr(prefix.size());
    if (hex.empty() || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      continue;
    }
    const uint64_t zxid = std::stoull(hex, nullptr, 16);
    if (best.empty() || zxid > best_zxid) {
      best = entry.path();
      best_zxid = zxid;
    }
  }
  return best;
}

// The offset just past the last non-zero byte of the open file `fd` of
// `size` bytes (0 when every byte is zero); read backwards in blocks.
uint64_t written_end(int fd, uint64_t size) {
  constexpr uint64_t kBlock = 1 << 16;
  std::string block(kBlock, '\0');
  uint64_t end = size;
  while (end > 0) {
    const uint64_t start = end > kBlock ? end - kBlock : 0;
    const ssize_t got = ::pread(fd, block.data(), end - start, static_cast<off_t>(start));
    if (got != static_cast<ssize_t>(end - start)) return 0;
    for (uint64_t i = end - start; i > 0; --i) {
      if (block[i - 1] != '\0') return start + i;
    }
    end = start;
  }
  return 0;
}

}  // namespace

std::optional<std::string> corrupt_newest_file(const fs::path& version2_dir, std::mt19937_64& rng,
                                               std::string& error) {
  const fs::path log = newest(version2_dir, "log.");
  const fs::path snapshot = newest(version2_dir, "snapshot.");
  if (log.empty() && snapshot.empty()) {
    error = "no txn log segment or snapshot in " + version2_dir.string();
    return std::nullopt;
  }
  const bool pick_log =
      snapshot.empty() || (!log.empty() && std::uniform_int_distribution<int>(0, 1)(rng) == 0);
  const fs::path file = pick_log ? log : snapshot;
  const int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot open " + file.string() + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::error_code ec;
  const uint64_t end = written_end(fd, fs::file_size(file, ec));
  if (end == 0) {
    ::close(fd);
    error = file.string() + " holds no written byte";
    return std::nullopt;
  }
  const int count = std::uniform_int_distribution<int>(1, 4)(rng);
  std::set<uint64_t> offsets;
  while (static_cast<int>(offsets.size()) < count && offsets.size() < end) {
    offsets.insert(std::uniform_int_distribution<uint64_t>(0, end - 1)(rng));
  }
  std::string done;
  int flipped = 0;
  for (uint64_t offset : offsets) {
    char byte = 0;
    const auto at = static_cast<off_t>(offset);
    if (::pread(fd, &byte, 1, at) != 1) break;
    byte = static_cast<char>(byte ^ std::uniform_int_distribution<int>(1, 255)(rng));
    if (::pwrite(fd, &byte, 1, at) != 1) break;
    done += (done.empty() ? "" : ", ") + std::to_string(offset);
    ++flipped;
  }
  ::close(fd);
  if (done.empty()) {
    error = "cannot rewrite " + file.string() + ": " + std::strerror(errno);
    return std::nullopt;
  }
  return "flipped " + std::to_string(flipped) + " byte(s) of " + file.filename().string() +
         " at offset(s) " + done;
}

std::vector<std::string> zkd_failpoint_names(const std::string& zkd, std::string& error) {
  const RunResult run = run_zkd(zkd, {"failpoints"}, std::chrono::seconds(10));
  if (!WIFEXITED(run.status) || WEXITSTATUS(run.status) != 0) {
    error = "`" + zkd + " failpoints` did not run";
    return {};
  }
  std::vector<std::string> names;
  std::istringstream in(run.output);
  std::string line;
  while (std::getline(in, line)) {
    const std::string name = line.substr(0, line.find(' '));
    if (!name.empty()) names.push_back(name);
  }
  if (names.empty()) error = "`" + zkd + " failpoints` named no failpoint";
  return names;
}

}  // namespace zk::lab::check

// SPDX-License-Identifier: Apache-2.0
#include "zkbench/server_cpu.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "libzk/client/connect_string.h"

namespace zk::bench {

namespace {

namespace fs = std::filesystem;

constexpr const char* kListen = "0A";  // TCP_LISTEN in /proc/net/tcp's st column

// An address of /proc/net/tcp{,6}: 8 or 32 hex digits, each group of 8 a
// 32-bit word as the kernel holds it (in network byte order in memory).
std::optional<std::vector<uint8_t>> parse_proc_address(const std::string& hex) {
  if (hex.size() != 8 && hex.size() != 32) return std::nullopt;
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i < hex.size(); i += 8) {
    uint32_t word = 0;
    for (size_t k = i; k < i + 8; ++k) {
      const char c = hex[k];
      const int digit = c >= '0' && c <= '9'   ? c - '0'
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10
                        : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                               : -1;
      if (digit < 0) return std::nullopt;
      word = word << 4 | static_cast<uint32_t>(digit);
    }
    uint8_t raw[4];
    std::memcpy(raw, &word, 4);
    bytes.insert(bytes.end(), raw, raw + 4);
  }
  return bytes;
}

// Loopback or wildcard, IPv4 (4 bytes) or IPv6 (16 bytes, v4-mapped too).
bool local_or_any(const std::vector<uint8_t>& a) {
  const auto zero = [&a](size_t from, size_t to) {
    return std::all_of(a.begin() + static_cast<long>(from), a.begin() + static_cast<long>(to),
                       [](uint8_t b) { return b == 0; });
  };
  if (a.size() == 4) return a[0] == 127 || zero(0, 4);
  if (zero(0, 16)) return true;
  if (zero(0, 15) && a[15] == 1) return true;  // ::1
  if (zero(0, 10) && a[10] == 0xff && a[11] == 0xff) return a[12] == 127 || zero(12, 16);
  return false;
}

// The inodes of the sockets listening on `ports` at a loopback or wildcard
// address, from one /proc/net/tcp{,6} table.
void listening_inodes(const char* table, const std::set<uint16_t>& ports,
                      std::map<uint64_t, uint16_t>& out) {
  std::ifstream in(table);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
    std::istringstream fields(line);
    std::string sl, local, remote, st, queues, timer, retransmits, uid, timeout;
    uint64_t inode = 0;
    if (!(fields >> sl >> local >> remote >> st >> queues >> timer >> retransmits >> uid >>
          timeout >> inode)) {
      continue;
    }
    const auto colon = local.find(':');
    if (st != kListen || colon == std::string::npos || inode == 0) continue;
    const auto port = static_cast<uint16_t>(std::strtoul(local.c_str() + colon + 1, nullptr, 16));
    if (ports.count(port) == 0) continue;
    const auto address = parse_proc_address(local.substr(0, colon));
    if (address && local_or_any(*address)) out[inode] = port;
  }
}

// The inode of a descriptor link "socket:[12345]"; 0 for anything else.
uint64_t socket_inode(const std::string& link) {
  constexpr std::string_view prefix = "socket:[";
  if (link.rfind(prefix, 0) != 0 || link.back() != ']') return 0;
  return std::strtoull(link.c_str() + prefix.size(), nullptr, 10);
}

bool is_loopback_host(const std::string& host) {
  std::string lower = host;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "localhost") return true;
  std::array<uint8_t, 16> a{};
  if (inet_pton(AF_INET, host.c_str(), a.data()) == 1) return a[0] == 127;
  if (inet_pton(AF_INET6, host.c_str(), a.data()) == 1) {
    const std::vector<uint8_t> bytes(a.begin(), a.end());
    const bool any = std::all_of(a.begin(), a.end(), [](uint8_t b) { return b == 0; });
    return !any && local_or_any(bytes);
  }
  return false;
}

void add_reason(std::string& reasons, const std::string& reason) {
  reasons += (reasons.empty() ? "" : "; ") + reason;
}

}  // namespace

std::map<uint16_t, std::vector<pid_t>> listening_pids(const std::set<uint16_t>& ports) {
  std::map<uint64_t, uint16_t> inodes;
  listening_inodes("/proc/net/tcp", ports, inodes);
  listening_inodes("/proc/net/tcp6", ports, inodes);
  std::map<uint16_t, std::vector<pid_t>> out;
  if (inodes.empty()) return out;
  std::error_code ec;
  for (fs::directory_iterator proc("/proc", ec), end; !ec && proc != end; proc.increment(ec)) {
    const std::string name = proc->path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    const auto pid = static_cast<pid_t>(std::stol(name));
    std::error_code fd_ec;  // another user's process: its fds are not listed
    for (fs::directory_iterator fd(proc->path() / "fd", fd_ec), fd_end; !fd_ec && fd != fd_end;
         fd.increment(fd_ec)) {
      std::error_code link_ec;
      const fs::path link = fs::read_symlink(fd->path(), link_ec);
      if (link_ec) continue;
      const auto it = inodes.find(socket_inode(link.string()));
      if (it == inodes.end()) continue;
      auto& pids = out[it->second];
      if (std::find(pids.begin(), pids.end(), pid) == pids.end()) pids.push_back(pid);
    }
  }
  for (auto& [port, pids] : out) std::sort(pids.begin(), pids.end());
  return out;
}

std::optional<std::chrono::microseconds> process_cpu_time(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // "pid (comm) state ppid ...": utime and stime are fields 14 and 15, the
  // 12th and 13th after the last ')' (comm may hold anything).
  const auto paren = stat.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(paren + 1));
  std::string field;
  for (int i = 0; i < 11 && fields >> field; ++i) {
  }
  int64_t utime = 0, stime = 0;
  if (!(fields >> utime >> stime)) return std::nullopt;
  const int64_t ticks_per_s = std::max<int64_t>(::sysconf(_SC_CLK_TCK), 1);
  return std::chrono::microseconds((utime + stime) * 1'000'000 / ticks_per_s);
}

std::optional<double> ServerCpuUsage::us_per_op(int64_t requests) const {
  if (!cpu || requests <= 0) return std::nullopt;
  return static_cast<double>(cpu->count()) / static_cast<double>(requests);
}

ServerCpu::ServerCpu() : unknown_("no server processes") {}

ServerCpu::ServerCpu(const std::vector<std::string>& addresses, const std::vector<pid_t>& given) {
  if (!given.empty()) {
    pids_ = given;
    std::sort(pids_.begin(), pids_.end());
    pids_.erase(std::unique(pids_.begin(), pids_.end()), pids_.end());
    return;
  }
  std::vector<std::pair<std::string, uint16_t>> local;  // address, port
  for (const std::string& address : addresses) {
    const auto parsed = zk::client::parse_connect_string(address);
    if (!parsed.ok() || parsed->hosts.size() != 1) {
      add_reason(unknown_, address + ": not host:port");
    } else if (!is_loopback_host(parsed->hosts[0].host)) {
      add_reason(unknown_, address + ": not a loopback address");
    } else {
      local.emplace_back(address, parsed->hosts[0].port);
    }
  }
  std::set<uint16_t> ports;
  for (const auto& [address, port] : local) ports.insert(port);
  const auto found =
      ports.empty() ? std::map<uint16_t, std::vector<pid_t>>{} : listening_pids(ports);
  for (const auto& [address, port] : local) {
    const auto it = found.find(port);
    if (it == found.end()) {
      add_reason(unknown_, address + ": no listening process found (another user's?)");
      continue;
    }
    pids_.insert(pids_.end(), it->second.begin(), it->second.end());
  }
  std::sort(pids_.begin(), pids_.end());
  pids_.erase(std::unique(pids_.begin(), pids_.end()), pids_.end());
  if (pids_.empty() && unknown_.empty()) unknown_ = "no server processes";
}

ServerCpuTimes ServerCpu::sample() const {
  ServerCpuTimes t;
  t.unknown = unknown_;
  if (!t.unknown.empty()) return t;
  for (pid_t pid : pids_) {
    const auto cpu = process_cpu_time(pid);
    if (!cpu) {
      add_reason(t.unknown, "process " + std::to_string(pid) + " cannot be read");
      continue;
    }
    t.total += *cpu;
  }
  return t;
}

ServerCpuUsage ServerCpu::usage(const ServerCpuTimes& from, const ServerCpuTimes& to) const {
  ServerCpuUsage u;
  u.pids = pids_;
  u.unknown = !from.unknown.empty() ? from.unknown : to.unknown;
  if (u.unknown.empty()) u.cpu = std::max(to.total - from.total, std::chrono::microseconds(0));
  return u;
}

}  // namespace zk::bench

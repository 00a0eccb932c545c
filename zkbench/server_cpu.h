// SPDX-License-Identifier: Apache-2.0
// The CPU time the servers of an ensemble use (Linux /proc), so that every
// throughput can be given beside the server CPU it cost: the user + system
// time of the server processes only (not zkbench's, not the machine's),
// summed over all servers, for zkd and Apache ZooKeeper alike.
//
// The server processes are those given (--server-pids), or else found on
// this machine by the client port of each address: a TCP socket listening
// on that port at a loopback or wildcard address (/proc/net/tcp and tcp6)
// has an inode; the processes with a descriptor on it (/proc/<pid>/fd links
// "socket:[inode]") are the server. This finds processes of the same user
// (or any, as root); an address that is not loopback or whose listener
// cannot be found leaves the servers' CPU unknown, which a report says, and
// nothing fails.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace zk::bench {

// The processes holding a TCP socket that listens on one of `ports` at a
// loopback (127.0.0.0/8, ::1, ::ffff:127.x) or wildcard address, IPv4 or
// IPv6, by port, each list in increasing order and without repeats. A port
// without such a process has no entry. Processes whose descriptors cannot
// be read (another user's) are not seen.
std::map<uint16_t, std::vector<pid_t>> listening_pids(const std::set<uint16_t>& ports);

// The user + system CPU time process `pid` (all its threads) has used so
// far, from /proc/<pid>/stat (clock-tick resolution); nothing when it cannot
// be read (no such process).
std::optional<std::chrono::microseconds> process_cpu_time(pid_t pid);

// The servers' CPU time at one instant.
struct ServerCpuTimes {
  std::chrono::microseconds total{0};  // summed over the processes
  std::string unknown;                 // not empty: why total is not known
};

// What the servers used over a span (ServerCpu::usage).
struct ServerCpuUsage {
  std::vector<pid_t> pids;                       // the server processes
  std::optional<std::chrono::microseconds> cpu;  // user + system, summed; nothing when unknown
  std::string unknown;                           // when cpu is nothing: why

  // CPU µs per request for `requests` requests; nothing when unknown or
  // without a request.
  std::optional<double> us_per_op(int64_t requests) const;
};

// The server processes of one ensemble and their CPU meter. Found once, at
// construction; sample() reads them at an instant (the engine samples them
// beside zkbench's own CPU time, cpu.h).
class ServerCpu {
 public:
  // No server: every sample is unknown.
  ServerCpu();
  // The servers at `addresses` ("host:port", as for a connect string):
  // `given` when not empty, else the processes listening on the addresses'
  // ports (listening_pids(); only for a loopback host: 127.x, ::1,
  // localhost).
  ServerCpu(const std::vector<std::string>& addresses, const std::vector<pid_t>& given);

  const std::vector<pid_t>& pids() const { return pids_; }
  // Why the servers' CPU cannot be known ("127.0.0.1:2181: no process
  // listening on this machine"); empty when every server has its process.
  const std::string& unknown() const { return unknown_; }

  // The processes' CPU time so far, summed; unknown when a process can no
  // longer be read.
  ServerCpuTimes sample() const;
  // What they used from `from` to `to` (two samples).
  ServerCpuUsage usage(const ServerCpuTimes& from, const ServerCpuTimes& to) const;

 private:
  std::vector<pid_t> pids_;
  std::string unknown_;
};

}  // namespace zk::bench

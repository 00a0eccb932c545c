// SPDX-License-Identifier: Apache-2.0
// machine_floor: what this machine allows at best, the floors issue 43
// measures zkd against (docs/benchmarks.md, "The machine's floor"):
//   - fdatasync: 1 KiB appended and synced, one at a time (the commit of one
//     write on one server can be no faster; `--dir` picks the disk);
//   - fresh memory: pages faulted in for the first time (a process that
//     loads a tree of N bytes touches N bytes of new memory at least);
//   - memcpy: copying within memory already touched;
//   - syscalls: the cheapest one (getppid), and a 1 KiB send on a loopback
//     TCP connection whose other end a second thread drains;
//   - a loopback TCP round trip of one byte between two threads.
// A benchmark: it prints figures and asserts nothing.
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

[[noreturn]] void die(const char* what) {
  std::perror(what);
  std::exit(1);
}

// 1 KiB appends, each followed by fdatasync, for `seconds`: syncs per second
// and the p50 and p99 of one.
void fdatasync_floor(const std::string& dir, double seconds) {
  const std::string path = dir + "/machine_floor.tmp";
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
  if (fd < 0) die(path.c_str());
  const std::string record(1024, 'x');
  std::vector<double> each;
  const auto t0 = Clock::now();
  while (seconds_since(t0) < seconds) {
    const auto t = Clock::now();
    if (::write(fd, record.data(), record.size()) != static_cast<ssize_t>(record.size())) {
      die("write");
    }
    if (::fdatasync(fd) != 0) die("fdatasync");
    each.push_back(seconds_since(t) * 1e6);
  }
  const double total = seconds_since(t0);
  ::close(fd);
  ::unlink(path.c_str());
  std::sort(each.begin(), each.end());
  std::printf("fdatasync of 1 KiB appends   %9.0f /s   p50 %.0f us, p99 %.0f us (%s)\n",
              static_cast<double>(each.size()) / total, each[each.size() / 2],
              each[each.size() * 99 / 100], dir.c_str());
}

// `mib` MiB of new anonymous memory written once, a byte per 4 KiB page, then
// copied within (memcpy of touched memory).
void memory_floor(size_t mib) {
  const size_t bytes = mib << 20;
  auto* p = static_cast<char*>(
      ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (p == MAP_FAILED) die("mmap");
  auto t0 = Clock::now();
  for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  const double fault = seconds_since(t0);
  std::printf(
      "fresh memory, first touch    %9.0f MiB/s   %.2f us per 4 KiB page; %zu MiB in %.0f ms\n",
      static_cast<double>(mib) / fault, fault * 1e6 / static_cast<double>(bytes / 4096), mib,
      fault * 1e3);
  const size_t half = bytes / 2;
  t0 = Clock::now();
  int rounds = 0;
  while (seconds_since(t0) < 1.0 || rounds < 2) {
    std::memcpy(p + (rounds % 2 ? 0 : half), p + (rounds % 2 ? half : 0), half);
    ++rounds;
  }
  const double copied = static_cast<double>(half) * rounds / (1 << 20);
  std::printf("memcpy within touched memory %9.0f MiB/s\n", copied / seconds_since(t0));
  ::munmap(p, bytes);
}

// A connected pair of loopback TCP sockets, Nagle off on both.
std::pair<int, int> tcp_pair() {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener, 1) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    die("listen");
  }
  const int a = ::socket(AF_INET, SOCK_STREAM, 0);
  if (::connect(a, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) die("connect");
  const int b = ::accept(listener, nullptr, nullptr);
  if (b < 0) die("accept");
  ::close(listener);
  const int one = 1;
  for (int fd : {a, b}) ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return {a, b};
}

void syscall_floor(double seconds) {
  auto t0 = Clock::now();
  long calls = 0;
  while (calls % 4096 != 0 || seconds_since(t0) < seconds) {
    (void)::getppid();
    ++calls;
  }
  std::printf("getppid                      %9.2f M/s    %.3f us each\n",
              static_cast<double>(calls) / seconds_since(t0) / 1e6,
              seconds_since(t0) * 1e6 / static_cast<double>(calls));

  auto [a, b] = tcp_pair();
  std::thread drain([fd = b] {
    std::vector<char> buf(1 << 16);
    while (::read(fd, buf.data(), buf.size()) > 0) {
    }
  });
  const std::string record(1024, 'x');
  calls = 0;
  t0 = Clock::now();
  while (seconds_since(t0) < seconds) {
    if (::send(a, record.data(), record.size(), 0) != static_cast<ssize_t>(record.size())) {
      die("send");
    }
    ++calls;
  }
  const double sent = seconds_since(t0);
  std::printf("send of 1 KiB, loopback TCP  %9.0f /s     %.2f us each (a second thread reading)\n",
              static_cast<double>(calls) / sent, sent * 1e6 / static_cast<double>(calls));
  ::shutdown(a, SHUT_WR);
  drain.join();
  ::close(a);
  ::close(b);
}

void round_trip_floor(double seconds) {
  auto [a, b] = tcp_pair();
  std::thread echo([fd = b] {
    char c;
    while (::read(fd, &c, 1) == 1) {
      if (::write(fd, &c, 1) != 1) break;
    }
  });
  std::vector<double> each;
  const auto t0 = Clock::now();
  char c = 'x';
  while (seconds_since(t0) < seconds) {
    const auto t = Clock::now();
    if (::write(a, &c, 1) != 1 || ::read(a, &c, 1) != 1) die("round trip");
    each.push_back(seconds_since(t) * 1e6);
  }
  ::shutdown(a, SHUT_WR);
  echo.join();
  ::close(a);
  ::close(b);
  std::sort(each.begin(), each.end());
  std::printf("loopback TCP round trip      %9.0f /s     p50 %.1f us, p99 %.1f us (two threads)\n",
              static_cast<double>(each.size()) / seconds, each[each.size() / 2],
              each[each.size() * 99 / 100]);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"machine_floor: the floors of this machine that zkd's figures are measured against"};
  std::string dir = ".";
  double seconds = 3;
  size_t mib = 256;
  app.add_option("--dir", dir, "where the fdatasync file goes (the disk of the data dirs)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--seconds", seconds, "per timed measure")->check(CLI::Range(0.1, 600.0));
  app.add_option("--mib", mib, "fresh memory to touch, MiB (a 1M-znode tree is about 250)")
      ->check(CLI::Range(1, 65536));
  CLI11_PARSE(app, argc, argv);
  fdatasync_floor(dir, seconds);
  memory_floor(mib);
  syscall_floor(seconds);
  round_trip_floor(seconds);
  return 0;
}

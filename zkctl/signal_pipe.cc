// SPDX-License-Identifier: Apache-2.0
#include "zkctl/signal_pipe.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace zkctl {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD};
int g_fds[2] = {-1, -1};
struct sigaction g_previous[sizeof kSignals / sizeof kSignals[0]];

void on_signal(int number) {
  const int saved = errno;
  const char byte = static_cast<char>(number);
  (void)!write(g_fds[1], &byte, 1);
  errno = saved;
}

}  // namespace

SignalPipe::SignalPipe() {
  if (pipe2(g_fds, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("pipe2 failed");
  for (size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    struct sigaction action = {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART | (kSignals[i] == SIGCHLD ? SA_NOCLDSTOP : 0);
    sigaction(kSignals[i], &action, &g_previous[i]);
  }
}

SignalPipe::~SignalPipe() {
  for (size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    sigaction(kSignals[i], &g_previous[i], nullptr);
  }
  close(g_fds[0]);
  close(g_fds[1]);
  g_fds[0] = g_fds[1] = -1;
}

void SignalPipe::notify(char note) { (void)!write(g_fds[1], &note, 1); }

std::optional<char> SignalPipe::next(std::optional<std::chrono::milliseconds> timeout) {
  for (;;) {
    char byte = 0;
    if (read(g_fds[0], &byte, 1) == 1) return byte;
    pollfd p = {g_fds[0], POLLIN, 0};
    const int ms = timeout ? static_cast<int>(timeout->count()) : -1;
    const int ready = poll(&p, 1, ms);
    if (ready == 0) return std::nullopt;
    if (ready < 0 && errno != EINTR) return std::nullopt;
  }
}

}  // namespace zkctl

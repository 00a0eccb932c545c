// SPDX-License-Identifier: Apache-2.0
#include "zkctl/lock_supervisor.h"

#include <signal.h>

#include <future>
#include <optional>
#include <thread>

#include "toolkit/child_process.h"
#include "zkctl/command_result.h"

namespace zkctl {

using zk::client::SessionState;
using zk::recipes::LockHold;
using zk::recipes::LossReason;
using zk::toolkit::ChildProcess;
using Clock = std::chrono::steady_clock;

namespace {

bool is_stop_signal(char note) { return note == SIGINT || note == SIGTERM || note == SIGHUP; }

// How often the connection state is looked at while holding: a
// disconnection has no note of its own on the pipe.
constexpr std::chrono::milliseconds kStateCheck{200};

// Why the hold must be given up, if it must: lost, or disconnected for longer
// than the session timeout.
class LossCheck {
 public:
  LossCheck(zk::client::SyncClient& zk, const LockHold& hold) : zk_(zk), hold_(hold) {}

  std::optional<std::string> why_lost() {
    if (auto reason = hold_.loss()) {
      exit_code_ =
          *reason == LossReason::kNodeDeleted ? ExitCode::kError : ExitCode::kSessionExpired;
      return std::string(zk::recipes::loss_reason_text(*reason));
    }
    const SessionState state = zk_.state();
    if (state == SessionState::kConnected) {
      disconnected_ = false;
      return std::nullopt;
    }
    if (state != SessionState::kDisconnected) {
      exit_code_ = ExitCode::kSessionExpired;
      return std::string("session ended (") + std::string(zk::client::session_state_name(state)) +
             ")";
    }
    const auto now = Clock::now();
    if (!disconnected_) {
      disconnected_ = true;
      disconnected_since_ = now;
    }
    if (now - disconnected_since_ < zk_.negotiated_timeout()) return std::nullopt;
    exit_code_ = ExitCode::kSessionExpired;
    return "disconnected for longer than the session timeout (" +
           std::to_string(zk_.negotiated_timeout().count()) + " ms): presumed expired";
  }
  ExitCode exit_code() const { return exit_code_; }

 private:
  zk::client::SyncClient& zk_;
  const LockHold& hold_;
  bool disconnected_ = false;
  Clock::time_point disconnected_since_{};  // valid while disconnected_
  ExitCode exit_code_ = ExitCode::kSessionExpired;
};

// SIGTERM, then SIGKILL after kStopGrace; waits for the child to exit.
void stop_child(ChildProcess& child, SignalPipe& pipe) {
  child.signal(SIGTERM);
  const auto kill_at = Clock::now() + kStopGrace;
  while (!child.poll_exit()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(kill_at - Clock::now());
    if (left.count() <= 0) {
      child.signal(SIGKILL);
      while (!child.poll_exit()) (void)pipe.next(kStateCheck);
      return;
    }
    (void)pipe.next(left);
  }
}

}  // namespace

zk::client::Result<LockHold> acquire_interruptibly(
    zk::client::SyncClient& zk, SignalPipe& pipe,
    const std::function<zk::client::Result<LockHold>()>& acquire, int& interrupted_by) {
  interrupted_by = 0;
  std::promise<zk::client::Result<LockHold>> promise;
  auto future = promise.get_future();
  std::thread worker([&] {
    promise.set_value(acquire());
    pipe.notify(SignalPipe::kAcquired);
  });
  for (;;) {
    const auto note = pipe.next(std::nullopt);
    if (note && is_stop_signal(*note)) {
      interrupted_by = *note;
      (void)zk.close();  // the waiting node goes with the session; the acquire fails
      break;
    }
    if (note == SignalPipe::kAcquired) break;
  }
  worker.join();
  return future.get();
}

int supervise(zk::client::SyncClient& zk, SignalPipe& pipe, LockHold& hold,
              const std::vector<std::string>& argv,
              const std::vector<std::pair<std::string, std::string>>& env,
              const SupervisedVerb& verb, Printer& printer) {
  std::optional<ChildProcess> child;
  if (!argv.empty()) {
    std::vector<std::string> settings;
    for (const auto& [name, value] : env) settings.push_back(name + "=" + value);
    std::string error;
    child =
        ChildProcess::start({.argv = argv, .search_path = true, .environment = settings}, error);
    if (!child) {
      (void)hold.release();
      CommandFailure f;
      f.name = "EXEC_FAILED";
      f.command = verb.command;
      f.path = verb.path;
      f.message = "cannot run '" + argv[0] + "': " + error;
      f.exit_code = ExitCode::kError;
      printer.print(f, "zkctl");
      return 127;
    }
  }
  LossCheck loss(zk, hold);
  for (;;) {
    if (child) {
      if (auto status = child->poll_exit()) {
        const auto released = hold.release();
        if (!released.ok()) {
          CommandFailure f = failure_from_zk(released.error(), verb.path);
          f.command = verb.command;
          f.message = "could not release (" + f.message + "); the node goes when the session ends";
          printer.print(f, "zkctl");
        }
        return ChildProcess::shell_code(*status);
      }
    }
    if (auto why = loss.why_lost()) {
      if (child) stop_child(*child, pipe);
      CommandFailure f;
      f.exit_code = loss.exit_code();
      f.name = verb.command == "elect" ? "LEADERSHIP_LOST" : "LOCK_LOST";
      f.command = verb.command;
      f.path = verb.path;
      f.message = (verb.command == "elect" ? "leadership lost: " : "lock lost: ") + *why +
                  (child ? "; the command was stopped" : "");
      printer.print(f, "zkctl");
      return to_int(f.exit_code);
    }
    const auto note = pipe.next(kStateCheck);
    if (note && is_stop_signal(*note)) {
      if (child) {
        child->signal(*note);
      } else {
        (void)hold.release();
        return to_int(ExitCode::kOk);
      }
    }
  }
}

}  // namespace zkctl

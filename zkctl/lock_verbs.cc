// SPDX-License-Identifier: Apache-2.0
#include "zkctl/lock_verbs.h"

#include "libzk/json/json_writer.h"
#include "recipes/leader_election.h"
#include "recipes/lock.h"
#include "zkctl/command_result.h"
#include "zkctl/lock_supervisor.h"
#include "zkctl/signal_pipe.h"
#include "zkctl/verb_words.h"

namespace zkctl {

using zk::json::JsonWriter;

using zk::client::Result;
using zk::recipes::LockHold;

namespace {

// The words of `lock`/`elect`: PATH, options, and the command after "--".
std::variant<VerbWords, UsageError> split(const std::vector<std::string>& words,
                                          const std::vector<std::string>& option_names) {
  const std::string& verb = words.front();
  auto split_words = split_verb_words(verb, words, 1, {option_names, {}, true});
  if (auto* w = std::get_if<VerbWords>(&split_words)) {
    if (w->positionals.size() > 1) {
      return UsageError{verb + ": unexpected argument '" + w->positionals[1] + "'"};
    }
    if (w->positionals.empty()) return UsageError{verb + ": PATH is required"};
  }
  return split_words;
}

std::variant<LockVerbCommand, UsageError> parse_lock(const std::vector<std::string>& words) {
  auto split_words = split(words, {"--timeout"});
  if (auto* e = std::get_if<UsageError>(&split_words)) return *e;
  VerbWords& w = std::get<VerbWords>(split_words);
  LockVerb verb;
  verb.path = w.positionals.front();
  for (const auto& [name, value] : w.options) {
    verb.timeout_ms = parse_timeout_ms(value);
    if (!verb.timeout_ms)
      return UsageError{"lock: --timeout needs milliseconds, not '" + value + "'"};
  }
  if (w.command.empty()) return UsageError{"lock: give the command after --: lock PATH -- CMD..."};
  verb.command = std::move(w.command);
  return verb;
}

std::variant<LockVerbCommand, UsageError> parse_elect(const std::vector<std::string>& words) {
  auto split_words = split(words, {"--id"});
  if (auto* e = std::get_if<UsageError>(&split_words)) return *e;
  VerbWords& w = std::get<VerbWords>(split_words);
  ElectVerb verb;
  verb.path = w.positionals.front();
  for (const auto& [name, value] : w.options) verb.id = value;
  if (verb.id.empty()) return UsageError{"elect: --id NAME is required"};
  if (w.has_separator && w.command.empty()) return UsageError{"elect: no command after --"};
  verb.command = std::move(w.command);
  return verb;
}

CommandFailure acquire_failure(zk::wire::Error error, const std::string& command,
                               const std::string& path, std::optional<int64_t> timeout_ms) {
  CommandFailure f = failure_from_zk(error, path);
  f.command = command;
  if (error == zk::wire::Error::kOperationTimeout && timeout_ms) {
    f.exit_code = ExitCode::kWatchTimeout;
    f.name = "TIMEOUT";
    f.message = "not acquired within " + std::to_string(*timeout_ms) + " ms";
  }
  return f;
}

void print_leader(Printer& printer, const ElectVerb& verb, const LockHold& hold) {
  if (printer.mode() == OutputMode::kJson) {
    JsonWriter w;
    w.begin_object()
        .key("format")
        .number(kJsonFormat)
        .key("event")
        .string("leader")
        .key("id")
        .string(verb.id)
        .key("path")
        .string(verb.path)
        .key("node")
        .string(hold.node())
        .key("fencing_token")
        .number(hold.token().value())
        .end_object();
    printer.print_text(w.str() + "\n");
    return;
  }
  printer.print_text("leader " + verb.id + " " + hold.node() + " " +
                     zk::recipes::to_string(hold.token()) + "\n");
}

int run_lock(const LockVerb& verb, zk::client::SyncClient& zk, Printer& printer) {
  SignalPipe pipe;
  zk::recipes::LockOptions options;
  options.on_lost = [&pipe](zk::recipes::LossReason) { pipe.notify(SignalPipe::kLost); };
  zk::recipes::Lock lock(zk, verb.path, options);
  std::optional<std::chrono::milliseconds> timeout;
  if (verb.timeout_ms) timeout = std::chrono::milliseconds(*verb.timeout_ms);
  int signal_number = 0;
  Result<LockHold> hold = acquire_interruptibly(
      zk, pipe, [&] { return lock.acquire(timeout); }, signal_number);
  if (signal_number != 0) return 128 + signal_number;
  if (!hold.ok()) {
    const CommandFailure f = acquire_failure(hold.error(), "lock", verb.path, verb.timeout_ms);
    printer.print(f, "zkctl");
    return to_int(f.exit_code);
  }
  const std::vector<std::pair<std::string, std::string>> env = {
      {"ZK_FENCING_TOKEN", zk::recipes::to_string(hold->token())}, {"ZK_LOCK_NODE", hold->node()}};
  return supervise(zk, pipe, *hold, verb.command, env, {"lock", verb.path}, printer);
}

int run_elect(const ElectVerb& verb, zk::client::SyncClient& zk, Printer& printer) {
  SignalPipe pipe;
  zk::recipes::LockOptions options;
  options.on_lost = [&pipe](zk::recipes::LossReason) { pipe.notify(SignalPipe::kLost); };
  zk::recipes::LeaderElection election(zk, verb.path, verb.id, options);
  int signal_number = 0;
  Result<LockHold> hold = acquire_interruptibly(
      zk, pipe, [&] { return election.await_leadership(); }, signal_number);
  if (signal_number != 0) return 128 + signal_number;
  if (!hold.ok()) {
    const CommandFailure f = acquire_failure(hold.error(), "elect", verb.path, std::nullopt);
    printer.print(f, "zkctl");
    return to_int(f.exit_code);
  }
  print_leader(printer, verb, *hold);
  const std::vector<std::pair<std::string, std::string>> env = {
      {"ZK_FENCING_TOKEN", zk::recipes::to_string(hold->token())},
      {"ZK_LEADER_ID", verb.id},
      {"ZK_LOCK_NODE", hold->node()}};
  return supervise(zk, pipe, *hold, verb.command, env, {"elect", verb.path}, printer);
}

}  // namespace

bool is_lock_verb(const std::vector<std::string>& words) {
  return !words.empty() && (words.front() == "lock" || words.front() == "elect");
}

std::variant<LockVerbCommand, UsageError> parse_lock_verb(const std::vector<std::string>& words) {
  if (words.front() == "lock") return parse_lock(words);
  return parse_elect(words);
}

int run_lock_verb(const LockVerbCommand& verb, zk::client::SyncClient& zk, Printer& printer) {
  if (const auto* lock = std::get_if<LockVerb>(&verb)) return run_lock(*lock, zk, printer);
  return run_elect(std::get<ElectVerb>(verb), zk, printer);
}

std::string lock_verbs_help_text() {
  return "Lock and election (one-shot: not in scripts or the shell):\n"
         "  lock PATH [--timeout MS] -- CMD [ARGS...]\n"
         "                                 run CMD holding the lock at PATH (Curator's\n"
         "                                 InterProcessMutex layout); CMD gets\n"
         "                                 ZK_FENCING_TOKEN and ZK_LOCK_NODE; release\n"
         "                                 when CMD exits; exit with CMD's status;\n"
         "                                 signals go to CMD; lock lost: CMD stopped,\n"
         "                                 exit 8; --timeout: give up waiting (exit 10)\n"
         "  elect PATH --id NAME [-- CMD [ARGS...]]\n"
         "                                 join the election at PATH (Curator's\n"
         "                                 LeaderLatch layout); print 'leader NAME NODE\n"
         "                                 TOKEN' when leader; stay leader until\n"
         "                                 SIGINT/SIGTERM (exit 0), or run CMD as leader\n";
}

}  // namespace zkctl

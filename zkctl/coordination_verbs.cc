// SPDX-License-Identifier: Apache-2.0
#include "zkctl/coordination_verbs.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "libzk/json/json_writer.h"
#include "libzk/json/text_encoding.h"
#include "recipes/config.h"
#include "recipes/counter.h"
#include "recipes/double_barrier.h"
#include "recipes/group.h"
#include "recipes/queue.h"
#include "zkctl/command_result.h"
#include "zkctl/data_argument.h"
#include "zkctl/signal_pipe.h"
#include "zkctl/verb_words.h"

namespace zkctl {

using zk::json::base64_encode;
using zk::json::is_valid_utf8;
using zk::json::JsonWriter;

namespace {

using Kind = CoordinationVerb::Kind;
using zk::client::Status;
using zk::wire::Error;

bool has_flag(const VerbWords& w, const std::string& flag) {
  return std::find(w.flags.begin(), w.flags.end(), flag) != w.flags.end();
}

// "<hostname>-<parent pid>": the same for every zkctl a shell script runs.
std::string default_member_id() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host[0] ? host : "host") + "-" + std::to_string(getppid());
}

std::variant<std::map<std::string, std::string>, UsageError> read_config_file(
    const std::string& file) {
  std::ifstream in(file);
  if (!in) return UsageError{"settings apply: cannot read '" + file + "'"};
  std::map<std::string, std::string> values;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    const size_t eq = line.find('=');
    std::string key = eq == std::string::npos ? "" : line.substr(start, eq - start);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    if (!zk::recipes::valid_config_key(key)) {
      return UsageError{"settings apply: " + file + ":" + std::to_string(number) +
                        ": expected key=value with a key that is a node name other than 'ready'"};
    }
    values[key] = line.substr(eq + 1);
  }
  return values;
}

std::variant<CoordinationVerb, UsageError> parse_words(const std::vector<std::string>& words) {
  const std::string& verb = words.front();
  CoordinationVerb out;
  size_t first = 1;
  std::string action;
  if (verb != "members") {
    if (words.size() < 2) return UsageError{verb + ": give an action"};
    action = words[1];
    first = 2;
  }
  const std::string name = action.empty() ? verb : verb + " " + action;
  std::vector<std::string> with_value, flags;
  size_t positionals = 1;
  if (verb == "barrier" && (action == "enter" || action == "leave")) {
    out.kind = action == "enter" ? Kind::kBarrierEnter : Kind::kBarrierLeave;
    with_value = {"-n", "--id", "--timeout"};
  } else if (verb == "counter" && (action == "incr" || action == "get")) {
    out.kind = action == "incr" ? Kind::kCounterIncr : Kind::kCounterGet;
    if (action == "incr") with_value = {"--by"};
  } else if (verb == "members") {
    out.kind = Kind::kMembers;
    with_value = {"--join", "--data"};
    flags = {"--watch"};
  } else if (verb == "queue" && (action == "put" || action == "take")) {
    out.kind = action == "put" ? Kind::kQueuePut : Kind::kQueueTake;
    if (action == "put") positionals = 2;
    if (action == "take") with_value = {"--timeout"};
  } else if (verb == "settings" && (action == "apply" || action == "wait")) {
    out.kind = action == "apply" ? Kind::kConfigApply : Kind::kConfigWait;
    if (action == "apply") positionals = 2;
    if (action == "wait") with_value = {"--timeout"};
  } else {
    return UsageError{verb + ": unknown action '" + action + "'"};
  }
  auto split_words = split_verb_words(name, words, first, {with_value, flags});
  if (auto* e = std::get_if<UsageError>(&split_words)) return *e;
  VerbWords& w = std::get<VerbWords>(split_words);
  if (w.positionals.empty()) return UsageError{name + ": PATH is required"};
  if (w.positionals.size() < positionals) {
    return UsageError{name + ": " + (out.kind == Kind::kQueuePut ? "DATA" : "FILE") +
                      " is required"};
  }
  if (w.positionals.size() > positionals) {
    return UsageError{name + ": unexpected argument '" + w.positionals[positionals] + "'"};
  }
  out.path = w.positionals[0];
  for (const auto& [option, value] : w.options) {
    if (option == "-n") {
      auto n = parse_int_in(value, 1, 1000000);
      if (!n) return UsageError{name + ": -n needs a member count >= 1, not '" + value + "'"};
      out.members = static_cast<int>(*n);
    } else if (option == "--timeout") {
      out.timeout_ms = parse_timeout_ms(value);
      if (!out.timeout_ms) return UsageError{name + ": --timeout needs milliseconds"};
    } else if (option == "--by") {
      auto by = parse_int_in(value, INT64_MIN, INT64_MAX);
      if (!by) return UsageError{name + ": --by needs an integer, not '" + value + "'"};
      out.by = *by;
    } else if (option == "--id" || option == "--join") {
      if (value.empty() || value.find('/') != std::string::npos || value == "ready") {
        return UsageError{name + ": " + option + " needs a node name"};
      }
      out.id = value;
    } else if (option == "--data") {
      out.data = data_argument_from_word(value);
    }
  }
  out.watch = has_flag(w, "--watch");
  if (out.kind == Kind::kBarrierEnter && out.members == 0) {
    return UsageError{name + ": -n N is required"};
  }
  if (out.kind == Kind::kMembers && out.id.empty() && w.options.contains("--data")) {
    return UsageError{name + ": --data needs --join"};
  }
  if ((out.kind == Kind::kBarrierEnter || out.kind == Kind::kBarrierLeave) && out.id.empty()) {
    out.id = default_member_id();
  }
  if (out.kind == Kind::kQueuePut) out.data = data_argument_from_word(w.positionals[1]);
  if (out.kind == Kind::kConfigApply) {
    auto config = read_config_file(w.positionals[1]);
    if (auto* e = std::get_if<UsageError>(&config)) return *e;
    out.config = std::get<std::map<std::string, std::string>>(std::move(config));
  }
  return out;
}

const char* verb_name(Kind kind) {
  switch (kind) {
    case Kind::kBarrierEnter:
    case Kind::kBarrierLeave:
      return "barrier";
    case Kind::kCounterIncr:
    case Kind::kCounterGet:
      return "counter";
    case Kind::kMembers:
      return "members";
    case Kind::kQueuePut:
    case Kind::kQueueTake:
      return "queue";
    case Kind::kConfigApply:
    case Kind::kConfigWait:
      return "settings";
  }
  return "";
}

// Prints the failure for `error` and returns its exit code.
int fail(Printer& printer, const CoordinationVerb& verb, Error error) {
  CommandFailure f = failure_from_zk(error, verb.path);
  f.command = verb_name(verb.kind);
  if (error == Error::kOperationTimeout && verb.timeout_ms) {
    f.exit_code = ExitCode::kWatchTimeout;
    f.name = "TIMEOUT";
    f.message = "nothing happened within " + std::to_string(*verb.timeout_ms) + " ms";
  }
  printer.print(f, "zkctl");
  return to_int(f.exit_code);
}

void write_text(JsonWriter& w, const char* key, const std::string& data) {
  if (is_valid_utf8(data)) {
    w.key(key).string(data);
  } else {
    w.key((std::string(key) + "_base64").c_str()).string(base64_encode(data));
  }
}

// Prints one result: `human` as is, or the JSON object `json` fills.
template <typename Json>
void emit(Printer& printer, const std::string& human, Json json) {
  if (printer.mode() == OutputMode::kJson) {
    JsonWriter w;
    w.begin_object().key("format").number(kJsonFormat);
    json(w);
    w.end_object();
    std::cout << w.str() << "\n";
  } else {
    std::cout << human;
  }
  std::cout.flush();
}

std::optional<std::chrono::milliseconds> timeout_of(const CoordinationVerb& verb) {
  if (!verb.timeout_ms) return std::nullopt;
  return std::chrono::milliseconds(*verb.timeout_ms);
}

int run_barrier(const CoordinationVerb& verb, zk::client::SyncClient& zk, Printer& printer) {
  zk::recipes::DoubleBarrierOptions options;
  options.member_name = verb.id;
  options.persistent = true;
  zk::recipes::DoubleBarrier barrier(zk, verb.path, std::max(verb.members, 1), options);
  const bool enter = verb.kind == Kind::kBarrierEnter;
  Status done = enter ? barrier.enter(timeout_of(verb)) : barrier.leave(timeout_of(verb));
  if (!done.ok()) return fail(printer, verb, done.error());
  emit(printer, "", [&](JsonWriter& w) {
    w.key("event").string(enter ? "entered" : "left");
    w.key("path").string(verb.path);
    w.key("member").string(verb.id);
  });
  return 0;
}

int run_counter(const CoordinationVerb& verb, zk::client::SyncClient& zk, Printer& printer) {
  auto value = verb.kind == Kind::kCounterIncr ? zk::recipes::add_to_counter(zk, verb.path, verb.by)
                                               : zk::recipes::read_counter(zk, verb.path);
  if (!value.ok()) return fail(printer, verb, value.error());
  emit(printer, std::to_string(*value) + "\n", [&](JsonWriter& w) {
    w.key("path").string(verb.path);
    w.key("value").number(*value);
  });
  return 0;
}

void print_members(Printer& printer, const CoordinationVerb& verb,
                   const std::vector<zk::recipes::GroupMember>& members) {
  std::string human;
  for (const auto& m : members) human += m.name + "\n";
  if (verb.watch) human += "\n";
  emit(printer, human, [&](JsonWriter& w) {
    w.key("path").string(verb.path);
    w.key("members").begin_array();
    for (const auto& m : members) {
      w.begin_object();
      w.key("name").string(m.name);
      write_text(w, "data", m.data);
      w.end_object();
    }
    w.end_array();
  });
}

int run_members(const CoordinationVerb& verb, zk::client::SyncClient& zk, Printer& printer) {
  std::optional<SignalPipe> signals;
  if (!verb.id.empty() || verb.watch) signals.emplace();
  if (!verb.id.empty()) {
    auto data = resolve_data(verb.data);
    if (auto* f = std::get_if<CommandFailure>(&data)) {
      printer.print(*f, "zkctl");
      return to_int(f->exit_code);
    }
    Status joined = zk::recipes::join_group(zk, verb.path, verb.id, std::get<std::string>(data));
    if (!joined.ok()) return fail(printer, verb, joined.error());
  }
  auto members = zk::recipes::list_members(zk, verb.path);
  if (!members.ok()) return fail(printer, verb, members.error());
  print_members(printer, verb, *members);
  if (!signals) return 0;
  // Stay (a member, or watching) until a signal; when watching, look at the
  // signal pipe between bounded waits for a change.
  constexpr std::chrono::milliseconds kSignalCheck{200};
  if (!verb.watch) {
    (void)signals->next(std::nullopt);
    return 0;
  }
  for (;;) {
    if (signals->next(std::chrono::milliseconds(0))) return 0;
    std::vector<std::string> known;
    for (const auto& m : *members) known.push_back(m.name);
    auto changed = zk::recipes::await_membership_change(zk, verb.path, known, kSignalCheck);
    if (changed.ok()) {
      members = std::move(changed);
      print_members(printer, verb, *members);
    } else if (changed.error() != Error::kOperationTimeout) {
      return fail(printer, verb, changed.error());
    }
  }
}

int run_queue(const CoordinationVerb& verb, zk::client::SyncClient& zk, Printer& printer) {
  if (verb.kind == Kind::kQueuePut) {
    auto data = resolve_data(verb.data);
    if (auto* f = std::get_if<CommandFailure>(&data)) {
      printer.print(*f, "zkctl");
      return to_int(f->exit_code);
    }
    auto node = zk::recipes::queue_put(zk, verb.path, std::get<std::string>(data));
    if (!node.ok()) return fail(printer, verb, node.error());
    emit(printer, *node + "\n", [&](JsonWriter& w) { w.key("path").string(*node); });
    return 0;
  }
  auto item = zk::recipes::queue_take(zk, verb.path, timeout_of(verb));
  if (!item.ok()) return fail(printer, verb, item.error());
  for (const std::string& data : item->items) {
    emit(printer, data + "\n", [&](JsonWriter& w) {
      w.key("path").string(item->path);
      write_text(w, "data", data);
    });
  }
  return 0;
}

int run_config(const CoordinationVerb& verb, zk::client::SyncClient& zk, Printer& printer) {
  if (verb.kind == Kind::kConfigApply) {
    auto version = zk::recipes::apply_config(zk, verb.path, verb.config);
    if (!version.ok()) return fail(printer, verb, version.error());
    emit(printer, "", [&](JsonWriter& w) {
      w.key("path").string(verb.path);
      w.key("version").number(*version);
    });
    return 0;
  }
  auto snapshot = zk::recipes::read_config(zk, verb.path, timeout_of(verb));
  if (!snapshot.ok()) return fail(printer, verb, snapshot.error());
  std::string human;
  for (const auto& [key, value] : snapshot->values) human += key + "=" + value + "\n";
  emit(printer, human, [&](JsonWriter& w) {
    w.key("path").string(verb.path);
    w.key("version").number(snapshot->version);
    w.key("config").begin_object();
    for (const auto& [key, value] : snapshot->values) write_text(w, key.c_str(), value);
    w.end_object();
  });
  return 0;
}

}  // namespace

bool is_coordination_verb(const std::vector<std::string>& words) {
  if (words.empty()) return false;
  const std::string& w = words.front();
  return w == "barrier" || w == "counter" || w == "members" || w == "queue" || w == "settings";
}

std::variant<CoordinationVerb, UsageError> parse_coordination_verb(
    const std::vector<std::string>& words) {
  if (!is_coordination_verb(words)) return UsageError{"not a coordination verb"};
  return parse_words(words);
}

int run_coordination_verb(const CoordinationVerb& verb, zk::client::SyncClient& zk,
                          Printer& printer) {
  switch (verb.kind) {
    case Kind::kBarrierEnter:
    case Kind::kBarrierLeave:
      return run_barrier(verb, zk, printer);
    case Kind::kCounterIncr:
    case Kind::kCounterGet:
      return run_counter(verb, zk, printer);
    case Kind::kMembers:
      return run_members(verb, zk, printer);
    case Kind::kQueuePut:
    case Kind::kQueueTake:
      return run_queue(verb, zk, printer);
    case Kind::kConfigApply:
    case Kind::kConfigWait:
      return run_config(verb, zk, printer);
  }
  return 1;
}

std::string coordination_verbs_help_text() {
  return "Coordination verbs (zk::recipes; one-shot only):\n"
         "  barrier enter PATH -n N [--id NAME] [--timeout MS]\n"
         "                                 double barrier: join, wait until N joined\n"
         "  barrier leave PATH [-n N] [--id NAME] [--timeout MS]\n"
         "                                 leave, wait until all left (NAME default:\n"
         "                                 HOST-PPID, same for one shell script)\n"
         "  counter incr PATH [--by K]     add K (default 1), print the new value\n"
         "  counter get PATH               print the counter's value\n"
         "  members PATH [--join NAME [--data DATA]] [--watch]\n"
         "                                 list the group; --join: stay a member\n"
         "                                 until SIGINT/SIGTERM; --watch: print the\n"
         "                                 list after each change\n"
         "  queue put PATH DATA            append an item, print its node\n"
         "  queue take PATH [--timeout MS] take the head item, waiting while empty\n"
         "  settings apply PATH FILE       write FILE's key=value lines behind the\n"
         "                                 ready znode (zkCli's `config` is the\n"
         "                                 ensemble's membership)\n"
         "  settings wait PATH [--timeout MS]\n"
         "                                 wait for a complete configuration, print\n"
         "                                 it as key=value lines\n";
}

}  // namespace zkctl

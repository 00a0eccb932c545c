// SPDX-License-Identifier: Apache-2.0
#include "zkctl/zk_command_runner.h"

#include <algorithm>
#include <chrono>

#include "zkctl/data_argument.h"

namespace zkctl {

using std::chrono::milliseconds;
using zk::wire::Error;

namespace {

using Outcome = std::optional<CommandFailure>;

class Execution {
 public:
  Execution(zk::client::SyncClient& client, const ResultSink& sink)
      : client_(client), sink_(sink) {}

  Outcome operator()(const CreateCommand& c) {
    zk::wire::Buffer buffer;  // null unless DATA was given
    if (c.data) {
      auto data = resolve_data(*c.data);
      if (auto* f = std::get_if<CommandFailure>(&data)) return *f;
      buffer = std::get<std::string>(std::move(data));
    }
    zk::wire::CreateMode mode = zk::wire::CreateMode::kPersistent;
    if (c.ephemeral && c.sequential) {
      mode = zk::wire::CreateMode::kEphemeralSequential;
    } else if (c.ephemeral) {
      mode = zk::wire::CreateMode::kEphemeral;
    } else if (c.sequential) {
      mode = zk::wire::CreateMode::kPersistentSequential;
    }
    auto created = client_.create(c.path, buffer, mode);
    if (!created) return failure_from_zk(created.error(), c.path);
    sink_(CreatedResult{*created});
    return std::nullopt;
  }

  Outcome operator()(const GetCommand& c) {
    auto node = client_.get_data(c.path);
    if (!node) return failure_from_zk(node.error(), c.path);
    DataResult r{c.path, node->data.value_or(std::string()), std::nullopt, !node->data.has_value()};
    if (c.with_stat) r.stat = node->stat;
    sink_(r);
    return std::nullopt;
  }

  Outcome operator()(const SetCommand& c) {
    auto data = resolve_data(c.data);
    if (auto* f = std::get_if<CommandFailure>(&data)) return *f;
    auto stat = client_.set_data(c.path, std::get<std::string>(std::move(data)), c.version);
    if (!stat) return failure_from_zk(stat.error(), c.path);
    sink_(SetResult{c.path, *stat, c.with_stat});
    return std::nullopt;
  }

  Outcome operator()(const LsCommand& c) {
    auto children = client_.get_children2(c.path);
    if (!children) return failure_from_zk(children.error(), c.path);
    ChildrenResult r{c.path, std::move(children->names), std::nullopt};
    std::sort(r.children.begin(), r.children.end());
    if (c.with_stat) r.stat = children->stat;
    sink_(r);
    return std::nullopt;
  }

  Outcome operator()(const StatCommand& c) {
    auto stat = client_.exists(c.path);
    if (!stat) return failure_from_zk(stat.error(), c.path);
    if (!stat->has_value()) return failure_from_zk(Error::kNoNode, c.path);
    sink_(StatResult{c.path, **stat});
    return std::nullopt;
  }

  Outcome operator()(const ExistsCommand& c) {
    auto stat = client_.exists(c.path);
    if (!stat) return failure_from_zk(stat.error(), c.path);
    sink_(ExistsResult{c.path, stat->has_value()});
    return std::nullopt;
  }

  Outcome operator()(const DeleteCommand& c) {
    auto status = client_.remove(c.path, c.version);
    if (!status) return failure_from_zk(status.error(), c.path);
    sink_(DeletedResult{c.path, 1});
    return std::nullopt;
  }

  Outcome operator()(const DeleteAllCommand& c) {
    int64_t count = 0;
    if (auto failure = delete_subtree(c.path, count)) return failure;
    sink_(DeletedResult{c.path, count});
    return std::nullopt;
  }

  Outcome operator()(const WatchCommand& c) {
    if (c.persistent) {
      drain_events();
      auto status = client_.add_watch(c.path, *c.persistent);
      if (!status) return failure_from_zk(status.error(), c.path);
    }
    for (int i = 0; c.count == 0 || i < c.count; ++i) {
      if (!c.persistent) {
        if (auto failure = arm(c)) return failure;
      }
      auto event = wait_event(c);
      if (!event) {
        CommandFailure f;
        f.exit_code = ExitCode::kWatchTimeout;
        f.name = "WATCH_TIMEOUT";
        f.path = c.path;
        f.message = "no event within " + std::to_string(*c.timeout_ms) + " ms";
        return f;
      }
      if (event->type == zk::wire::EventType::kNone) {
        // The session ended before the watch triggered.
        return failure_from_zk(event->state == zk::wire::KeeperState::kExpired
                                   ? Error::kSessionExpired
                                   : Error::kConnectionLoss,
                               c.path);
      }
      sink_(WatchEventResult{event->type, event->path});
    }
    return std::nullopt;
  }

  Outcome operator()(const RemoveWatchesCommand& c) {
    auto status = client_.remove_watches(c.path, c.type, c.local);
    if (!status) return failure_from_zk(status.error(), c.path);
    drain_events();  // the removed watches' own *WatchRemoved events
    sink_(WatchesRemovedResult{c.path});
    return std::nullopt;
  }

  Outcome operator()(const SyncCommand& c) {
    auto status = client_.sync(c.path);
    if (!status) return failure_from_zk(status.error(), c.path);
    sink_(SyncedResult{c.path});
    return std::nullopt;
  }

  Outcome operator()(const AddAuthCommand& c) {
    auto status = client_.add_auth(c.scheme, c.auth);
    if (!status) return failure_from_zk(status.error(), {});
    sink_(AuthAddedResult{c.scheme});
    return std::nullopt;
  }

  Outcome operator()(const GetAclCommand& c) {
    auto acl = client_.get_acl(c.path);
    if (!acl) return failure_from_zk(acl.error(), c.path);
    AclResult r{c.path, std::move(acl->acl), std::nullopt};
    if (c.with_stat) r.stat = acl->stat;
    sink_(r);
    return std::nullopt;
  }

  Outcome operator()(const SetAclCommand& c) {
    auto stat = client_.set_acl(c.path, c.acl, c.version);
    if (!stat) return failure_from_zk(stat.error(), c.path);
    sink_(SetResult{c.path, *stat, c.with_stat});
    return std::nullopt;
  }

 private:
  // Deletes `path` and everything below it, children first.
  Outcome delete_subtree(const std::string& path, int64_t& count) {
    auto children = client_.get_children(path);
    if (!children) {
      if (children.error() == Error::kNoNode && count > 0) return std::nullopt;  // raced away
      return failure_from_zk(children.error(), path);
    }
    const std::string prefix = path == "/" ? "/" : path + "/";
    for (const auto& name : *children) {
      if (path == "/" && name == "zookeeper") continue;  // system subtree, not deletable
      if (auto failure = delete_subtree(prefix + name, count)) return failure;
    }
    if (path == "/") return std::nullopt;  // the root itself cannot be deleted
    auto status = client_.remove(path);
    if (!status) {
      if (status.error() == Error::kNoNode && count > 0) return std::nullopt;
      return failure_from_zk(status.error(), path);
    }
    ++count;
    return std::nullopt;
  }

  // Events still queued come from watches of earlier commands in this
  // session (e.g. one that timed out and fired later); they are not ours.
  void drain_events() {
    while (client_.next_watch_event(milliseconds(0))) {
    }
  }

  Outcome arm(const WatchCommand& c) {
    drain_events();
    switch (c.kind) {
      case WatchKind::kData: {
        auto r = client_.get_data(c.path, true);
        if (!r) return failure_from_zk(r.error(), c.path);
        return std::nullopt;
      }
      case WatchKind::kChildren: {
        auto r = client_.get_children(c.path, true);
        if (!r) return failure_from_zk(r.error(), c.path);
        return std::nullopt;
      }
      case WatchKind::kExists: {
        auto r = client_.exists(c.path, true);
        if (!r) return failure_from_zk(r.error(), c.path);
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  // The next event on the watched path (or below it, for a recursive
  // watch); nullopt when the per-event timeout ran out. Events for other
  // paths (left over from earlier commands) are skipped; session-end events (type kNone) are always
  // returned.
  std::optional<zk::client::WatchedEvent> wait_event(const WatchCommand& c) {
    using Clock = std::chrono::steady_clock;
    const auto deadline =
        c.timeout_ms ? std::optional(Clock::now() + milliseconds(*c.timeout_ms)) : std::nullopt;
    for (;;) {
      milliseconds wait = std::chrono::hours(1);
      if (deadline) {
        wait = std::chrono::duration_cast<milliseconds>(*deadline - Clock::now());
        if (wait.count() < 0) return std::nullopt;
      }
      auto event = client_.next_watch_event(wait);
      if (!event) {
        if (deadline) return std::nullopt;
        continue;
      }
      if (event->type == zk::wire::EventType::kNone || event->path == c.path) return event;
      const bool recursive = c.persistent == zk::wire::AddWatchMode::kPersistentRecursive;
      if (recursive && (c.path == "/" || event->path.starts_with(c.path + "/"))) return event;
    }
  }

  zk::client::SyncClient& client_;
  const ResultSink& sink_;
};

}  // namespace

std::optional<CommandFailure> ZkCommandRunner::run(const Command& command, const ResultSink& sink) {
  Execution execution(client_, sink);
  Outcome outcome = std::visit(execution, command);
  if (outcome) {
    outcome->command = command_name(command);
    if (outcome->path.empty() && outcome->zk_error) outcome->path = command_path(command);
  }
  return outcome;
}

}  // namespace zkctl

// SPDX-License-Identifier: Apache-2.0
#include "zkctl/zk_command_runner.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "zkctl/config_text.h"
#include "zkctl/data_argument.h"
#include "zkctl/quota_requests.h"

namespace zkctl {

using std::chrono::milliseconds;
using zk::wire::Error;

namespace {

// The node zkCli's `config` reads.
constexpr std::string_view kConfigNode = "/zookeeper/config";

using Outcome = std::optional<CommandFailure>;

using zk::wire::CreateMode;

CreateMode create_mode(const CreateCommand& c) {
  if (c.container) return CreateMode::kContainer;
  if (c.ttl_ms) {
    return c.sequential ? CreateMode::kPersistentSequentialWithTTL : CreateMode::kPersistentWithTTL;
  }
  if (c.ephemeral) return c.sequential ? CreateMode::kEphemeralSequential : CreateMode::kEphemeral;
  return c.sequential ? CreateMode::kPersistentSequential : CreateMode::kPersistent;
}

std::string child_path(const std::string& parent, const std::string& name) {
  return parent == "/" ? "/" + name : parent + "/" + name;
}

class Execution {
 public:
  Execution(zk::client::SyncClient& client, const ResultSink& sink,
            const std::shared_ptr<FiredWatches>& fired)
      : client_(client), sink_(sink), fired_(fired) {}

  Outcome operator()(const CreateCommand& c) {
    zk::wire::Buffer buffer;  // null unless DATA was given
    if (c.data) {
      auto data = resolve_data(*c.data);
      if (auto* f = std::get_if<CommandFailure>(&data)) return *f;
      buffer = std::get<std::string>(std::move(data));
    }
    const zk::wire::ACLs acl = c.acl.value_or(zk::wire::open_acl_unsafe());
    const CreateMode mode = create_mode(c);
    if (c.ttl_ms) {
      auto created = client_.create_ttl(c.path, buffer, mode, *c.ttl_ms, acl);
      if (!created) return failure_from_zk(created.error(), c.path);
      sink_(CreatedResult{created->path});
      return std::nullopt;
    }
    auto created = client_.create(c.path, buffer, mode, acl);
    if (!created) return failure_from_zk(created.error(), c.path);
    sink_(CreatedResult{*created});
    return std::nullopt;
  }

  Outcome operator()(const GetCommand& c) {
    auto node = c.watch ? client_.get_data(c.path, collector()) : client_.get_data(c.path);
    if (!node) return failure_from_zk(node.error(), c.path);
    DataResult r{c.path, node->data.value_or(std::string()), std::nullopt, !node->data.has_value(),
                 c.output};
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
    if (c.recursive) {
      std::vector<std::string> paths;
      if (auto failure = walk(c.path, [&](const std::string& path) {
            paths.push_back(path);
            return Outcome();
          })) {
        return failure;
      }
      sink_(TreeResult{c.path, std::move(paths)});
      return std::nullopt;
    }
    auto children =
        c.watch ? client_.get_children2(c.path, collector()) : client_.get_children2(c.path);
    if (!children) return failure_from_zk(children.error(), c.path);
    ChildrenResult r{c.path, std::move(children->names), std::nullopt};
    std::sort(r.children.begin(), r.children.end());
    if (c.with_stat) r.stat = children->stat;
    sink_(r);
    return std::nullopt;
  }

  Outcome operator()(const StatCommand& c) {
    auto stat = c.watch ? client_.exists(c.path, collector()) : client_.exists(c.path);
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
    if (c.batch > 0) {
      if (auto failure = delete_in_batches(c.path, c.batch, count)) return failure;
    } else if (auto failure = delete_subtree(c.path, count)) {
      return failure;
    }
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
    if (c.recursive) {
      if (auto failure = walk(c.path, [&](const std::string& path) -> Outcome {
            if (path == c.path) return std::nullopt;
            auto set = client_.set_acl(path, c.acl, c.version);
            if (!set && set.error() != Error::kNoNode) return failure_from_zk(set.error(), path);
            return std::nullopt;
          })) {
        return failure;
      }
    }
    sink_(SetResult{c.path, *stat, c.with_stat});
    return std::nullopt;
  }

  Outcome operator()(const AddWatchCommand& c) {
    auto status = client_.add_watch(c.path, c.mode, collector());
    if (!status) return failure_from_zk(status.error(), c.path);
    sink_(DoneResult{"addWatch", c.path});
    return std::nullopt;
  }

  Outcome operator()(const WhoAmICommand&) {
    auto ids = client_.who_am_i();
    if (!ids) return failure_from_zk(ids.error(), {});
    sink_(WhoAmIResult{std::move(*ids)});
    return std::nullopt;
  }

  Outcome operator()(const GetEphemeralsCommand& c) {
    auto paths = client_.get_ephemerals(c.path);
    if (!paths) return failure_from_zk(paths.error(), c.path);
    std::sort(paths->begin(), paths->end());
    sink_(EphemeralsResult{c.path, std::move(*paths)});
    return std::nullopt;
  }

  Outcome operator()(const GetAllChildrenNumberCommand& c) {
    auto count = client_.get_all_children_number(c.path);
    if (!count) return failure_from_zk(count.error(), c.path);
    sink_(ChildCountResult{c.path, *count});
    return std::nullopt;
  }

  Outcome operator()(const SetQuotaCommand& c) { return deliver(set_quota(client_, c)); }
  Outcome operator()(const ListQuotaCommand& c) { return deliver(list_quota(client_, c)); }
  Outcome operator()(const DelQuotaCommand& c) { return deliver(del_quota(client_, c)); }

  Outcome operator()(const ConfigCommand& c) {
    const std::string path(kConfigNode);
    auto node = c.watch ? client_.get_data(path, collector()) : client_.get_data(path);
    if (!node) return failure_from_zk(node.error(), path);
    const std::string text = node->data.value_or(std::string());
    ConfigResult r{c.client_only ? client_config_text(text) : text, std::nullopt};
    if (c.with_stat) r.stat = node->stat;
    sink_(r);
    return std::nullopt;
  }

  Outcome operator()(const ReconfigCommand& c) {
    zk::wire::ReconfigRequest request;
    request.joining = c.joining;
    request.leaving = c.leaving;
    request.new_members = c.members;
    request.from_config = c.from_config;
    auto node = client_.reconfig(request);
    if (!node) return failure_from_zk(node.error(), {});
    ConfigResult r{node->data.value_or(std::string()), std::nullopt};
    if (c.with_stat) r.stat = node->stat;
    sink_(r);
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

  template <typename Result>
  Outcome deliver(std::variant<Result, CommandFailure> outcome) {
    if (auto* f = std::get_if<CommandFailure>(&outcome)) return *f;
    sink_(std::get<Result>(std::move(outcome)));
    return std::nullopt;
  }

  // A watch callback that keeps the event for take_fired_watches(); the
  // session's end (type None) is not an event of the node.
  zk::client::WatchCallback collector() {
    return [fired = fired_](const zk::client::WatchedEvent& e) {
      if (e.type != zk::wire::EventType::kNone) fired->add({e.type, e.state, e.path});
    };
  }

  // Calls `visit` on `root` and then every descendant, breadth first (zkCli's
  // ZKUtil.listSubTreeBFS); a node that vanishes meanwhile is skipped.
  template <typename Visit>
  Outcome walk(const std::string& root, Visit visit) {
    std::vector<std::string> queue{root};
    for (size_t next = 0; next < queue.size(); ++next) {
      const std::string path = queue[next];
      auto children = client_.get_children(path);
      if (!children) {
        if (children.error() == Error::kNoNode && next > 0) continue;
        return failure_from_zk(children.error(), path);
      }
      if (auto failure = visit(path)) return failure;
      std::sort(children->begin(), children->end());
      for (const auto& name : *children) queue.push_back(child_path(path, name));
    }
    return std::nullopt;
  }

  // deleteall -b: the subtree, deepest first, in multis of up to `batch` deletes.
  Outcome delete_in_batches(const std::string& root, int batch, int64_t& count) {
    std::vector<std::string> paths;
    if (auto failure = walk(root, [&](const std::string& path) {
          if (!(root == "/" && (path == "/" || path.starts_with("/zookeeper")))) {
            paths.push_back(path);
          }
          return Outcome();
        })) {
      return failure;
    }
    for (size_t end = paths.size(); end > 0;) {
      const size_t begin = end > static_cast<size_t>(batch) ? end - batch : 0;
      std::vector<zk::wire::MultiOp> ops;
      for (size_t i = end; i > begin; --i) {
        ops.push_back(zk::wire::multi_remove(paths[i - 1]));
      }
      auto results = client_.multi(ops);
      if (!results) return failure_from_zk(results.error(), paths[end - 1]);
      // A failed multi marks the failing op with its error, the others with
      // kRuntimeInconsistency (or kOk before it).
      for (size_t i = 0; i < results->size(); ++i) {
        const Error err = (*results)[i].err;
        if (err != Error::kOk && err != Error::kRuntimeInconsistency) {
          return failure_from_zk(err, paths[end - 1 - i]);
        }
      }
      count += static_cast<int64_t>(ops.size());
      end = begin;
    }
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
  const std::shared_ptr<FiredWatches>& fired_;
};

}  // namespace

void FiredWatches::add(FiredWatchResult event) {
  std::lock_guard lock(mu_);
  events_.push_back(std::move(event));
  if (wake_) wake_();
}

void FiredWatches::set_wake(std::function<void()> wake) {
  std::lock_guard lock(mu_);
  wake_ = std::move(wake);
}

std::vector<FiredWatchResult> FiredWatches::take() {
  std::lock_guard lock(mu_);
  return std::exchange(events_, {});
}

std::optional<CommandFailure> ZkCommandRunner::run(const Command& command, const ResultSink& sink) {
  zk::client::SyncClient* client = session_.client();
  if (client == nullptr) {
    CommandFailure f = not_connected_failure();
    f.command = command_name(command);
    return f;
  }
  Execution execution(*client, sink, fired_);
  Outcome outcome = std::visit(execution, command);
  if (outcome) {
    outcome->command = command_name(command);
    if (outcome->path.empty() && outcome->zk_error) outcome->path = command_path(command);
  }
  return outcome;
}

}  // namespace zkctl

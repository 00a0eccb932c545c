// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/database.h"

#include <algorithm>

#include "zkd/tree/applier.h"
#include "zkd/tree/container_sweep.h"
#include "zkd/tree/data_tree.h"
#include "zkd/tree/pending_changes.h"
#include "zkd/tree/preprocessor.h"
#include "zkd/tree/read_processor.h"
#include "zkd/tree/session_table.h"
#include "zkd/tree/set_watches.h"
#include "zkd/tree/snapshot.h"
#include "zkd/tree/watch_manager.h"

namespace zkd::tree {

// Lives on the heap, so the processors' (and snapshot cursors') references
// stay valid when the Database moves. load_snapshot() assigns new contents to
// these members; it never replaces them.
struct Database::Impl {
  explicit Impl(DatabaseOptions options)
      : tree(options.extended_types),
        quota{options.enforce_quota, std::move(options.quota_warning)},
        config_node(std::move(options.config_node)) {
    set_config_node();
  }

  DataTree tree;
  SessionTable sessions;
  WatchManager watches;
  PendingChanges pending;
  int64_t last_zxid = 0;
  int64_t fuzzy_until = 0;  // the last loaded snapshot's `walked`
  std::deque<ZxidDigest> digest_log;
  QuotaPolicy quota;
  Preprocessor preprocessor{tree, sessions, pending, &quota};
  Applier applier{tree, sessions, watches};
  ReadProcessor reads{tree, watches};
  std::optional<DatabaseOptions::ConfigNode> config_node;

  void set_config_node() {
    if (!config_node) return;
    const Node* current = tree.find("/zookeeper/config");
    if (current != nullptr && current->stat().mzxid > config_node->version) return;
    tree.set_data("/zookeeper/config", config_node->data, -1, config_node->version,
                  config_node->time_ms);
  }

  // A txn just prepared: its effects are pending until applied.
  Txn pending_txn(Txn txn) {
    pending.add(txn, tree);
    return txn;
  }
};

Database::Database() : Database(DatabaseOptions{}) {}
Database::Database(DatabaseOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Database::~Database() = default;
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;

int64_t Database::last_zxid() const { return impl_->last_zxid; }

int64_t Database::fuzzy_until() const { return impl_->fuzzy_until; }

Response Database::read(WatcherId watcher, zk::wire::OpCode op, std::string_view body,
                        const AuthIds& caller) {
  return impl_->reads.read(watcher, op, body, impl_->last_zxid, caller);
}

Txn Database::prepare(SessionId session, int32_t xid, zk::wire::OpCode op, std::string_view body,
                      int64_t zxid, int64_t time_ms, const AuthIds& caller) {
  return impl_->pending_txn(
      impl_->preprocessor.write(session, caller, xid, op, body, zxid, time_ms));
}

Txn Database::prepare_create_session(SessionId session, int32_t timeout_ms, int64_t zxid,
                                     int64_t time_ms) {
  return impl_->pending_txn(impl_->preprocessor.create_session(session, timeout_ms, zxid, time_ms));
}

Txn Database::prepare_close_session(SessionId session, int32_t xid, int64_t zxid, int64_t time_ms) {
  return impl_->pending_txn(impl_->preprocessor.close_session(session, xid, zxid, time_ms));
}

Txn Database::prepare_reconfig(SessionId session, int32_t xid, std::string config, int64_t zxid,
                               int64_t time_ms, const AuthIds& caller) {
  return impl_->pending_txn(
      impl_->preprocessor.reconfig(session, caller, xid, std::move(config), zxid, time_ms));
}

void Database::set_config_node(DatabaseOptions::ConfigNode node) {
  impl_->config_node = std::move(node);
  impl_->set_config_node();
}

std::pair<std::string, int64_t> Database::config_node() const {
  const Node* node = impl_->tree.find("/zookeeper/config");
  if (node == nullptr) return {};
  const DataView data = node->data();
  return {data ? std::string(*data) : std::string(), node->stat().mzxid};
}

ApplyResult Database::apply(const Txn& txn) {
  ApplyResult result = impl_->applier.apply(txn);
  impl_->pending.applied(txn.header.zxid);
  impl_->last_zxid = std::max(impl_->last_zxid, txn.header.zxid);
  if (txn.header.zxid % kDigestLogInterval == 0) {
    impl_->digest_log.push_back({txn.header.zxid, impl_->tree.digest()});
    if (impl_->digest_log.size() > kDigestLogLimit) impl_->digest_log.pop_front();
  }
  return result;
}

const std::deque<Database::ZxidDigest>& Database::digest_log() const { return impl_->digest_log; }

void Database::discard_pending() { impl_->pending.clear(); }

std::unique_ptr<Database::SnapshotCursor> Database::begin_snapshot() const {
  return start_snapshot(impl_->tree, impl_->sessions, impl_->last_zxid, &impl_->last_zxid);
}

Status Database::load_snapshot(std::string_view payload) {
  auto loaded = read_snapshot(payload, impl_->tree.extended_types());
  if (!loaded.ok()) return loaded.status();
  load(std::move(*loaded));
  return {};
}

void Database::load(LoadedSnapshot&& state) {
  impl_->tree = std::move(state.tree);
  impl_->sessions = std::move(state.sessions);
  impl_->watches = WatchManager();
  impl_->pending.clear();
  impl_->digest_log.clear();
  impl_->last_zxid = state.zxid;
  impl_->fuzzy_until = std::max(state.walked, state.zxid);
  impl_->set_config_node();
}

const DataTree& Database::tree() const { return impl_->tree; }
const SessionTable& Database::session_table() const { return impl_->sessions; }

Status Database::visit_snapshot(std::string_view payload, SnapshotVisitor& visitor) {
  auto loaded = read_snapshot(payload);
  if (!loaded.ok()) return loaded.status();
  for (SessionId id : loaded->sessions.ids()) {
    visitor.session(id, loaded->sessions.timeout(id).value_or(0));
  }
  // Pre-order, children by name, as the payload lists them.
  const DataTree& tree = loaded->tree;
  std::vector<std::string> stack{"/"};
  while (!stack.empty()) {
    std::string path = std::move(stack.back());
    stack.pop_back();
    const Node& node = *tree.find(path);
    visitor.node(path, node.data_buffer(), node.acl(), client_stat(node));
    for (auto child = node.children().rbegin(); child != node.children().rend(); ++child) {
      stack.emplace_back((*child)->path());
    }
  }
  return {};
}

bool Database::session_exists(SessionId session) const { return impl_->sessions.contains(session); }

std::optional<int32_t> Database::session_timeout(SessionId session) const {
  return impl_->sessions.timeout(session);
}

std::vector<SessionId> Database::sessions() const { return impl_->sessions.ids(); }

std::vector<std::string> Database::ephemerals(SessionId session) const {
  return impl_->tree.kinds().ephemerals(session);
}

std::vector<Notification> Database::set_watches(WatcherId watcher, const zk::wire::SetWatches& w) {
  return restore_watches(impl_->tree, impl_->watches, watcher, w);
}

void Database::remove_watcher(WatcherId watcher) { impl_->watches.remove_watcher(watcher); }

std::vector<std::string> Database::watched_paths(WatcherId watcher) const {
  return impl_->watches.data_table().paths_of(watcher);
}

std::vector<std::pair<std::string, std::vector<WatcherId>>> Database::watchers_by_path() const {
  return impl_->watches.data_table().by_path();
}

std::vector<std::string> Database::sweep_candidates(int64_t now_ms,
                                                    int64_t max_never_used_ms) const {
  return tree::sweep_candidates(impl_->tree, impl_->pending, now_ms, max_never_used_ms);
}

uint64_t Database::digest() const { return impl_->tree.digest(); }
uint64_t Database::compute_digest() const { return impl_->tree.compute_digest(); }

void Database::reserve_more_nodes(size_t more) {
  impl_->tree.reserve(static_cast<size_t>(impl_->tree.node_count()) + more);
}

Counts Database::counts() const {
  const Impl& s = *impl_;
  Counts c;
  c.znodes = s.tree.node_count();
  c.approximate_data_size = s.tree.approximate_data_size();
  c.ephemerals = s.tree.kinds().ephemeral_count();
  c.data_watches = static_cast<int64_t>(s.watches.data_table().size());
  c.child_watches = static_cast<int64_t>(s.watches.child_table().size());
  c.watched_paths = static_cast<int64_t>(s.watches.data_table().path_count());
  c.watching_connections = static_cast<int64_t>(s.watches.data_table().watcher_count());
  c.sessions = static_cast<int64_t>(s.sessions.size());
  return c;
}

}  // namespace zkd::tree

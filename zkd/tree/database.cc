#include "zkd/tree/database.h"

#include <algorithm>

#include "zkd/tree/applier.h"
#include "zkd/tree/data_tree.h"
#include "zkd/tree/preprocessor.h"
#include "zkd/tree/read_processor.h"
#include "zkd/tree/session_table.h"
#include "zkd/tree/set_watches.h"
#include "zkd/tree/watch_manager.h"

namespace zkd::tree {

// Lives on the heap, so the processors' references stay valid when the
// Database moves.
struct Database::Impl {
  DataTree tree;
  SessionTable sessions;
  WatchManager watches;
  int64_t last_zxid = 0;
  Preprocessor preprocessor{tree, sessions};
  Applier applier{tree, sessions, watches};
  ReadProcessor reads{tree, watches};
};

Database::Database() : impl_(std::make_unique<Impl>()) {}
Database::~Database() = default;
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;

int64_t Database::last_zxid() const { return impl_->last_zxid; }

Response Database::read(WatcherId watcher, zk::wire::OpCode op, std::string_view body) {
  return impl_->reads.read(watcher, op, body, impl_->last_zxid);
}

Txn Database::prepare(SessionId session, int32_t xid, zk::wire::OpCode op, std::string_view body,
                      int64_t zxid, int64_t time_ms) {
  return impl_->preprocessor.write(session, xid, op, body, zxid, time_ms);
}

Txn Database::prepare_create_session(SessionId session, int32_t timeout_ms, int64_t zxid,
                                     int64_t time_ms) {
  return impl_->preprocessor.create_session(session, timeout_ms, zxid, time_ms);
}

Txn Database::prepare_close_session(SessionId session, int64_t zxid, int64_t time_ms) {
  return impl_->preprocessor.close_session(session, 0, zxid, time_ms);
}

ApplyResult Database::apply(const Txn& txn) {
  ApplyResult result = impl_->applier.apply(txn);
  impl_->last_zxid = std::max(impl_->last_zxid, txn.header.zxid);
  return result;
}

bool Database::session_exists(SessionId session) const { return impl_->sessions.contains(session); }

std::optional<int32_t> Database::session_timeout(SessionId session) const {
  return impl_->sessions.timeout(session);
}

std::vector<SessionId> Database::sessions() const { return impl_->sessions.ids(); }

std::vector<std::string> Database::ephemerals(SessionId session) const {
  return impl_->tree.ephemerals(session);
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

Counts Database::counts() const {
  const Impl& s = *impl_;
  Counts c;
  c.znodes = s.tree.node_count();
  c.approximate_data_size = s.tree.approximate_data_size();
  c.ephemerals = s.tree.ephemeral_count();
  c.data_watches = static_cast<int64_t>(s.watches.data_table().size());
  c.child_watches = static_cast<int64_t>(s.watches.child_table().size());
  c.watched_paths = static_cast<int64_t>(s.watches.data_table().path_count());
  c.watching_connections = static_cast<int64_t>(s.watches.data_table().watcher_count());
  c.sessions = static_cast<int64_t>(s.sessions.size());
  return c;
}

}  // namespace zkd::tree

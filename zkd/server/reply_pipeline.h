// SPDX-License-Identifier: Apache-2.0
// The order in which a durable server answers, while writes wait for fsync
// (docs/design.md, "The way of a request"). Pure bookkeeping: no I/O, no clock.
//
// Two queues:
//   - the global FIFO of prepared writes, in zxid order, plus `sync` barriers
//     placed behind every write prepared before them (any session);
//   - per connection, the requests that must be answered in order: its own
//     writes and barriers (marks into the global FIFO) and the requests that
//     arrived behind them (deferred: reads, pings, setWatches, ...).
//
// The server asks busy(c) for each arriving request: when false it answers
// at once, else it defer()s it, except a write when only_marks(c). next(durable_zxid) then hands
// back, in the order to perform them, the writes that became durable (to apply and answer) and the
// barriers and deferred requests they released. A deferred request that the server processes may
// itself prepare a write or a barrier for its connection (a request pipelined behind the
// handshake): add_write() and add_barrier() then put the mark where that request stood, ahead of
// the requests deferred after it.
//
// Threading: one owner (the state thread). `Write` and `Read` are what the
// server needs to finish a write / answer a request; both must be movable.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <utility>
#include <variant>

namespace zkd::server {

template <typename Write, typename Read>
class ReplyPipeline {
 public:
  using ConnectionId = uint64_t;
  static constexpr ConnectionId kNoConnection = 0;  // writes nobody waits for (session expiry)

  // One thing to do, in order.
  struct Step {
    enum class Kind {
      kWrite,    // apply `write` (zxid `zxid`) and answer it on `connection`
      kBarrier,  // every earlier write is applied: answer the sync `read`
      kRequest,  // a deferred request of `connection`, now next in line
    };
    Kind kind = Kind::kWrite;
    ConnectionId connection = kNoConnection;
    int64_t zxid = 0;
    std::optional<Write> write;
    std::optional<Read> read;
    // kWrite of a connection, for Apache's session-queue figures: what its
    // queue still holds behind this write, how many of those are requests
    // released now (before its next write or barrier), and how many
    // connections have something queued.
    size_t session_queue = 0;
    size_t released = 0;
    size_t pending_sessions = 0;
    bool queue_emptied = false;  // this write was the last thing queued for it
  };

  // Something is pending for `c`: a request arriving now must wait (defer()).
  bool busy(ConnectionId c) const { return queues_.count(c) != 0; }
  // What is pending for `c` is writes and barriers only, nothing deferred: a
  // write arriving now may be prepared at once (its mark goes behind them),
  // so one connection's writes pipeline as Apache's do.
  bool only_marks(ConnectionId c) const {
    auto it = queues_.find(c);
    if (it == queues_.end() || draining_ == c) return false;
    for (const Entry& e : it->second) {
      if (e.read) return false;
    }
    return true;
  }
  // Requests deferred and not yet handed out by next().
  size_t deferred() const { return deferred_; }
  // Writes prepared and not yet handed out by next() (Apache's outstanding requests).
  size_t writes_pending() const { return writes_pending_; }
  bool empty() const { return global_.empty(); }

  // A prepared write; zxids must increase from call to call.
  void add_write(ConnectionId c, int64_t zxid, Write write) {
    global_.push_back(Global{c, zxid, std::move(write), std::nullopt});
    ++writes_pending_;
    if (c != kNoConnection) place_mark(c);
  }

  // A sync: it must be answered after every write prepared so far. Returns the
  // request back when nothing is pending, so it can be answered at once.
  std::optional<Read> add_barrier(ConnectionId c, Read read) {
    if (global_.empty()) return read;
    global_.push_back(Global{c, 0, std::nullopt, std::move(read)});
    place_mark(c);
    return std::nullopt;
  }

  // A request behind pending ones of the same connection. Precondition: busy(c).
  void defer(ConnectionId c, Read read) {
    queues_[c].push_back(Entry{std::move(read)});
    ++deferred_;
  }

  // The connection is gone: drops its deferred requests. Its writes stay in
  // the global FIFO (they are still applied; next() reports them with
  // their connection id, which the server no longer knows).
  void forget(ConnectionId c) {
    auto it = queues_.find(c);
    if (it != queues_.end()) {
      for (const Entry& e : it->second) deferred_ -= e.read ? 1 : 0;
      queues_.erase(it);
    }
    if (draining_ == c) draining_ = kNoConnection;
  }

  // Drops everything: writes, barriers and deferred requests (an ensemble
  // replica that left its quorum closes every connection).
  void clear() {
    global_.clear();
    queues_.clear();
    draining_ = kNoConnection;
    writes_pending_ = 0;
    deferred_ = 0;
  }

  // The next step now that every write with zxid <= durable_zxid is on disk,
  // or nothing when the rest must wait for the disk.
  std::optional<Step> next(int64_t durable_zxid) {
    if (draining_ != kNoConnection) {
      auto it = queues_.find(draining_);
      if (it != queues_.end() && !it->second.empty() && it->second.front().read) {
        Step step;
        step.kind = Step::Kind::kRequest;
        step.connection = draining_;
        step.read = std::move(*it->second.front().read);
        it->second.pop_front();
        --deferred_;
        if (it->second.empty()) queues_.erase(it);
        return step;
      }
      if (it != queues_.end() && it->second.empty()) queues_.erase(it);
      draining_ = kNoConnection;
    }
    if (global_.empty()) return std::nullopt;
    Global& front = global_.front();
    if (front.write && front.zxid > durable_zxid) return std::nullopt;
    Step step;
    step.connection = front.connection;
    step.zxid = front.zxid;
    if (front.write) {
      step.kind = Step::Kind::kWrite;
      step.write = std::move(front.write);
      --writes_pending_;
    } else {
      step.kind = Step::Kind::kBarrier;
      step.read = std::move(front.read);
    }
    global_.pop_front();
    if (step.connection != kNoConnection) {
      auto it = queues_.find(step.connection);
      if (it != queues_.end()) {
        // The connection's first entry is the mark of this write or barrier:
        // its earlier deferred requests were handed out after the mark before.
        it->second.pop_front();
        step.session_queue = it->second.size();
        for (const Entry& e : it->second) {
          if (!e.read) break;
          ++step.released;
        }
        step.pending_sessions = queues_.size();
        if (it->second.empty()) {
          step.queue_emptied = true;
          queues_.erase(it);
        } else {
          draining_ = step.connection;
        }
      }
    }
    return step;
  }

 private:
  struct Global {
    ConnectionId connection = kNoConnection;
    int64_t zxid = 0;            // writes only
    std::optional<Write> write;  // a write, or
    std::optional<Read> read;    // a barrier (sync)
  };
  struct Entry {
    std::optional<Read> read;  // empty: the mark of a write or barrier in global_
  };

  void place_mark(ConnectionId c) {
    auto& queue = queues_[c];
    // While c's deferred requests are being handed out, the one being
    // processed stood at the front: its write goes there.
    if (draining_ == c) {
      queue.push_front(Entry{});
      draining_ = kNoConnection;
    } else {
      queue.push_back(Entry{});
    }
  }

  std::deque<Global> global_;
  std::unordered_map<ConnectionId, std::deque<Entry>> queues_;
  ConnectionId draining_ = kNoConnection;
  size_t writes_pending_ = 0;
  size_t deferred_ = 0;
};

}  // namespace zkd::server

// SPDX-License-Identifier: Apache-2.0
// The Zab core: one replica's protocol state machine, pure. It reads no clock,
// opens no socket, starts no thread and draws no random number: the host steps
// peer messages, ticks, proposals and storage completions in, takes a Ready
// out, carries it out, and calls advance(). Protocol, Ready contract and
// invariants: docs/zab.md.
//
// Not thread-safe: one owner calls everything. Every call returns at once.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "zkd/zab/config.h"
#include "zkd/zab/memory_log.h"
#include "zkd/zab/message.h"
#include "zkd/zab/ready.h"
#include "zkd/zab/types.h"

namespace zkd::zab {

// What the host recovered from its disk at start.
struct Bootstrap {
  HardState hard_state;
  // The host's log: every durable entry after `base`, ascending. `base` is
  // the zxid of the snapshot the log starts after (0 for none). Pass at least
  // the entries after `applied`, plus up to commit_window before it.
  Zxid base = 0;
  std::vector<Entry> entries;
  // The state machine reflects the log up to here (base <= applied <= last).
  Zxid applied = 0;
  // Distinct for every start of this replica: a boot counter the host keeps
  // on disk, or a number from the host's seeded RNG. It numbers this run's
  // handshakes, so that a leader never takes a restarted learner's
  // FollowerInfo for a resend of the previous run's.
  uint32_t incarnation = 0;
};

enum class Error : uint8_t {
  kOk,
  kNotLeader,         // propose() on a replica that is not leading
  kNotServing,        // leader not established / learner not up to date yet
  kCounterExhausted,  // the epoch's zxid counter ran out; the leader stepped down
};
const char* to_string(Error error);

struct Proposed {
  Zxid zxid = 0;
  Error error = Error::kOk;
  bool ok() const { return error == Error::kOk; }
};

class Zab {
 public:
  // Precondition: validate(config) is empty; boot is consistent. The replica
  // starts LOOKING, its first vote waiting in the first Ready.
  Zab(Config config, Bootstrap boot);

  // --- inputs ---
  // A message from a peer (m.to == id). Stale, duplicate or unexpected
  // messages are ignored; a message that breaks the protocol (a gap in the
  // leader's proposals) sends this replica back to election.
  void step(const Message& m);
  // One period of the host's timer.
  void tick();
  // Leader, serving: appends a txn with the next zxid and broadcasts it.
  Proposed propose(std::string payload);
  // Leader, serving: sends every synced learner the host's tree digest
  // right after it applied `zxid`; it surfaces in their Ready::digests.
  void send_digest(Zxid zxid, uint64_t digest);
  // Learner (follower or observer), serving: sends a write to the leader
  // (surfaces there in Ready::requests). Delivery is not guaranteed: the
  // client retries.
  Error forward(std::string payload);
  // Serving replica: request_id shows up in Ready::syncs_done once this
  // replica applied everything the leader had proposed when it saw the sync,
  // or in Ready::syncs_failed if the replica loses its leader first.
  Error sync(uint64_t request_id);
  // The host's link to `peer` broke (its connection closed). A follower or
  // observer whose leader that is goes back to election at once, as Apache's
  // learners do when their socket to the leader closes; anything else waits
  // for the tick-based limits (a leader counts silent learners). In election
  // a voter whose link is down, and that has not been heard from since,
  // cannot send a better vote: once a quorum agrees, the replica need not
  // wait finalize_ticks for it (docs/zab.md, Election).
  void link_down(ServerId peer);
  // The host's log is durable up to zxid (every entry <= zxid it was given).
  void persisted(Zxid zxid);
  // The snapshot of Ready::install_snapshot is installed, durably.
  void snapshot_installed(Zxid zxid);

  // --- output ---
  bool has_ready() const;
  // Takes the pending batch. Call advance() after carrying it out, before the
  // next ready().
  Ready ready();
  void advance();

  // --- introspection ---
  const Config& config() const { return cfg_; }
  Status status() const;
  HardState hard_state() const { return hard_; }
  Zxid last_zxid() const { return log_.last(); }
  Zxid committed_zxid() const { return committed_; }
  Zxid durable_zxid() const { return durable_; }
  Zxid applied_zxid() const { return applied_; }
  Zxid log_base() const { return log_.base(); }
  const Vote& vote() const { return vote_; }
  uint64_t round() const { return round_; }
  // Leader: followers (voters) that are in sync (past NewLeader); 0 otherwise.
  size_t synced_learners() const;
  // Leader: observers that are in sync (past NewLeader); 0 otherwise.
  size_t synced_observers() const;

 private:
  enum class LeaderPhase : uint8_t { kDiscovery, kSync, kBroadcast };
  enum class LearnerStage : uint8_t { kDiscovery, kSync, kAwaitUpToDate, kBroadcast };
  // The leader's view of one learner (Apache's LearnerHandler).
  struct Peer {
    enum class Stage : uint8_t { kGotInfo, kAwaitAckEpoch, kAckedEpoch, kSyncing, kSynced };
    Stage stage = Stage::kGotInfo;
    uint64_t attempt = 0;
    Epoch accepted_epoch = 0;
    Epoch current_epoch = 0;
    Zxid last_zxid = 0;
    bool fresh = false;  // its AckEpoch counts toward the discovery quorum
    Zxid acked = 0;      // durable on the learner, from AckNewLeader / Ack
    Zxid informed = 0;   // observer: its log ends here once it has all we sent
    int silent_ticks = 0;
    int handshake_ticks = 0;
  };
  // A learner's sync the leader answers once committed_ reaches zxid.
  struct PeerSync {
    ServerId from = 0;
    uint64_t request_id = 0;
    Zxid zxid = 0;
  };
  // Our own sync(): done once applied_ reaches zxid (unknown until a
  // learner hears the leader's SyncReply).
  struct LocalSync {
    uint64_t request_id = 0;
    std::optional<Zxid> zxid;
  };

  // common (zab.cc)
  void send(Message m);
  void set_hard_state(HardState h);
  bool append(Entry entry);
  void advance_commit(Zxid zxid);
  bool is_voter(ServerId id) const;
  bool is_observer(ServerId id) const;
  // Following or observing: a learner of leader_.
  bool learning() const { return role_ == Role::kFollowing || role_ == Role::kObserving; }
  size_t quorum() const { return quorum_size(cfg_.voters.size()); }
  void fail_syncs();

  // election (election.cc)
  void become_looking();
  Vote self_vote() const;
  void broadcast_vote();
  void send_vote(ServerId to);
  void on_vote(const Message& m);
  bool quorum_agrees(const std::map<ServerId, Vote>& votes, const Vote& v) const;
  bool quorum_names(const std::map<ServerId, Vote>& votes, ServerId leader) const;
  bool leader_confirmed(ServerId leader, uint64_t round) const;
  bool decide_now() const;
  void on_quorum_agrees();
  void decide(Vote v);  // by value: callers pass votes held in maps it clears
  void tick_looking();

  // leader (leader.cc)
  void become_leader();
  void on_leader_message(const Message& m);
  void on_follower_info(const Message& m);
  void send_leader_info(ServerId id, Peer& p);
  size_t count_voters(Peer::Stage at_least) const;
  void maybe_choose_epoch();
  void on_ack_epoch(ServerId id, Peer& p, const Message& m);
  void maybe_finish_discovery();
  void sync_peer(ServerId id, Peer& p);
  void on_ack_new_leader(Peer& p, const Message& m);
  void maybe_establish();
  void maybe_commit();
  void inform_observers();
  void tick_leader();
  void answer_peer_syncs();

  // learner (learner.cc)
  void become_follower(ServerId leader);
  void on_learner_message(const Message& m);
  void send_follower_info();
  void learner_send_acks();
  void tick_learner();
  void protocol_error();

  Config cfg_;
  bool observer_ = false;  // cfg_.id is an observer: never votes, never leads
  HardState hard_;
  MemoryLog log_;
  Zxid durable_ = 0;    // the host's log is durable up to here (<= log_.last())
  Zxid committed_ = 0;  // known committed (<= log_.last())
  Zxid applied_ = 0;    // handed out in Ready::committed (<= committed_)
  Role role_ = Role::kLooking;
  ServerId leader_ = 0;
  bool serving_ = false;
  std::vector<LocalSync> local_syncs_;
  std::vector<PeerSync> peer_syncs_;

  // election
  Vote vote_;
  uint64_t round_ = 0;
  std::map<ServerId, Vote> received_;  // LOOKING votes of this round, and our own
  struct OutOfElection {
    Vote vote;
    uint64_t round = 0;
    PeerState state = PeerState::kFollowing;
  };
  std::map<ServerId, OutOfElection> out_of_election_;  // FOLLOWING / LEADING peers
  int finalize_left_ = 0;  // > 0: a quorum agrees; decide when it reaches 0
  // Voters whose link the host reported down (link_down) and that sent
  // nothing since: they cannot vote now.
  std::set<ServerId> unreachable_;
  int resend_left_ = 0;

  // leader
  LeaderPhase phase_ = LeaderPhase::kDiscovery;
  Epoch new_epoch_ = 0;  // 0 until chosen
  // The largest acceptedEpoch a voter showed above an epoch we had chosen
  // (we stepped down for it): an epoch we choose later exceeds it, even when
  // that voter's FollowerInfo comes after a quorum's again.
  Epoch epoch_floor_ = 0;
  int phase_ticks_ = 0;
  Zxid initial_last_ = 0;  // the leader's history for the new epoch ends here
  uint64_t next_counter_ = 1;
  std::map<ServerId, Peer> peers_;

  // learner
  LearnerStage stage_ = LearnerStage::kDiscovery;
  uint64_t attempt_ = 0;
  int leader_silent_ticks_ = 0;
  int handshake_ticks_ = 0;
  std::optional<Zxid> ack_new_leader_at_;  // send AckNewLeader once durable here
  Zxid acked_ = 0;                         // last Ack sent
  std::optional<Zxid> pending_snapshot_;
  Zxid reported_durable_ = 0;

  // output
  Ready out_;
  Status last_status_;
  std::optional<Zxid> snapshot_cut_;  // Ready::committed stops here this batch
  bool outstanding_ = false;
};

}  // namespace zkd::zab

// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/vote_translation.h"

#include <limits>
#include <utility>

namespace zkd::apache {

Notification to_notification(const zab::Message& vote, bool observer, std::string config) {
  Notification n;
  switch (vote.state) {
    case zab::PeerState::kLooking:
      n.state = ServerState::kLooking;
      break;
    case zab::PeerState::kFollowing:
      n.state = observer ? ServerState::kObserving : ServerState::kFollowing;
      break;
    case zab::PeerState::kLeading:
      n.state = ServerState::kLeading;
      break;
  }
  n.leader = vote.vote.leader;
  n.zxid = vote.vote.zxid;
  n.election_epoch = static_cast<int64_t>(vote.round);
  n.peer_epoch = vote.vote.epoch;
  n.version = kNotificationVersion;
  n.config = std::move(config);
  return n;
}

zab::Message from_notification(const Notification& n, zab::ServerId from, zab::ServerId to) {
  zab::Message m;
  m.type = zab::MsgType::kVote;
  m.from = from;
  m.to = to;
  switch (n.state) {
    case ServerState::kLooking:
      m.state = zab::PeerState::kLooking;
      break;
    case ServerState::kFollowing:
    case ServerState::kObserving:
      m.state = zab::PeerState::kFollowing;
      break;
    case ServerState::kLeading:
      m.state = zab::PeerState::kLeading;
      break;
  }
  // An Apache observer's own vote names no one: Long.MIN_VALUE for the
  // leader and the zxid.
  const bool names_no_one = n.leader == std::numeric_limits<int64_t>::min();
  m.vote.leader = names_no_one ? 0 : n.leader;
  m.vote.zxid = names_no_one ? 0 : n.zxid;
  m.vote.epoch = n.peer_epoch;
  m.round = static_cast<uint64_t>(n.election_epoch);
  return m;
}

}  // namespace zkd::apache

// SPDX-License-Identifier: Apache-2.0
// zkd's election votes (zab::Message kVote) as Apache's FastLeaderElection
// notifications and back (docs/apache-peer-protocol.md, "Election port").
// The fields match one for one: the vote's leader, zxid and epoch are the
// notification's proposed leader, zxid and peer epoch; the round is its
// election epoch; the states are the same but for OBSERVING, which zkd's
// core does not send (an observer answers as FOLLOWING) and reads as
// FOLLOWING. What zkd's core adds to a vote (its membership note, a
// leadership transfer's nomination flag) has no place in a notification;
// the notification carries Apache's configuration text instead.
#pragma once

#include <string>

#include "zkd/apache_peer/election_wire.h"
#include "zkd/zab/message.h"

namespace zkd::apache {

// The notification for `vote` (a kVote message). `observer`: this server is
// an observer (it answers as OBSERVING). `config`: the sender's
// configuration as Apache writes it (its QuorumVerifier's text,
// "server.N=...\nversion=<hex>").
Notification to_notification(const zab::Message& vote, bool observer, std::string config);

// The kVote message for a notification from `from` to `to`. Apache's
// observers name no one (Long.MIN_VALUE), which zkd's core reads as 0.
zab::Message from_notification(const Notification& n, zab::ServerId from, zab::ServerId to);

}  // namespace zkd::apache

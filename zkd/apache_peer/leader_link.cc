// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/leader_link.h"

#include <algorithm>
#include <utility>

#include "libzk/wire/jute.h"
#include "libzk/wire/protocol.h"

namespace zkd::apache {
namespace {

QuorumPacket packet(PacketType type, int64_t zxid, zk::wire::Buffer data = std::nullopt) {
  return QuorumPacket{type, zxid, std::move(data), std::nullopt};
}

// Whether a txn (TxnHeader: int64 session, int32 cxid, int64 zxid, int64
// time, int32 type, then the record) is a reconfiguration: an Apache learner
// activates it only on COMMITANDACTIVATE or INFORMANDACTIVATE.
bool is_reconfig(std::string_view txn) {
  constexpr size_t kTypeAt = 8 + 4 + 8 + 8;
  if (txn.size() < kTypeAt + 4) return false;
  zk::wire::Reader r(txn.substr(kTypeAt, 4));
  return r.int32() == static_cast<int32_t>(zk::wire::OpCode::kReconfig);
}

// The designated leader after a reconfiguration, as ANDACTIVATE packets
// carry it (int64).
std::string leader_id(zab::ServerId id) {
  std::string out;
  zk::wire::Writer(out).int64(id);
  return out;
}

}  // namespace

LeaderLink::LeaderLink(Options options) : options_(std::move(options)) {}

zab::Message LeaderLink::message(zab::MsgType type) const {
  zab::Message m;
  m.type = type;
  m.from = learner_;
  m.to = options_.self;
  m.epoch = epoch_;
  m.attempt = options_.attempt;
  return m;
}

std::optional<zab::Message> LeaderLink::open(const QuorumPacket& first, std::string& error) {
  if (first.type != PacketType::kFollowerInfo && first.type != PacketType::kObserverInfo) {
    error = "the first packet is " + to_string(first.type) + ", not FOLLOWERINFO or OBSERVERINFO";
    return std::nullopt;
  }
  const auto info = first.data ? decode_learner_info(*first.data) : std::nullopt;
  if (!info || info->server_id <= 0) {
    error = to_string(first.type) + " without a learner's id";
    return std::nullopt;
  }
  learner_ = info->server_id;
  observer_ = first.type == PacketType::kObserverInfo;
  zab::Message m = message(zab::MsgType::kFollowerInfo);
  m.epoch = zab::epoch_of(first.zxid);  // the learner's acceptedEpoch
  m.observing = observer_;
  return m;
}

void LeaderLink::commit_through(zab::Zxid zxid, std::vector<QuorumPacket>& out) {
  while (!uncommitted_.empty() && uncommitted_.front() <= zxid) {
    out.push_back(commit(uncommitted_.front()));
    uncommitted_.pop_front();
  }
}

QuorumPacket LeaderLink::commit(zab::Zxid zxid) {
  if (reconfigs_.erase(zxid) == 0) return packet(PacketType::kCommit, zxid);
  return packet(PacketType::kCommitAndActivate, zxid, leader_id(options_.self));
}

QuorumPacket LeaderLink::proposal(const zab::Entry& e) {
  if (is_reconfig(e.payload)) reconfigs_.insert(e.zxid);
  return packet(PacketType::kProposal, e.zxid, std::string(e.payload.view()));
}

QuorumPacket LeaderLink::inform(const zab::Entry& e) {
  if (!is_reconfig(e.payload)) {
    return packet(PacketType::kInform, e.zxid, std::string(e.payload.view()));
  }
  return packet(PacketType::kInformAndActivate, e.zxid,
                leader_id(options_.self).append(e.payload.view()));
}

QuorumPacket LeaderLink::snap_packet(zab::Zxid zxid) {
  sync_opened_ = true;
  stage_ = Stage::kSync;
  return packet(PacketType::kSnap, zxid);
}

void LeaderLink::from_core(const zab::Message& m, std::vector<QuorumPacket>& out) {
  switch (m.type) {
    case zab::MsgType::kLeaderInfo:
      epoch_ = m.epoch;
      stage_ = Stage::kEpochSent;
      out.push_back(packet(PacketType::kLeaderInfo, zab::make_zxid(m.epoch, 0),
                           encode_int32(kLearnerProtocolVersion)));
      return;
    case zab::MsgType::kTrunc:
      sync_opened_ = true;
      stage_ = Stage::kSync;
      out.push_back(packet(PacketType::kTrunc, m.zxid));
      return;
    case zab::MsgType::kDiff:
      stage_ = Stage::kSync;
      if (!sync_opened_) {
        out.push_back(
            packet(PacketType::kDiff, m.entries.empty() ? m.zxid : m.entries.back().zxid));
      }
      // What is committed goes as PROPOSAL + COMMIT pairs, as Apache's leader
      // syncs (an observer's Diff is all committed). The rest waits until
      // after NEWLEADER: an Apache 3.8 learner drops its pending proposals
      // at NEWLEADER, and a COMMIT of one sent before it would find none.
      acked_at_new_leader_ = m.zxid;
      for (const zab::Entry& e : m.entries) {
        if (e.zxid <= m.committed || observer_) {
          out.push_back(proposal(e));
          out.push_back(commit(e.zxid));
          acked_at_new_leader_ = e.zxid;
        } else {
          after_new_leader_.push_back(e);
        }
      }
      return;
    case zab::MsgType::kNewLeader:
      stage_ = Stage::kNewLeaderSent;
      out.push_back(packet(PacketType::kNewLeader, zab::make_zxid(m.epoch, 0),
                           options_.config_text ? options_.config_text() : std::string()));
      for (const zab::Entry& e : after_new_leader_) {
        out.push_back(proposal(e));
        uncommitted_.push_back(e.zxid);
      }
      after_new_leader_.clear();
      return;
    case zab::MsgType::kUpToDate:
      commit_through(m.zxid, out);
      stage_ = Stage::kUpToDate;
      out.push_back(packet(PacketType::kUpToDate, -1));
      return;
    case zab::MsgType::kProposal:
      for (const zab::Entry& e : m.entries) {
        out.push_back(proposal(e));
        uncommitted_.push_back(e.zxid);
      }
      return;
    case zab::MsgType::kCommit:
      commit_through(m.zxid, out);
      return;
    case zab::MsgType::kInform:
      for (const zab::Entry& e : m.entries) out.push_back(inform(e));
      return;
    case zab::MsgType::kPing:
      ping_round_ = m.request_id;
      // An Apache learner exits on a PING before its sync began ("Got
      // unexpected packet from leader"), and Apache's leader pings only
      // learners it has synced.
      if (stage_ != Stage::kUpToDate) return;
      if (m.committed > 0) commit_through(m.committed, out);
      out.push_back(packet(PacketType::kPing, m.zxid));
      return;
    case zab::MsgType::kSyncReply:
      out.push_back(packet(PacketType::kSync, 0));
      return;
    default:
      return;  // Digest: Apache's learners check the digests proposals carry
  }
}

bool LeaderLink::from_learner(const QuorumPacket& p, std::vector<net::PeerPacket>& to_core,
                              std::vector<QuorumPacket>& to_learner, std::string& error) {
  switch (p.type) {
    case PacketType::kAckEpoch: {
      const auto current = p.data ? decode_int32(*p.data) : std::nullopt;
      if (stage_ != Stage::kEpochSent || !current) {
        error = "ACKEPOCH out of place";
        return false;
      }
      zab::Message m = message(zab::MsgType::kAckEpoch);
      m.fresh = *current != kEpochAlreadyAccepted;
      // Apache's leader reads nothing else from an ack that is not fresh.
      m.current_epoch = m.fresh ? *current : 0;
      m.zxid = p.zxid;
      m.committed = 0;  // an Apache learner truncates anywhere
      to_core.push_back({std::move(m), {}});
      return true;
    }
    case PacketType::kAck: {
      if (zab::counter_of(p.zxid) == 0) {
        // NEWLEADER's ACK, or the one after UPTODATE (dropped).
        if (stage_ == Stage::kNewLeaderSent) {
          // It holds what came before NEWLEADER; the proposals after it are
          // acked one by one.
          zab::Message m = message(zab::MsgType::kAckNewLeader);
          m.zxid = acked_at_new_leader_;
          acked_ = std::max(acked_, acked_at_new_leader_);
          to_core.push_back({std::move(m), {}});
        }
        return true;
      }
      acked_ = std::max(acked_, p.zxid);
      zab::Message m = message(zab::MsgType::kAck);
      m.zxid = p.zxid;
      to_core.push_back({std::move(m), {}});
      return true;
    }
    case PacketType::kPing: {
      const auto touches = p.data ? decode_touches(*p.data) : std::vector<SessionTouch>{};
      if (!touches) {
        error = "a ping whose session list does not read";
        return false;
      }
      if (!touches->empty() && options_.write_forwarded) {
        zab::Message m = message(zab::MsgType::kRequest);
        ForwardedWrite write;
        write.touches = *touches;
        m.payload = options_.write_forwarded(write);
        to_core.push_back({std::move(m), {}});
      }
      zab::Message m = message(zab::MsgType::kPing);
      m.zxid = acked_;
      m.request_id = ping_round_;
      to_core.push_back({std::move(m), {}});
      return true;
    }
    case PacketType::kRequest: {
      auto request = p.data ? decode_forwarded_request(*p.data) : std::nullopt;
      if (!request) {
        error = "a REQUEST that does not read";
        return false;
      }
      if (request->type == static_cast<int32_t>(zk::wire::OpCode::kSync)) {
        zab::Message m = message(zab::MsgType::kSync);
        m.request_id = ++next_sync_;
        to_core.push_back({std::move(m), {}});
        return true;
      }
      ForwardedWrite write;
      write.request = std::move(*request);
      if (p.auth) write.auth = *p.auth;
      zab::Message m = message(zab::MsgType::kRequest);
      m.payload = options_.write_forwarded ? options_.write_forwarded(write) : std::string();
      to_core.push_back({std::move(m), {}});
      return true;
    }
    case PacketType::kRevalidate: {
      const auto asked = p.data ? decode_revalidate_request(*p.data) : std::nullopt;
      if (!asked) {
        error = "a REVALIDATE that does not read";
        return false;
      }
      const bool valid = options_.revalidate && options_.revalidate(asked->first, asked->second);
      to_learner.push_back(
          packet(PacketType::kRevalidate, -1, encode_revalidate_reply({asked->first, valid})));
      return true;
    }
    default:
      error = to_string(p.type) + " from a learner";
      return false;
  }
}

}  // namespace zkd::apache

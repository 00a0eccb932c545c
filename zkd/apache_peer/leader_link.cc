// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/leader_link.h"

#include <algorithm>
#include <utility>

#include "libzk/wire/protocol.h"

namespace zkd::apache {
namespace {

QuorumPacket packet(PacketType type, int64_t zxid, zk::wire::Buffer data = std::nullopt) {
  return QuorumPacket{type, zxid, std::move(data), std::nullopt};
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
  return m;
}

void LeaderLink::commit_through(zab::Zxid zxid, std::vector<QuorumPacket>& out) {
  while (!uncommitted_.empty() && uncommitted_.front() <= zxid) {
    out.push_back(packet(PacketType::kCommit, uncommitted_.front()));
    uncommitted_.pop_front();
  }
}

QuorumPacket LeaderLink::snap_packet(zab::Zxid zxid) {
  sync_opened_ = true;
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
      for (const zab::Entry& e : m.entries) {
        out.push_back(packet(PacketType::kProposal, e.zxid, e.payload));
        // An observer is synced only to what is committed.
        if (observer_) {
          out.push_back(packet(PacketType::kCommit, e.zxid));
        } else {
          uncommitted_.push_back(e.zxid);
        }
      }
      return;
    case zab::MsgType::kNewLeader:
      new_leader_zxid_ = m.zxid;
      stage_ = Stage::kNewLeaderSent;
      out.push_back(packet(PacketType::kNewLeader, zab::make_zxid(m.epoch, 0),
                           options_.config_text ? options_.config_text() : std::string()));
      return;
    case zab::MsgType::kUpToDate:
      commit_through(m.zxid, out);
      stage_ = Stage::kUpToDate;
      out.push_back(packet(PacketType::kUpToDate, -1));
      return;
    case zab::MsgType::kProposal:
      for (const zab::Entry& e : m.entries) {
        out.push_back(packet(PacketType::kProposal, e.zxid, e.payload));
        uncommitted_.push_back(e.zxid);
      }
      return;
    case zab::MsgType::kCommit:
      commit_through(m.zxid, out);
      return;
    case zab::MsgType::kInform:
      for (const zab::Entry& e : m.entries) {
        out.push_back(packet(PacketType::kInform, e.zxid, e.payload));
      }
      return;
    case zab::MsgType::kPing:
      ping_round_ = m.request_id;
      // An Apache learner syncing (before UPTODATE) takes no PING: it exits
      // ("Got unexpected packet from leader"). Apache's leader pings only
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
          zab::Message m = message(zab::MsgType::kAckNewLeader);
          m.zxid = new_leader_zxid_;
          acked_ = std::max(acked_, new_leader_zxid_);
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

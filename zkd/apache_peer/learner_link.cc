// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/learner_link.h"

#include <algorithm>
#include <utility>

#include "libzk/wire/jute.h"
#include "libzk/wire/protocol.h"

namespace zkd::apache {
namespace {

// The body of a forwarded sync: its SyncRequest (the path; the leader does
// not read it).
std::string sync_request_body() {
  std::string out;
  zk::wire::Writer(out).ustring("/");
  return out;
}

QuorumPacket packet(PacketType type, int64_t zxid, zk::wire::Buffer data = std::nullopt) {
  return QuorumPacket{type, zxid, std::move(data), std::nullopt};
}

}  // namespace

LearnerLink::LearnerLink(Options options) : options_(std::move(options)) {}

QuorumPacket LearnerLink::open(const zab::Message& follower_info) {
  attempt_ = follower_info.attempt;
  const LearnerInfo info{options_.self, kLearnerProtocolVersion, options_.config_version};
  return packet(options_.observer ? PacketType::kObserverInfo : PacketType::kFollowerInfo,
                zab::make_zxid(follower_info.epoch, 0), encode_learner_info(info));
}

zab::Message LearnerLink::message(zab::MsgType type) const {
  zab::Message m;
  m.type = type;
  m.from = options_.leader;
  m.to = options_.self;
  m.epoch = epoch_;
  m.attempt = attempt_;
  return m;
}

void LearnerLink::ack_through(zab::Zxid zxid, std::vector<QuorumPacket>& out) {
  while (!unacked_.empty() && unacked_.front() <= zxid) {
    out.push_back(packet(PacketType::kAck, unacked_.front()));
    unacked_.pop_front();
  }
}

void LearnerLink::from_core(const zab::Message& m, std::vector<QuorumPacket>& out) {
  switch (m.type) {
    case zab::MsgType::kAckEpoch:
      if (stage_ != Stage::kDiscovery || m.attempt != attempt_) return;
      acked_epoch_last_ = m.zxid;
      stage_ = Stage::kEpochAcked;
      out.push_back(packet(
          PacketType::kAckEpoch, m.zxid,
          encode_int32(m.fresh ? static_cast<int32_t>(m.current_epoch) : kEpochAlreadyAccepted)));
      return;
    case zab::MsgType::kAckNewLeader:
      if (m.attempt != attempt_ || new_leader_acked_ || stage_ < Stage::kAwaitUpToDate) return;
      // The leader reads this ACK before anything else the learner sends.
      new_leader_acked_ = true;
      out.push_back(packet(PacketType::kAck, new_leader_zxid_));
      ack_through(m.zxid, out);
      return;
    case zab::MsgType::kAck:
      if (new_leader_acked_) ack_through(m.zxid, out);
      return;
    case zab::MsgType::kPing:
      if (stage_ != Stage::kBroadcast) return;
      out.push_back(packet(PacketType::kPing, leader_ping_zxid_, encode_touches(touches_)));
      touches_.clear();
      return;
    case zab::MsgType::kRequest: {
      if (stage_ != Stage::kBroadcast || !options_.read_forwarded) return;
      ForwardedWrite write = options_.read_forwarded(m.payload);
      touches_.insert(touches_.end(), write.touches.begin(), write.touches.end());
      if (write.revalidate) {
        // The leader's answer is not waited for: the session was checked
        // here, and the leader takes this REVALIDATE before any later REQUEST.
        out.push_back(
            packet(PacketType::kRevalidate, -1,
                   encode_revalidate_request(write.revalidate->first, write.revalidate->second)));
      }
      if (write.request) {
        QuorumPacket p = packet(PacketType::kRequest, -1, encode_forwarded_request(*write.request));
        p.auth = std::move(write.auth);
        out.push_back(std::move(p));
      }
      return;
    }
    case zab::MsgType::kSync:
      if (stage_ != Stage::kBroadcast) return;
      syncs_.push_back(m.request_id);
      out.push_back(
          packet(PacketType::kRequest, -1,
                 encode_forwarded_request(
                     {0, 0, static_cast<int32_t>(zk::wire::OpCode::kSync), sync_request_body()})));
      return;
    default:
      return;  // FollowerInfo resent: the link opened with it
  }
}

bool LearnerLink::take_entry(const QuorumPacket& p, std::vector<net::PeerPacket>& to_core,
                             std::string& error) {
  if (!p.data) {
    error = to_string(p.type) + " without a txn";
    return false;
  }
  zab::Entry entry{p.zxid, *p.data};
  if (stage_ == Stage::kSync) {
    diff_.push_back(std::move(entry));
    if (p.type == PacketType::kProposal)
      unacked_.push_back(p.zxid);
    else
      committed_ = p.zxid;  // an INFORM is committed
    return true;
  }
  if (p.type == PacketType::kInform) {
    zab::Message m = message(zab::MsgType::kInform);
    m.zxid = last_;
    m.entries.push_back(std::move(entry));
    to_core.push_back({std::move(m), {}});
    committed_ = p.zxid;
  } else {
    zab::Message m = message(zab::MsgType::kProposal);
    m.entries.push_back(std::move(entry));
    to_core.push_back({std::move(m), {}});
    unacked_.push_back(p.zxid);
  }
  last_ = p.zxid;
  return true;
}

bool LearnerLink::from_leader(const QuorumPacket& p, std::vector<net::PeerPacket>& to_core,
                              std::vector<QuorumPacket>& to_leader, std::string& error) {
  const auto out_of_place = [&] {
    error = to_string(p.type) + " out of place";
    return false;
  };
  switch (p.type) {
    case PacketType::kLeaderInfo: {
      if (stage_ != Stage::kDiscovery) return out_of_place();
      epoch_ = zab::epoch_of(p.zxid);
      new_leader_zxid_ = p.zxid;
      zab::Message m = message(zab::MsgType::kLeaderInfo);
      to_core.push_back({std::move(m), {}});
      return true;
    }
    case PacketType::kDiff:
    case PacketType::kTrunc:
    case PacketType::kSnap: {
      if (stage_ != Stage::kEpochAcked) return out_of_place();
      stage_ = Stage::kSync;
      base_ = p.type == PacketType::kDiff ? acked_epoch_last_ : p.zxid;
      committed_ = base_;
      if (p.type == PacketType::kTrunc) {
        zab::Message m = message(zab::MsgType::kTrunc);
        m.zxid = p.zxid;
        to_core.push_back({std::move(m), {}});
      } else if (p.type == PacketType::kSnap) {
        awaiting_snapshot_ = true;
        snapshot_zxid_ = p.zxid;
      }
      return true;
    }
    case PacketType::kProposal:
      if (stage_ < Stage::kSync) return out_of_place();
      if (options_.observer) {
        // Apache's leader syncs an observer with PROPOSAL + COMMIT pairs
        // (and forwards its outstanding proposals, whose COMMITs follow):
        // held until committed, then taken as an INFORM.
        if (!p.data) return out_of_place();
        held_.push_back(zab::Entry{p.zxid, *p.data});
        return true;
      }
      return take_entry(p, to_core, error);
    case PacketType::kInform:
      if (stage_ < Stage::kSync || !options_.observer) return out_of_place();
      return take_entry(p, to_core, error);
    case PacketType::kInformAndActivate: {
      // The reconfig's txn after the suggested leader's id (8 bytes).
      if (stage_ < Stage::kSync || !options_.observer || !p.data || p.data->size() < 8) {
        return out_of_place();
      }
      QuorumPacket inform = p;
      inform.type = PacketType::kInform;
      inform.data->erase(0, 8);
      return take_entry(inform, to_core, error);
    }
    case PacketType::kCommit:
    case PacketType::kCommitAndActivate:
      if (stage_ < Stage::kSync) return out_of_place();
      if (options_.observer) {
        while (!held_.empty() && held_.front().zxid <= p.zxid) {
          QuorumPacket inform{PacketType::kInform, held_.front().zxid,
                              std::string(held_.front().payload.view()), std::nullopt};
          held_.pop_front();
          if (!take_entry(inform, to_core, error)) return false;
        }
        return true;
      }
      if (stage_ == Stage::kSync) {
        committed_ = std::max(committed_, p.zxid);
        std::erase(unacked_, p.zxid);  // committed: no ack needed
        return true;
      }
      {
        zab::Message m = message(zab::MsgType::kCommit);
        m.zxid = p.zxid;
        to_core.push_back({std::move(m), {}});
      }
      committed_ = std::max(committed_, p.zxid);
      return true;
    case PacketType::kNewLeader: {
      if (stage_ != Stage::kSync || awaiting_snapshot_) return out_of_place();
      zab::Message diff = message(zab::MsgType::kDiff);
      diff.zxid = base_;
      last_ = diff_.empty() ? base_ : diff_.back().zxid;
      diff.entries = std::move(diff_);
      diff_.clear();
      to_core.push_back({std::move(diff), {}});
      zab::Message nl = message(zab::MsgType::kNewLeader);
      nl.zxid = last_;
      to_core.push_back({std::move(nl), {}});
      stage_ = Stage::kAwaitUpToDate;
      return true;
    }
    case PacketType::kUpToDate: {
      if (stage_ != Stage::kAwaitUpToDate || !new_leader_acked_) return out_of_place();
      stage_ = Stage::kBroadcast;
      zab::Message m = message(zab::MsgType::kUpToDate);
      m.zxid = committed_;
      to_core.push_back({std::move(m), {}});
      to_leader.push_back(packet(PacketType::kAck, zab::make_zxid(epoch_, 0)));
      return true;
    }
    case PacketType::kPing: {
      if (stage_ != Stage::kBroadcast) return true;  // Apache's learner reads none before
      leader_ping_zxid_ = p.zxid;
      zab::Message m = message(zab::MsgType::kPing);
      m.zxid = last_;
      to_core.push_back({std::move(m), {}});
      return true;
    }
    case PacketType::kSync: {
      if (stage_ != Stage::kBroadcast || syncs_.empty()) return out_of_place();
      zab::Message m = message(zab::MsgType::kSyncReply);
      m.request_id = syncs_.front();
      syncs_.pop_front();
      // The leader answers after the COMMIT of what it had proposed when it
      // saw the sync, on this same connection: the last one before.
      m.zxid = committed_;
      to_core.push_back({std::move(m), {}});
      return true;
    }
    case PacketType::kRevalidate:
      return true;  // an answer to a revalidation zkd does not ask for
    default:
      return out_of_place();
  }
}

void LearnerLink::snapshot_received(std::string state, std::vector<net::PeerPacket>& to_core) {
  awaiting_snapshot_ = false;
  zab::Message m = message(zab::MsgType::kSnap);
  m.zxid = snapshot_zxid_;
  to_core.push_back({std::move(m), std::move(state)});
}

}  // namespace zkd::apache

// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/replica_membership.h"

#include <string_view>
#include <utility>

#include "libzk/wire/jute.h"
#include "zkd/log/log.h"
#include "zkd/tree/txn.h"

namespace zkd::server {

using net::log_info;

namespace {

// Where a txn's type is in its bytes (tree::write_txn): after the session
// (8), cxid (4), zxid (8) and time (8).
constexpr size_t kTxnTypeOffset = 28;

std::optional<zab::Membership> membership_in_txn(std::string_view bytes) {
  if (bytes.size() < kTxnTypeOffset + 4) return std::nullopt;
  zk::wire::Reader type(std::string_view(bytes).substr(kTxnTypeOffset, 4));
  if (type.int32() != static_cast<int32_t>(zk::wire::OpCode::kReconfig)) return std::nullopt;
  tree::Txn txn;
  if (!tree::read_txn(bytes, txn)) return std::nullopt;
  const auto* set = std::get_if<tree::SetDataTxn>(&txn.body);
  if (set == nullptr || !set->data) return std::nullopt;
  const auto parsed = parse_membership_text(*set->data);
  if (!parsed) return std::nullopt;
  return zab_membership(parsed->first);
}

}  // namespace

zab::Membership zab_membership(const QuorumServers& servers) {
  zab::Membership m;
  for (const auto& [id, server] : servers) (server.observer ? m.observers : m.voters).push_back(id);
  return m;
}

size_t last_reconfig_index(const std::vector<storage::LogRecord>& records) {
  for (size_t i = records.size(); i-- > 0;) {
    if (membership_in_txn(records[i].txn)) return i;
  }
  return records.size();
}

std::optional<zab::Membership> reconfig_membership(const zab::Entry& entry) {
  return membership_in_txn(entry.payload);
}

void take_logged_membership(zab::Config& config, const std::vector<storage::LogRecord>& records) {
  const size_t last = last_reconfig_index(records);
  for (size_t i = 0; i < last; ++i) {
    if (auto m = membership_in_txn(records[i].txn)) {
      config.voters = std::move(m->voters);
      config.observers = std::move(m->observers);
      config.membership_version = records[i].zxid;
    }
  }
}

Status take_snapshot_membership(zab::Config& config, const std::string& snapshot_config) {
  if (snapshot_config.empty()) return {};
  auto parsed = parse_membership_text(snapshot_config);
  if (!parsed) {
    return Status::corruption("/zookeeper/config in the snapshot does not parse: " +
                              snapshot_config);
  }
  zab::Membership m = zab_membership(parsed->first);
  config.voters = std::move(m.voters);
  config.observers = std::move(m.observers);
  config.membership_version = parsed->second;
  log_info("membership of configuration version ", net::hex(parsed->second),
           " (a reconfiguration's, from the snapshot)");
  return {};
}

}  // namespace zkd::server

// SPDX-License-Identifier: Apache-2.0
// Txn -> state change + reply + watch events: Apache's DataTree.processTxn,
// the session bookkeeping of ZooKeeperServer.processTxn, and the reply part of
// FinalRequestProcessor. Idempotent in Apache's way, so a log can be replayed
// over a fuzzy snapshot: a create of an existing node or a delete of a missing
// one changes nothing (but repairs the parent's cversion/pzxid as Apache does)
// and answers with the error. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "zkd/tree/data_tree.h"
#include "zkd/tree/results.h"
#include "zkd/tree/session_table.h"
#include "zkd/tree/txn.h"
#include "zkd/tree/watch_manager.h"

namespace zkd::tree {

class Applier {
 public:
  // All three must outlive this object.
  Applier(DataTree& tree, SessionTable& sessions, WatchManager& watches)
      : tree_(tree), sessions_(sessions), watches_(watches) {}

  // The reply carries the txn's zxid and, when err is kOk, the op's response
  // record: create -> CreateResponse, create2, createContainer and createTTL
  // -> Create2Response (a multi's result type 15 for all three), setData and
  // setACL -> Stat, delete / check / closeSession / createSession -> no
  // body, multi -> MultiResponse (err kOk even when the multi failed).
  ApplyResult apply(const Txn& txn);

 private:
  // create, create2, createContainer, createTTL: the node's stored owner
  // gives its kind (container_kind.h).
  ApplyResult create(const TxnHeader& header, const std::string& path, const zk::wire::Buffer& data,
                     const zk::wire::ACLs& acl, int64_t owner, int32_t parent_cversion);
  ApplyResult remove(const TxnHeader& header, const DeleteTxn& txn);
  ApplyResult set_data(const TxnHeader& header, const SetDataTxn& txn);
  ApplyResult set_acl(const TxnHeader& header, const SetACLTxn& txn);
  ApplyResult multi(const TxnHeader& header, const MultiTxn& txn);
  // Deletes `path` and queues its watch events; the delete's error.
  zk::wire::Error delete_node(const std::string& path, int64_t zxid,
                              std::vector<Notification>& out);
  // The ACL of the node at `path` (valid until the tree changes); empty when
  // there is none.
  const zk::wire::ACLs& acl_of(std::string_view path) const;
  // The ACL an event about `event_path` carries, of the node at `path`:
  // looked up only when someone may watch `event_path` (none when nobody
  // does: a replayed log, and most writes, have nobody to tell).
  const zk::wire::ACLs& acl_if_watched(std::string_view event_path, std::string_view path) const;
  ApplyResult close_session(const TxnHeader& header, const CloseSessionTxn& txn);

  DataTree& tree_;
  SessionTable& sessions_;
  WatchManager& watches_;
};

}  // namespace zkd::tree

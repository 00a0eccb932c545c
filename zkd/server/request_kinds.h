// SPDX-License-Identifier: Apache-2.0
// How the server routes a request by its opcode (request_dispatch.cc): the
// facts are zk::wire::kOpTable's (libzk/wire/op_table.h), whose OpKind
// documents each route; a value that is no OpCode is unsupported.
#pragma once

#include "libzk/wire/protocol.h"

namespace zkd::server {

// Answered from this replica's tree by tree::Database::read: exists, getData,
// getACL, getChildren, getChildren2, sync, getAllChildrenNumber, multiRead,
// addWatch, checkWatches, removeWatches (OpKind::kRead).
bool is_read(zk::wire::OpCode op);

// Prepared into a txn and committed: create, create2, createContainer,
// createTTL, delete, setData, setACL, multi (OpKind::kWrite). Not check (13):
// outside a multi Apache 3.9.3 treats it as an unknown opcode
// (ZOOKEEPER-2623's `Request.isValid`), and so does zkd; inside a multi it is
// a sub-op.
bool is_tree_write(zk::wire::OpCode op);

// Answered NOTREADONLY by a read-only server (Apache's
// ReadOnlyRequestProcessor): every change, sync, reconfig, deleteContainer and
// check. closeSession is the dispatcher's own case.
bool refused_read_only(zk::wire::OpCode op);

}  // namespace zkd::server

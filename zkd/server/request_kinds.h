// SPDX-License-Identifier: Apache-2.0
// How the server routes a request by its opcode (request_dispatch.cc). An
// opcode that is neither a read nor a tree write, nor one the dispatcher
// answers itself (ping, auth, sasl, setWatches, closeSession, getEphemerals,
// whoAmI, reconfig, deleteContainer), is unimplemented: UNIMPLEMENTED (−6)
// with zxid −1, then the connection is closed, as Apache does for an unknown
// opcode (apache-behaviour.md, "Bad input").
#pragma once

#include "libzk/wire/protocol.h"

namespace zkd::server {

// Answered from this replica's tree by tree::Database::read: exists, getData,
// getACL, getChildren, getChildren2, sync, getAllChildrenNumber, multiRead,
// addWatch, checkWatches, removeWatches.
bool is_read(zk::wire::OpCode op);

// Prepared into a txn and committed: create, create2, createContainer,
// createTTL, delete, setData, setACL, multi. Not check (13): outside a multi
// Apache 3.9.3 treats it as an unknown opcode (ZOOKEEPER-2623's
// `Request.isValid`), and so does zkd; inside a multi it is a sub-op.
bool is_tree_write(zk::wire::OpCode op);

}  // namespace zkd::server

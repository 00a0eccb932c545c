// SPDX-License-Identifier: Apache-2.0
// The ACL check (Apache's ZooKeeperServer.checkACL, §10.4 of
// docs/wire-protocol.md): may a caller with these ids do what needs `perm` on a node
// with this ACL? Every operation that checks permissions asks this one
// function; which node and which bits each operation asks for is the
// preprocessor's and the read processor's business (§10.4's table).
#pragma once

#include <cstdint>

#include "libzk/wire/records.h"
#include "zkd/tree/auth_ids.h"

namespace zkd::tree {

// True when the node's ACL is empty, the caller is super, or some entry
// whose perms share a bit with `perm` is world:anyone or matches one of the
// caller's ids of the same scheme: digest by equal id, ip by address block
// (ip_acl.h). Entries of any other scheme never match.
// Always true once skip_acl_checks() was called.
bool permitted(const zk::wire::ACLs& node_acl, int32_t perm, const AuthIds& caller);

// Apache's zookeeper.skipACL, a switch for the whole process as Apache's is
// for its JVM: from now on permitted() allows everything. zkd's main calls it
// for skipACL=yes.
void skip_acl_checks();

}  // namespace zkd::tree

// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/request_kinds.h"

#include "libzk/wire/op_table.h"

namespace zkd::server {

using zk::wire::OpCode;
using zk::wire::OpKind;

bool is_read(OpCode op) { return zk::wire::op_kind(op) == OpKind::kRead; }

bool is_tree_write(OpCode op) { return zk::wire::op_kind(op) == OpKind::kWrite; }

bool refused_read_only(OpCode op) {
  const zk::wire::OpInfo* info = zk::wire::find_op(op);
  return info != nullptr && info->refused_read_only;
}

}  // namespace zkd::server

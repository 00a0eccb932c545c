// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/request_kinds.h"

namespace zkd::server {

using zk::wire::OpCode;

bool is_read(OpCode op) {
  switch (op) {
    case OpCode::kExists:
    case OpCode::kGetData:
    case OpCode::kGetACL:
    case OpCode::kGetChildren:
    case OpCode::kGetChildren2:
    case OpCode::kSync:
    case OpCode::kGetAllChildrenNumber:
    case OpCode::kMultiRead:
    case OpCode::kAddWatch:
    case OpCode::kCheckWatches:
    case OpCode::kRemoveWatches:
      return true;
    default:
      return false;
  }
}

bool is_tree_write(OpCode op) {
  switch (op) {
    case OpCode::kCreate:
    case OpCode::kCreate2:
    case OpCode::kCreateContainer:
    case OpCode::kCreateTTL:
    case OpCode::kDelete:
    case OpCode::kSetData:
    case OpCode::kSetACL:
    case OpCode::kMulti:
      return true;
    default:
      return false;
  }
}

}  // namespace zkd::server

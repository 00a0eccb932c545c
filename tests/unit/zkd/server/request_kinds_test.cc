// SPDX-License-Identifier: Apache-2.0
// The dispatcher's routes by opcode; check (13) alone is no write any more.
#include "zkd/server/request_kinds.h"

#include <gtest/gtest.h>

namespace zkd::server {
namespace {

using zk::wire::OpCode;

// Apache 3.9.3 (ZOOKEEPER-2623): a check outside a multi is an unknown
// opcode, answered UNIMPLEMENTED and closed, and takes no zxid.
TEST(RequestKinds, CheckAloneIsNeitherReadNorWrite) {
  EXPECT_FALSE(is_tree_write(OpCode::kCheck));
  EXPECT_FALSE(is_read(OpCode::kCheck));
  EXPECT_TRUE(is_tree_write(OpCode::kMulti));  // where check still works
}

TEST(RequestKinds, ReadsAndWrites) {
  for (OpCode op : {OpCode::kCreate, OpCode::kCreate2, OpCode::kCreateContainer, OpCode::kCreateTTL,
                    OpCode::kDelete, OpCode::kSetData, OpCode::kSetACL}) {
    EXPECT_TRUE(is_tree_write(op)) << static_cast<int>(op);
    EXPECT_FALSE(is_read(op)) << static_cast<int>(op);
  }
  for (OpCode op :
       {OpCode::kExists, OpCode::kGetData, OpCode::kGetACL, OpCode::kGetChildren,
        OpCode::kGetChildren2, OpCode::kSync, OpCode::kGetAllChildrenNumber, OpCode::kMultiRead,
        OpCode::kAddWatch, OpCode::kCheckWatches, OpCode::kRemoveWatches}) {
    EXPECT_TRUE(is_read(op)) << static_cast<int>(op);
    EXPECT_FALSE(is_tree_write(op)) << static_cast<int>(op);
  }
  for (OpCode op : {OpCode::kPing, OpCode::kAuth, OpCode::kCloseSession, OpCode::kSetWatches,
                    OpCode::kDeleteContainer, OpCode::kReconfig}) {
    EXPECT_FALSE(is_read(op)) << static_cast<int>(op);
    EXPECT_FALSE(is_tree_write(op)) << static_cast<int>(op);
  }
}

}  // namespace
}  // namespace zkd::server

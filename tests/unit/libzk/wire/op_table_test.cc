// SPDX-License-Identifier: Apache-2.0
// kOpTable (libzk/wire/op_table.h): one row per OpCode enumerator, found by
// its code, and the facts the server's routes used to hold in switches.
#include "libzk/wire/op_table.h"

#include <gtest/gtest.h>

#include <set>
#include <string_view>

namespace zk::wire {
namespace {

TEST(OpTable, EveryEnumeratorHasItsOwnRow) {
  size_t enumerators = 0;
  for (int32_t code = -1000; code <= 1000; ++code) {
    const auto op = static_cast<OpCode>(code);
    const OpInfo* info = find_op(op);
    EXPECT_EQ(info != nullptr, is_op_enumerator(op)) << code;
    if (info == nullptr) continue;
    ++enumerators;
    EXPECT_EQ(info->code, op) << code;
  }
  EXPECT_EQ(enumerators, kOpTable.size());
  std::set<std::string_view> names;
  for (const OpInfo& row : kOpTable) {
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_FALSE(row.tag.empty()) << row.name;
  }
}

TEST(OpTable, ValuesThatAreNoOpcode) {
  for (int32_t code : {10, 23, 99, 108, -2, -12, 256, -129, INT32_MAX, INT32_MIN}) {
    const auto op = static_cast<OpCode>(code);
    EXPECT_EQ(find_op(op), nullptr) << code;
    EXPECT_EQ(op_kind(op), OpKind::kUnsupported) << code;
    EXPECT_EQ(opcode_name(op), "unknown") << code;
  }
}

// As Apache's Request.op2String spells them (what zkd logged before the table).
TEST(OpTable, Names) {
  EXPECT_EQ(opcode_name(OpCode::kNotification), "notification");
  EXPECT_EQ(opcode_name(OpCode::kGetData), "getData");
  EXPECT_EQ(opcode_name(OpCode::kGetChildren2), "getChildren2");
  EXPECT_EQ(opcode_name(OpCode::kGetACL), "getACL");
  EXPECT_EQ(opcode_name(OpCode::kCreateTTL), "createTTL");
  EXPECT_EQ(opcode_name(OpCode::kGetAllChildrenNumber), "getAllChildrenNumber");
  EXPECT_EQ(opcode_name(OpCode::kWhoAmI), "whoAmI");
  EXPECT_EQ(opcode_name(OpCode::kCreateSession), "createSession");
  EXPECT_EQ(opcode_name(OpCode::kError), "error");
}

// cons' lop= tags (Apache's FinalRequestProcessor); NA where it sets none.
TEST(OpTable, Tags) {
  for (OpCode op :
       {OpCode::kCreate, OpCode::kCreate2, OpCode::kCreateContainer, OpCode::kCreateTTL})
    EXPECT_EQ(find_op(op)->tag, "CREA");
  EXPECT_EQ(find_op(OpCode::kDelete)->tag, "DELE");
  EXPECT_EQ(find_op(OpCode::kDeleteContainer)->tag, "DELE");
  EXPECT_EQ(find_op(OpCode::kGetChildren)->tag, "GETC");
  EXPECT_EQ(find_op(OpCode::kGetChildren2)->tag, "GETC");
  EXPECT_EQ(find_op(OpCode::kGetAllChildrenNumber)->tag, "GETACN");
  EXPECT_EQ(find_op(OpCode::kWhoAmI)->tag, "HOMI");
  EXPECT_EQ(find_op(OpCode::kSetWatches2)->tag, "STW2");
  EXPECT_EQ(find_op(OpCode::kCreateSession)->tag, "SESS");
  EXPECT_EQ(find_op(OpCode::kCloseSession)->tag, "CLOS");
  for (OpCode op : {OpCode::kNotification, OpCode::kAuth, OpCode::kSasl, OpCode::kError})
    EXPECT_EQ(find_op(op)->tag, "NA") << opcode_name(op);
}

TEST(OpTable, Kinds) {
  for (OpCode op :
       {OpCode::kExists, OpCode::kGetData, OpCode::kGetACL, OpCode::kGetChildren,
        OpCode::kGetChildren2, OpCode::kSync, OpCode::kGetAllChildrenNumber, OpCode::kMultiRead,
        OpCode::kAddWatch, OpCode::kCheckWatches, OpCode::kRemoveWatches})
    EXPECT_EQ(op_kind(op), OpKind::kRead) << opcode_name(op);
  for (OpCode op : {OpCode::kCreate, OpCode::kCreate2, OpCode::kCreateContainer, OpCode::kCreateTTL,
                    OpCode::kDelete, OpCode::kSetData, OpCode::kSetACL, OpCode::kMulti})
    EXPECT_EQ(op_kind(op), OpKind::kWrite) << opcode_name(op);
  for (OpCode op : {OpCode::kPing, OpCode::kAuth, OpCode::kSasl, OpCode::kSetWatches,
                    OpCode::kSetWatches2, OpCode::kCloseSession, OpCode::kGetEphemerals,
                    OpCode::kWhoAmI, OpCode::kReconfig, OpCode::kDeleteContainer})
    EXPECT_EQ(op_kind(op), OpKind::kServer) << opcode_name(op);
  // check alone: an unknown opcode since Apache 3.9.3 (ZOOKEEPER-2623).
  for (OpCode op : {OpCode::kCheck, OpCode::kNotification, OpCode::kCreateSession, OpCode::kError})
    EXPECT_EQ(op_kind(op), OpKind::kUnsupported) << opcode_name(op);
}

// Apache's ReadOnlyRequestProcessor: every change, sync and reconfig.
TEST(OpTable, RefusedReadOnly) {
  for (const OpInfo& row : kOpTable) {
    const bool change = row.kind == OpKind::kWrite || row.code == OpCode::kSync ||
                        row.code == OpCode::kReconfig || row.code == OpCode::kDeleteContainer ||
                        row.code == OpCode::kCheck;
    EXPECT_EQ(row.refused_read_only, change) << row.name;
  }
}

}  // namespace
}  // namespace zk::wire

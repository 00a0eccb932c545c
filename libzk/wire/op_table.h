// SPDX-License-Identifier: Apache-2.0
// What zk knows of each opcode, one row per OpCode enumerator: its name as
// Apache spells it, its cons/metrics tag, how zkd answers it and whether a
// read-only server refuses it. Code that only needs one of these facts looks
// the row up (find_op); code that runs different code per opcode switches
// over the enum with no `default:`, so that a new enumerator is a compile
// error (-Wswitch) until every such switch has a case for it, and handles a
// value that is no enumerator before or after the switch.
//
// Adding an opcode: the enumerator (protocol.h), its case in
// is_op_enumerator below, its row in kOpTable; the static_asserts at the end
// fail until the row is there exactly once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "libzk/wire/protocol.h"

namespace zk::wire {

// How zkd's dispatcher (zkd/server/request_dispatch.cc) answers a request.
enum class OpKind : uint8_t {
  // Answered from the replica's tree by tree::Database::read.
  kRead,
  // Prepared into a txn and committed (zkd/tree/preprocessor.cc).
  kWrite,
  // Answered by the dispatcher itself, each its own way: ping, auth, sasl,
  // setWatches, setWatches2, closeSession, getEphemerals, whoAmI, reconfig,
  // deleteContainer.
  kServer,
  // No request zkd answers: UNIMPLEMENTED (-6) with zxid -1, then the
  // connection is closed, as Apache does for an unknown opcode
  // (docs/apache-behaviour.md, "Bad input"). Also check (13): outside a multi
  // Apache 3.9.3 treats it as unknown (ZOOKEEPER-2623's `Request.isValid`);
  // inside a multi it is a sub-op.
  kUnsupported,
};

struct OpInfo {
  OpCode code;
  // Apache's Request.op2String spelling ("create", "getData", ...): logs,
  // storage dumps.
  std::string_view name;
  // The four-letter tag cons prints as lop= (Apache's FinalRequestProcessor):
  // CREA, GETD, ...; "NA" where Apache sets none.
  std::string_view tag;
  OpKind kind;
  // Apache's ReadOnlyRequestProcessor answers NOTREADONLY: every change, sync,
  // reconfig. (closeSession, answered by a read-only server without the
  // quorum, is the dispatcher's own case.)
  bool refused_read_only;
};

// clang-format off
inline constexpr auto kOpTable = std::to_array<OpInfo>({
    // code                          name                    tag       kind                   refused_read_only
    {OpCode::kNotification,         "notification",         "NA",     OpKind::kUnsupported, false},
    {OpCode::kCreate,               "create",               "CREA",   OpKind::kWrite,       true},
    {OpCode::kDelete,               "delete",               "DELE",   OpKind::kWrite,       true},
    {OpCode::kExists,               "exists",               "EXIS",   OpKind::kRead,        false},
    {OpCode::kGetData,              "getData",              "GETD",   OpKind::kRead,        false},
    {OpCode::kSetData,              "setData",              "SETD",   OpKind::kWrite,       true},
    {OpCode::kGetACL,               "getACL",               "GETA",   OpKind::kRead,        false},
    {OpCode::kSetACL,               "setACL",               "SETA",   OpKind::kWrite,       true},
    {OpCode::kGetChildren,          "getChildren",          "GETC",   OpKind::kRead,        false},
    {OpCode::kSync,                 "sync",                 "SYNC",   OpKind::kRead,        true},
    {OpCode::kPing,                 "ping",                 "PING",   OpKind::kServer,      false},
    {OpCode::kGetChildren2,         "getChildren2",         "GETC",   OpKind::kRead,        false},
    {OpCode::kCheck,                "check",                "CHEC",   OpKind::kUnsupported, true},
    {OpCode::kMulti,                "multi",                "MULT",   OpKind::kWrite,       true},
    {OpCode::kCreate2,              "create2",              "CREA",   OpKind::kWrite,       true},
    {OpCode::kReconfig,             "reconfig",             "RECO",   OpKind::kServer,      true},
    {OpCode::kCheckWatches,         "checkWatches",         "CHKW",   OpKind::kRead,        false},
    {OpCode::kRemoveWatches,        "removeWatches",        "REMW",   OpKind::kRead,        false},
    {OpCode::kCreateContainer,      "createContainer",      "CREA",   OpKind::kWrite,       true},
    {OpCode::kDeleteContainer,      "deleteContainer",      "DELE",   OpKind::kServer,      true},
    {OpCode::kCreateTTL,            "createTTL",            "CREA",   OpKind::kWrite,       true},
    {OpCode::kMultiRead,            "multiRead",            "MLTR",   OpKind::kRead,        false},
    {OpCode::kAuth,                 "auth",                 "NA",     OpKind::kServer,      false},
    {OpCode::kSetWatches,           "setWatches",           "SETW",   OpKind::kServer,      false},
    {OpCode::kSasl,                 "sasl",                 "NA",     OpKind::kServer,      false},
    {OpCode::kGetEphemerals,        "getEphemerals",        "GETE",   OpKind::kServer,      false},
    {OpCode::kGetAllChildrenNumber, "getAllChildrenNumber", "GETACN", OpKind::kRead,        false},
    {OpCode::kSetWatches2,          "setWatches2",          "STW2",   OpKind::kServer,      false},
    {OpCode::kAddWatch,             "addWatch",             "ADDW",   OpKind::kRead,        false},
    {OpCode::kWhoAmI,               "whoAmI",               "HOMI",   OpKind::kServer,      false},
    {OpCode::kCreateSession,        "createSession",        "SESS",   OpKind::kUnsupported, false},
    {OpCode::kCloseSession,         "closeSession",         "CLOS",   OpKind::kServer,      false},
    {OpCode::kError,                "error",                "NA",     OpKind::kUnsupported, false},
});
// clang-format on

// Whether op is one of OpCode's enumerators. The switch has no default: an
// enumerator added to OpCode without a case here is a compile error, and the
// static_asserts below then want its row in kOpTable.
constexpr bool is_op_enumerator(OpCode op) {
  switch (op) {
    case OpCode::kNotification:
    case OpCode::kCreate:
    case OpCode::kDelete:
    case OpCode::kExists:
    case OpCode::kGetData:
    case OpCode::kSetData:
    case OpCode::kGetACL:
    case OpCode::kSetACL:
    case OpCode::kGetChildren:
    case OpCode::kSync:
    case OpCode::kPing:
    case OpCode::kGetChildren2:
    case OpCode::kCheck:
    case OpCode::kMulti:
    case OpCode::kCreate2:
    case OpCode::kReconfig:
    case OpCode::kCheckWatches:
    case OpCode::kRemoveWatches:
    case OpCode::kCreateContainer:
    case OpCode::kDeleteContainer:
    case OpCode::kCreateTTL:
    case OpCode::kMultiRead:
    case OpCode::kAuth:
    case OpCode::kSetWatches:
    case OpCode::kSasl:
    case OpCode::kGetEphemerals:
    case OpCode::kGetAllChildrenNumber:
    case OpCode::kSetWatches2:
    case OpCode::kAddWatch:
    case OpCode::kWhoAmI:
    case OpCode::kCreateSession:
    case OpCode::kCloseSession:
    case OpCode::kError:
      return true;
  }
  return false;
}

namespace op_table_detail {

// Every enumerator must lie in [kLowest, kHighest] (Apache's lie in
// [-11, 107]): the count below sees only those, and find_op indexes a dense
// array by the code.
inline constexpr int32_t kLowest = -128;
inline constexpr int32_t kHighest = 255;
inline constexpr uint8_t kNoRow = 0xff;

constexpr std::array<uint8_t, kHighest - kLowest + 1> make_index() {
  std::array<uint8_t, kHighest - kLowest + 1> index{};
  for (uint8_t& row : index) row = kNoRow;
  for (size_t row = 0; row < kOpTable.size(); ++row) {
    index[static_cast<size_t>(static_cast<int32_t>(kOpTable[row].code) - kLowest)] =
        static_cast<uint8_t>(row);
  }
  return index;
}

inline constexpr auto kIndex = make_index();

constexpr bool rows_are_enumerators_once() {
  for (size_t i = 0; i < kOpTable.size(); ++i) {
    const int32_t code = static_cast<int32_t>(kOpTable[i].code);
    if (!is_op_enumerator(kOpTable[i].code) || code < kLowest || code > kHighest) return false;
    for (size_t j = 0; j < i; ++j) {
      if (kOpTable[j].code == kOpTable[i].code) return false;
    }
  }
  return true;
}

constexpr size_t enumerators_in_range() {
  size_t n = 0;
  for (int32_t code = kLowest; code <= kHighest; ++code) {
    if (is_op_enumerator(static_cast<OpCode>(code))) ++n;
  }
  return n;
}

}  // namespace op_table_detail

// The row of op; nullptr for a value that is no enumerator (a client may send
// any int32).
constexpr const OpInfo* find_op(OpCode op) {
  const int32_t code = static_cast<int32_t>(op);
  if (code < op_table_detail::kLowest || code > op_table_detail::kHighest) return nullptr;
  const uint8_t row = op_table_detail::kIndex[static_cast<size_t>(code - op_table_detail::kLowest)];
  return row == op_table_detail::kNoRow ? nullptr : &kOpTable[row];
}

// The kind of op; kUnsupported for a value that is no enumerator.
constexpr OpKind op_kind(OpCode op) {
  const OpInfo* info = find_op(op);
  return info == nullptr ? OpKind::kUnsupported : info->kind;
}

// Each row names an enumerator, none twice, and there are as many rows as
// enumerators (all of which lie in the index's range): every enumerator has
// exactly one row.
static_assert(op_table_detail::rows_are_enumerators_once(),
              "kOpTable: a row that is no OpCode enumerator, or one twice");
static_assert(op_table_detail::enumerators_in_range() == kOpTable.size(),
              "kOpTable: an OpCode enumerator without a row");

}  // namespace zk::wire

// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/op_tags.h"

namespace zkd::server {

std::string_view op_tag(zk::wire::OpCode op) {
  using zk::wire::OpCode;
  switch (op) {
    case OpCode::kCreate:
    case OpCode::kCreate2:
    case OpCode::kCreateContainer:
    case OpCode::kCreateTTL:
      return "CREA";
    case OpCode::kDelete:
    case OpCode::kDeleteContainer:
      return "DELE";
    case OpCode::kSetData:
      return "SETD";
    case OpCode::kReconfig:
      return "RECO";
    case OpCode::kSetACL:
      return "SETA";
    case OpCode::kMulti:
      return "MULT";
    case OpCode::kMultiRead:
      return "MLTR";
    case OpCode::kSync:
      return "SYNC";
    case OpCode::kExists:
      return "EXIS";
    case OpCode::kGetData:
      return "GETD";
    case OpCode::kGetACL:
      return "GETA";
    case OpCode::kGetChildren:
    case OpCode::kGetChildren2:
      return "GETC";
    case OpCode::kGetAllChildrenNumber:
      return "GETACN";
    case OpCode::kCheckWatches:
      return "CHKW";
    case OpCode::kRemoveWatches:
      return "REMW";
    case OpCode::kSetWatches:
      return "SETW";
    case OpCode::kSetWatches2:
      return "STW2";
    case OpCode::kAddWatch:
      return "ADDW";
    case OpCode::kGetEphemerals:
      return "GETE";
    case OpCode::kWhoAmI:
      return "HOMI";
    case OpCode::kCheck:
      return "CHEC";
    case OpCode::kPing:
      return "PING";
    case OpCode::kCreateSession:
      return "SESS";
    case OpCode::kCloseSession:
      return "CLOS";
    default:
      return "NA";
  }
}

}  // namespace zkd::server

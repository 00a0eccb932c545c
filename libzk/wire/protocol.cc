// SPDX-License-Identifier: Apache-2.0
#include "libzk/wire/protocol.h"

#include "libzk/wire/op_table.h"

namespace zk::wire {

std::string_view opcode_name(OpCode op) {
  const OpInfo* info = find_op(op);
  return info == nullptr ? "unknown" : info->name;
}

std::string_view error_name(Error e) {
  switch (e) {
    case Error::kOk:
      return "OK";
    case Error::kSystemError:
      return "SYSTEMERROR";
    case Error::kRuntimeInconsistency:
      return "RUNTIMEINCONSISTENCY";
    case Error::kDataInconsistency:
      return "DATAINCONSISTENCY";
    case Error::kConnectionLoss:
      return "CONNECTIONLOSS";
    case Error::kMarshallingError:
      return "MARSHALLINGERROR";
    case Error::kUnimplemented:
      return "UNIMPLEMENTED";
    case Error::kOperationTimeout:
      return "OPERATIONTIMEOUT";
    case Error::kBadArguments:
      return "BADARGUMENTS";
    case Error::kInvalidState:
      return "INVALIDSTATE";
    case Error::kUnknownSession:
      return "UNKNOWNSESSION";
    case Error::kNewConfigNoQuorum:
      return "NEWCONFIGNOQUORUM";
    case Error::kReconfigInProgress:
      return "RECONFIGINPROGRESS";
    case Error::kApiError:
      return "APIERROR";
    case Error::kNoNode:
      return "NONODE";
    case Error::kNoAuth:
      return "NOAUTH";
    case Error::kBadVersion:
      return "BADVERSION";
    case Error::kNoChildrenForEphemerals:
      return "NOCHILDRENFOREPHEMERALS";
    case Error::kNodeExists:
      return "NODEEXISTS";
    case Error::kNotEmpty:
      return "NOTEMPTY";
    case Error::kSessionExpired:
      return "SESSIONEXPIRED";
    case Error::kInvalidCallback:
      return "INVALIDCALLBACK";
    case Error::kInvalidACL:
      return "INVALIDACL";
    case Error::kAuthFailed:
      return "AUTHFAILED";
    case Error::kClosing:
      return "CLOSING";
    case Error::kNothing:
      return "NOTHING";
    case Error::kSessionMoved:
      return "SESSIONMOVED";
    case Error::kNotReadOnly:
      return "NOTREADONLY";
    case Error::kEphemeralOnLocalSession:
      return "EPHEMERALONLOCALSESSION";
    case Error::kNoWatcher:
      return "NOWATCHER";
    case Error::kRequestTimeout:
      return "REQUESTTIMEOUT";
    case Error::kReconfigDisabled:
      return "RECONFIGDISABLED";
    case Error::kSessionClosedRequireSaslAuth:
      return "SESSIONCLOSEDREQUIRESASLAUTH";
    case Error::kQuotaExceeded:
      return "QUOTAEXCEEDED";
    case Error::kThrottledOp:
      return "THROTTLEDOP";
    case Error::kReplyTooLarge:
      return "REPLYTOOLARGE";
  }
  return "UNKNOWN";
}

std::string_view error_message(Error e) {
  switch (e) {
    case Error::kOk:
      return "ok";
    case Error::kConnectionLoss:
      return "KeeperErrorCode = ConnectionLoss";
    case Error::kMarshallingError:
      return "KeeperErrorCode = MarshallingError";
    case Error::kUnimplemented:
      return "KeeperErrorCode = Unimplemented";
    case Error::kOperationTimeout:
      return "KeeperErrorCode = OperationTimeout";
    case Error::kBadArguments:
      return "KeeperErrorCode = BadArguments";
    case Error::kNoNode:
      return "KeeperErrorCode = NoNode";
    case Error::kNoAuth:
      return "KeeperErrorCode = NoAuth";
    case Error::kBadVersion:
      return "KeeperErrorCode = BadVersion";
    case Error::kNoChildrenForEphemerals:
      return "KeeperErrorCode = NoChildrenForEphemerals";
    case Error::kNodeExists:
      return "KeeperErrorCode = NodeExists";
    case Error::kNotEmpty:
      return "KeeperErrorCode = Directory not empty";
    case Error::kSessionExpired:
      return "KeeperErrorCode = Session expired";
    case Error::kInvalidACL:
      return "KeeperErrorCode = InvalidACL";
    case Error::kAuthFailed:
      return "KeeperErrorCode = AuthFailed";
    case Error::kSessionMoved:
      return "KeeperErrorCode = Session moved";
    case Error::kNotReadOnly:
      return "KeeperErrorCode = Not a read-only call";
    case Error::kNoWatcher:
      return "KeeperErrorCode = No such watcher";
    case Error::kRequestTimeout:
      return "KeeperErrorCode = Request timeout";
    case Error::kThrottledOp:
      return "KeeperErrorCode = Op throttled due to high load";
    case Error::kSessionClosedRequireSaslAuth:
      return "KeeperErrorCode = Session closed because client failed to authenticate";
    case Error::kReplyTooLarge:
      return "Reply longer than the client's jute.maxbuffer";
    default:
      return "KeeperErrorCode = Unknown error";
  }
}

std::string_view keeper_state_name(KeeperState s) {
  switch (s) {
    case KeeperState::kDisconnected:
      return "Disconnected";
    case KeeperState::kSyncConnected:
      return "SyncConnected";
    case KeeperState::kAuthFailed:
      return "AuthFailed";
    case KeeperState::kConnectedReadOnly:
      return "ConnectedReadOnly";
    case KeeperState::kClosed:
      return "Closed";
    case KeeperState::kExpired:
      return "Expired";
  }
  return "Unknown";
}

std::string_view event_type_name(EventType t) {
  switch (t) {
    case EventType::kNone:
      return "None";
    case EventType::kNodeCreated:
      return "NodeCreated";
    case EventType::kNodeDeleted:
      return "NodeDeleted";
    case EventType::kNodeDataChanged:
      return "NodeDataChanged";
    case EventType::kNodeChildrenChanged:
      return "NodeChildrenChanged";
    case EventType::kDataWatchRemoved:
      return "DataWatchRemoved";
    case EventType::kChildWatchRemoved:
      return "ChildWatchRemoved";
    case EventType::kPersistentWatchRemoved:
      return "PersistentWatchRemoved";
  }
  return "Unknown";
}

}  // namespace zk::wire

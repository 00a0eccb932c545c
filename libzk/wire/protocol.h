// SPDX-License-Identifier: Apache-2.0
// Numbers of the ZooKeeper 3.8 client protocol: opcodes, special xids, error
// codes, watch event types and states, create flags, permissions.
// Source of truth: docs/wire-protocol.md §3, §4, §6, §8, §9, §10.
#pragma once

#include <cstdint>
#include <string_view>

namespace zk::wire {

enum class OpCode : int32_t {
  kNotification = 0,
  kCreate = 1,
  kDelete = 2,
  kExists = 3,
  kGetData = 4,
  kSetData = 5,
  kGetACL = 6,
  kSetACL = 7,
  kGetChildren = 8,
  kSync = 9,
  kPing = 11,
  kGetChildren2 = 12,
  kCheck = 13,
  kMulti = 14,
  kCreate2 = 15,
  kReconfig = 16,
  kCheckWatches = 17,
  kRemoveWatches = 18,
  kCreateContainer = 19,
  kDeleteContainer = 20,
  kCreateTTL = 21,
  kMultiRead = 22,
  kAuth = 100,
  kSetWatches = 101,
  kSasl = 102,
  kGetEphemerals = 103,
  kGetAllChildrenNumber = 104,
  kSetWatches2 = 105,
  kAddWatch = 106,
  kWhoAmI = 107,
  kCreateSession = -10,
  kCloseSession = -11,
  kError = -1,
};

// Name of an opcode as Apache spells it in logs ("create", "getData", ...).
std::string_view opcode_name(OpCode op);

// Special xids (§3.2).
inline constexpr int32_t kNotificationXid = -1;
inline constexpr int32_t kPingXid = -2;
inline constexpr int32_t kAuthXid = -4;
inline constexpr int32_t kSetWatchesXid = -8;

enum class Error : int32_t {
  kOk = 0,
  kSystemError = -1,
  kRuntimeInconsistency = -2,
  kDataInconsistency = -3,
  kConnectionLoss = -4,
  kMarshallingError = -5,
  kUnimplemented = -6,
  kOperationTimeout = -7,
  kBadArguments = -8,
  kInvalidState = -9,
  kUnknownSession = -12,
  kNewConfigNoQuorum = -13,
  kReconfigInProgress = -14,
  kApiError = -100,
  kNoNode = -101,
  kNoAuth = -102,
  kBadVersion = -103,
  kNoChildrenForEphemerals = -108,
  kNodeExists = -110,
  kNotEmpty = -111,
  kSessionExpired = -112,
  kInvalidCallback = -113,
  kInvalidACL = -114,
  kAuthFailed = -115,
  kClosing = -116,
  kNothing = -117,
  kSessionMoved = -118,
  kNotReadOnly = -119,
  kEphemeralOnLocalSession = -120,
  kNoWatcher = -121,
  kRequestTimeout = -122,
  kReconfigDisabled = -123,
  kSessionClosedRequireSaslAuth = -124,
  kQuotaExceeded = -125,
  kThrottledOp = -127,
  // Client-local, never sent by a server: the reply to this request was
  // longer than the client's jute.maxbuffer (ClientOptions::max_reply_bytes);
  // the request may have taken effect, and the connection is kept.
  kReplyTooLarge = -1001,
};

// Apache's upper-case name ("NONODE"); "UNKNOWN" for codes it does not define.
std::string_view error_name(Error e);
// Apache's message for a code ("KeeperErrorCode = NoNode").
std::string_view error_message(Error e);

enum class EventType : int32_t {
  kNone = -1,
  kNodeCreated = 1,
  kNodeDeleted = 2,
  kNodeDataChanged = 3,
  kNodeChildrenChanged = 4,
  // Client-local, after removeWatches (§9.1); never sent by a server.
  kDataWatchRemoved = 5,
  kChildWatchRemoved = 6,
  kPersistentWatchRemoved = 7,
};
std::string_view event_type_name(EventType t);  // "NodeCreated", ...

// addWatch (106) modes (§9.4).
enum class AddWatchMode : int32_t {
  kPersistent = 0,
  kPersistentRecursive = 1,
};

// checkWatches (17) / removeWatches (18) types (§4.2, §9.4; 3.8 has no 4, 5).
enum class WatcherType : int32_t {
  kChildren = 1,
  kData = 2,
  kAny = 3,
};

enum class KeeperState : int32_t {
  kDisconnected = 0,
  kSyncConnected = 3,
  kAuthFailed = 4,
  kConnectedReadOnly = 5,
  kClosed = 7,
  kExpired = -112,
};
std::string_view keeper_state_name(KeeperState s);  // "SyncConnected", ...

// Create flags (§6.1).
enum class CreateMode : int32_t {
  kPersistent = 0,
  kEphemeral = 1,
  kPersistentSequential = 2,
  kEphemeralSequential = 3,
  kContainer = 4,
  kPersistentWithTTL = 5,
  kPersistentSequentialWithTTL = 6,
};
inline bool is_ephemeral(CreateMode m) {
  return m == CreateMode::kEphemeral || m == CreateMode::kEphemeralSequential;
}
inline bool is_sequential(CreateMode m) {
  return m == CreateMode::kPersistentSequential || m == CreateMode::kEphemeralSequential ||
         m == CreateMode::kPersistentSequentialWithTTL;
}

namespace perms {
inline constexpr int32_t kRead = 1;
inline constexpr int32_t kWrite = 2;
inline constexpr int32_t kCreate = 4;
inline constexpr int32_t kDelete = 8;
inline constexpr int32_t kAdmin = 16;
inline constexpr int32_t kAll = 31;
}  // namespace perms

}  // namespace zk::wire

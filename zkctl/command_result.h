// SPDX-License-Identifier: Apache-2.0
// What a command produced, before it is rendered (output_format.h): one
// struct per kind of success, and CommandFailure for everything that went wrong.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "zkctl/command.h"
#include "zkctl/exit_code.h"

namespace zkctl {

struct CreatedResult {
  std::string path;  // the path the server created (with sequence suffix)
};

struct DataResult {
  std::string path;
  std::string data;  // raw bytes
  std::optional<zk::wire::Stat> stat;
  bool null_data = false;                    // the server holds null, not empty, data
  DataEncoding output = DataEncoding::kRaw;  // how human output shows `data`
};

struct SetResult {
  std::string path;
  zk::wire::Stat stat;
  bool show_stat = false;  // human output prints the Stat only when asked
};

struct ChildrenResult {
  std::string path;
  std::vector<std::string> children;  // sorted
  std::optional<zk::wire::Stat> stat;
};

struct StatResult {
  std::string path;
  zk::wire::Stat stat;
};

struct ExistsResult {
  std::string path;
  bool exists = false;
};

struct DeletedResult {
  std::string path;
  int64_t count = 1;  // nodes removed (deleteall counts the subtree)
};

struct SyncedResult {
  std::string path;
};

struct WatchEventResult {
  zk::wire::EventType type = zk::wire::EventType::kNone;
  std::string path;
};

struct AclResult {
  std::string path;
  zk::wire::ACLs acl;  // as the server sent it (digests masked without ADMIN)
  std::optional<zk::wire::Stat> stat;
};

struct AuthAddedResult {
  std::string scheme;
};

struct WatchesRemovedResult {
  std::string path;
};

// ls -R: PATH and every descendant, breadth first.
struct TreeResult {
  std::string path;
  std::vector<std::string> paths;
};

struct WhoAmIResult {
  std::vector<zk::wire::ClientInfo> ids;
};

struct EphemeralsResult {
  std::string path;                // the prefix asked for; "" for all
  std::vector<std::string> paths;  // sorted
};

struct ChildCountResult {
  std::string path;
  int64_t count = 0;
};

// listquota: the quota's zookeeper_limits and zookeeper_stats values by
// StatsTrack key ("count", "bytes", "countHardLimit", "byteHardLimit").
struct QuotaResult {
  std::string path;
  std::vector<std::pair<std::string, int64_t>> limits;
  std::vector<std::pair<std::string, int64_t>> usage;
};

// setquota, delquota, addWatch: done, nothing to show.
struct DoneResult {
  std::string command;
  std::string path;
};

// config, reconfig: /zookeeper/config's text (or, for config -c, the
// version and the client addresses).
struct ConfigResult {
  std::string text;
  std::optional<zk::wire::Stat> stat;
};

// version: the tool's version line.
struct VersionResult {
  std::string version;
};

// A watch an earlier command left set (get -w, addWatch, ...) fired.
struct FiredWatchResult {
  zk::wire::EventType type = zk::wire::EventType::kNone;
  zk::wire::KeeperState state = zk::wire::KeeperState::kSyncConnected;
  std::string path;
};

using CommandResult =
    std::variant<CreatedResult, DataResult, SetResult, ChildrenResult, StatResult, ExistsResult,
                 DeletedResult, SyncedResult, WatchEventResult, AclResult, AuthAddedResult,
                 WatchesRemovedResult, TreeResult, WhoAmIResult, EphemeralsResult, ChildCountResult,
                 QuotaResult, DoneResult, ConfigResult, VersionResult, FiredWatchResult>;

// A failed command. `zk_error` is set when the server or client library
// reported a ZooKeeper error; otherwise `name` says what happened
// ("CONNECT_FAILED", "WATCH_TIMEOUT", "DATA_FILE", ...).
struct CommandFailure {
  ExitCode exit_code = ExitCode::kError;
  std::optional<zk::wire::Error> zk_error;
  std::string name;     // "NONODE", "CONNECT_FAILED", ...
  std::string command;  // "get", ...; empty when not about one command
  std::string path;     // may be empty
  std::string message;  // human sentence without the path
};

// The failure for a ZooKeeper error on `path` (exit code per exit_code_for).
CommandFailure failure_from_zk(zk::wire::Error e, std::string path);

// The exit code of an `exists` result: kOk or kNoNode.
inline ExitCode exit_code_of(const CommandResult& r) {
  if (const auto* e = std::get_if<ExistsResult>(&r); e != nullptr && !e->exists) {
    return ExitCode::kNoNode;
  }
  return ExitCode::kOk;
}

}  // namespace zkctl

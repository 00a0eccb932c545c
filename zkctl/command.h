// SPDX-License-Identifier: Apache-2.0
// The commands zkctl runs, as parsed values (see command_parser.h for the
// grammar). One struct per command; `Command` is their sum. Paths are kept as
// typed: the server (or the client library) validates them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"

namespace zkctl {

// How node data is written on the command line or printed: as the bytes
// themselves, or as base64 or hex text (for binary data).
enum class DataEncoding { kRaw, kBase64, kHex };

// Node data as given on the command line: a literal, or "@FILE" meaning the
// contents of FILE ("@@x" is the literal "@x"), decoded per `encoding`.
// Resolved when the command runs.
struct DataArgument {
  enum class Source { kLiteral, kFile };
  Source source = Source::kLiteral;
  std::string value;  // the literal bytes, or the file name
  DataEncoding encoding = DataEncoding::kRaw;
  bool operator==(const DataArgument&) const = default;
};

// Interprets one data word: "@FILE" -> file, "@@rest" -> literal "@rest".
DataArgument data_argument_from_word(const std::string& word);

inline constexpr int32_t kAnyVersion = -1;

struct CreateCommand {
  std::string path;
  std::optional<DataArgument> data;  // omitted: the node gets null data, as with zkCli
  bool ephemeral = false;
  bool sequential = false;
  bool container = false;             // -c: deleted by the server once emptied
  std::optional<int64_t> ttl_ms;      // -t: a TTL node (persistent, perhaps sequential)
  std::optional<zk::wire::ACLs> acl;  // none: world:anyone:cdrwa, as zkCli
  bool operator==(const CreateCommand&) const = default;
};

// `watch` on get, ls, stat and config (zkCli's -w): a one-shot watch is left
// set; its event is printed when it fires (CommandRunner::take_fired_watches).
struct GetCommand {
  std::string path;
  bool with_stat = false;
  bool watch = false;
  DataEncoding output = DataEncoding::kRaw;  // --base64 / --hex: human output encoded
  bool operator==(const GetCommand&) const = default;
};

struct SetCommand {
  std::string path;
  DataArgument data;
  int32_t version = kAnyVersion;
  bool with_stat = false;
  bool operator==(const SetCommand&) const = default;
};

struct LsCommand {
  std::string path;
  bool with_stat = false;  // also the Stat of PATH itself
  bool watch = false;
  bool recursive = false;  // -R: every path of the subtree, breadth first (zkCli's ls -R)
  bool operator==(const LsCommand&) const = default;
};

struct StatCommand {
  std::string path;
  bool watch = false;
  bool operator==(const StatCommand&) const = default;
};

struct ExistsCommand {
  std::string path;
  bool operator==(const ExistsCommand&) const = default;
};

struct DeleteCommand {
  std::string path;
  int32_t version = kAnyVersion;
  bool operator==(const DeleteCommand&) const = default;
};

struct DeleteAllCommand {
  std::string path;
  int batch = 0;  // -b N: deletes in multis of up to N; 0: one delete request per node
  bool operator==(const DeleteAllCommand&) const = default;
};

enum class WatchKind {
  kData,      // getData watch: NodeDataChanged, NodeDeleted
  kChildren,  // getChildren watch: NodeChildrenChanged, NodeDeleted
  kExists,    // exists watch (the node may be missing): NodeCreated, NodeDataChanged, NodeDeleted
};

struct WatchCommand {
  std::string path;
  WatchKind kind = WatchKind::kData;
  // Set: one addWatch of this mode instead of `kind`, printing every event
  // (of PATH, or of PATH and its descendants when recursive).
  std::optional<zk::wire::AddWatchMode> persistent;
  // Events to print; a one-shot watch is re-armed in between. 0 (persistent
  // only): until interrupted.
  int count = 1;
  std::optional<int64_t> timeout_ms;  // per event; none = wait forever
  bool operator==(const WatchCommand&) const = default;
};

// removeWatches of this session's watches on PATH (zkCli's removewatches).
struct RemoveWatchesCommand {
  std::string path;
  zk::wire::WatcherType type = zk::wire::WatcherType::kAny;
  bool local = false;  // remove here even if the server cannot be reached
  bool operator==(const RemoveWatchesCommand&) const = default;
};

struct SyncCommand {
  std::string path;
  bool operator==(const SyncCommand&) const = default;
};

// Adds a credential to the session (zkCli's addauth), e.g. digest
// "alice:pw"; it counts for the commands after it in a script or interactive
// session (a one-shot zkctl has none after it).
struct AddAuthCommand {
  std::string scheme;
  std::string auth;
  bool operator==(const AddAuthCommand&) const = default;
};

struct GetAclCommand {
  std::string path;
  bool with_stat = false;
  bool operator==(const GetAclCommand&) const = default;
};

struct SetAclCommand {
  std::string path;
  zk::wire::ACLs acl;             // parsed from zkCli's syntax (acl_text.h)
  int32_t version = kAnyVersion;  // expected ACL version (aversion)
  bool with_stat = false;
  bool recursive = false;  // -R: PATH and every descendant
  bool operator==(const SetAclCommand&) const = default;
};

// zkCli's addWatch: a persistent watch left set (default recursive, as zkCli);
// its events are printed as they fire. zkctl's `watch --persistent` waits instead.
struct AddWatchCommand {
  std::string path;
  zk::wire::AddWatchMode mode = zk::wire::AddWatchMode::kPersistentRecursive;
  bool operator==(const AddWatchCommand&) const = default;
};

// The ids the connection is authenticated as (whoAmI).
struct WhoAmICommand {
  bool operator==(const WhoAmICommand&) const = default;
};

// The session's ephemeral nodes under PATH ("" or "/": all).
struct GetEphemeralsCommand {
  std::string path;
  bool operator==(const GetEphemeralsCommand&) const = default;
};

// How many descendants PATH has, at every depth.
struct GetAllChildrenNumberCommand {
  std::string path;
  bool operator==(const GetAllChildrenNumberCommand&) const = default;
};

// The four limits of a quota, as zkCli's options name them.
enum class QuotaLimit {
  kCount,           // -n: soft limit on the number of nodes
  kBytes,           // -b: soft limit on the bytes of data
  kCountHardLimit,  // -N: hard limit on the number of nodes
  kByteHardLimit,   // -B: hard limit on the bytes of data
};

// setquota: sets one limit of PATH's quota, creating the quota if needed
// (zkCli's createQuota: refused under a path or above one that has a quota).
struct SetQuotaCommand {
  std::string path;
  QuotaLimit limit = QuotaLimit::kCount;
  int64_t value = 0;
  bool operator==(const SetQuotaCommand&) const = default;
};

// listquota: the limits and the usage of PATH's quota.
struct ListQuotaCommand {
  std::string path;
  bool operator==(const ListQuotaCommand&) const = default;
};

// delquota: without a limit the whole quota goes; with one, that limit is unset.
struct DelQuotaCommand {
  std::string path;
  std::optional<QuotaLimit> limit;
  bool operator==(const DelQuotaCommand&) const = default;
};

// config: the ensemble's membership as /zookeeper/config holds it.
struct ConfigCommand {
  bool client_only = false;  // -c: only the version and the client addresses
  bool watch = false;
  bool with_stat = false;
  bool operator==(const ConfigCommand&) const = default;
};

// reconfig: servers joining and leaving, or a whole new membership (from
// -members or the server.N lines of -file); `from_config` is the version
// (hex, as zkCli reads it) the change applies to, -1 any.
struct ReconfigCommand {
  std::string joining;  // "server.N=host:port:port[:role];[host:]port,..."
  std::string leaving;  // "N,M"
  std::string members;
  int64_t from_config = -1;
  bool with_stat = false;
  bool operator==(const ReconfigCommand&) const = default;
};

using Command =
    std::variant<CreateCommand, GetCommand, SetCommand, LsCommand, StatCommand, ExistsCommand,
                 DeleteCommand, DeleteAllCommand, WatchCommand, RemoveWatchesCommand, SyncCommand,
                 AddAuthCommand, GetAclCommand, SetAclCommand, AddWatchCommand, WhoAmICommand,
                 GetEphemeralsCommand, GetAllChildrenNumberCommand, SetQuotaCommand,
                 ListQuotaCommand, DelQuotaCommand, ConfigCommand, ReconfigCommand>;

// The command's name as zkCli spells it ("create", "getAcl", ...).
const char* command_name(const Command& c);
// The PATH argument of the command; "" for one without (addauth, whoami).
const std::string& command_path(const Command& c);

}  // namespace zkctl

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

// Node data as given on the command line: a literal, or "@FILE" meaning the
// contents of FILE ("@@x" is the literal "@x"). Resolved when the command runs.
struct DataArgument {
  enum class Source { kLiteral, kFile };
  Source source = Source::kLiteral;
  std::string value;  // the literal bytes, or the file name
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
  bool operator==(const CreateCommand&) const = default;
};

struct GetCommand {
  std::string path;
  bool with_stat = false;
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
  bool operator==(const LsCommand&) const = default;
};

struct StatCommand {
  std::string path;
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
  bool operator==(const SetAclCommand&) const = default;
};

using Command =
    std::variant<CreateCommand, GetCommand, SetCommand, LsCommand, StatCommand, ExistsCommand,
                 DeleteCommand, DeleteAllCommand, WatchCommand, RemoveWatchesCommand, SyncCommand,
                 AddAuthCommand, GetAclCommand, SetAclCommand>;

// The command's name as typed ("create", "deleteall", ...).
const char* command_name(const Command& c);
// The PATH argument of the command; "" for one without (addauth).
const std::string& command_path(const Command& c);

}  // namespace zkctl

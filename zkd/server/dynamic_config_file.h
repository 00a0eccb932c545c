// SPDX-License-Identifier: Apache-2.0
// Apache's dynamic configuration files (3.5+, reconfigEnabled): after a
// membership change commits, every server writes `<zoo.cfg>.dynamic.<version
// in hex>` with the new membership's server lines and rewrites its zoo.cfg
// to point `dynamicConfigFile` at it (Apache's QuorumPeer.setQuorumVerifier,
// QuorumPeerConfig.writeDynamicConfig and editStaticConfig). zkd writes the
// same files, so that the lines operators' scripts read are the ensemble's
// and Apache can take a zkd server's data dir and zoo.cfg back
// (docs/replication.md, "Reconfiguration"; docs/migration.md).
//
// The text functions are pure; the writers go through storage::Env, each
// file replaced atomically and durably (storage/durable_file.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "zkd/server/reconfig.h"
#include "zkd/status/status.h"
#include "zkd/storage/env.h"

namespace zkd::server {

// `<zoo_cfg>.dynamic.<version in lower-case hex>`, as Apache names it.
std::filesystem::path dynamic_file_path(const std::filesystem::path& zoo_cfg, int64_t version);

// The dynamic file's text: "server.N=<quorum_server_text>" per server, with
// no version line, the whole lines sorted as strings (server.10= before
// server.1=, which is before server.2=) and joined
// with "\n", with no final line end (Apache's writeDynamicConfig).
std::string dynamic_file_text(const QuorumServers& servers);

// Apache's needEraseClientInfoFromStaticConfig: this server's line in the
// new membership names a client port, so clientPort and clientPortAddress
// leave zoo.cfg (the line is where they live from now on).
bool erase_client_port(const QuorumServers& servers, int64_t my_id);

// zoo.cfg rewritten as Apache's editStaticConfig does: every key of
// `zoo_cfg` (read as java.util.Properties reads it: the last value of a key
// counts; comments go) but those starting with server., group, weight,
// dynamicConfigFile or peerType (and, with `erase_client`, clientPort, which
// takes clientPortAddress and clientPortListenBacklog with it, as Apache's
// prefix test does) as "key=value\n", then
// "dynamicConfigFile=<dynamic_file>\n". Apache's order is its hash table's;
// zkd keeps the file's order of first appearance.
std::string static_file_text(std::string_view zoo_cfg, std::string_view dynamic_file,
                             bool erase_client);

// Writes `dynamic_file_path(zoo_cfg, version)` with `servers`, then rewrites
// `zoo_cfg` to point at it by its canonical path (static_file_text). The
// client port is erased when erase_client_port says so for `my_id`, or when
// zoo.cfg's own server line for `my_id` names one: Apache would have
// rewritten that zoo.cfg at its first election, with that line (zkd leaves
// it until the first reconfiguration: docs/replication.md). A
// `<zoo_cfg>.dynamic.next` (Apache's proposed configuration; zkd writes
// none) is then removed, as Apache removes it on a commit. Each file is written under a .tmp name,
// synced, renamed and its directory synced. An error names the file.
Status write_dynamic_config(storage::Env& env, const std::filesystem::path& zoo_cfg,
                            const QuorumServers& servers, int64_t version, int64_t my_id);

// Apache's backupOldConfig: a copy of `zoo_cfg` as `<zoo_cfg>.bak` (written
// at start by a replicated server with reconfigEnabled whose zoo.cfg holds
// the server lines itself, before anything rewrites it).
Status back_up_static_config(storage::Env& env, const std::filesystem::path& zoo_cfg);

}  // namespace zkd::server

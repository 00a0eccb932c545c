// SPDX-License-Identifier: Apache-2.0
// Apache 3.8's admin server commands (org.apache.zookeeper.server.admin.
// Commands): each has a primary name and aliases ("monitor", "mntr"), and
// answers a JSON object with the command's fields followed by "command" (the
// primary name) and "error" (null, or why it failed), printed as Apache's
// Jackson does (jackson_json.h). The figures come from a ServerView, the same
// ones the four-letter words print.
//
// Apache's rules kept here: an unknown name answers
// {"command": <name>, "error": "Unknown command: <name>"}; a command that
// needs a serving server answers "This ZooKeeper instance is not currently
// serving requests" while it does not serve; a command that fails itself
// (leader when standalone, set_trace_mask without traceMask) puts "error"
// first. The HTTP status is 200 in every case, as Apache's.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "zkd/view/server_view.h"

namespace zkd::admin {

// The primary names, sorted (what GET <commandURL> lists).
std::vector<std::string> command_names();

// Runs `name` (primary name or alias) with the request's query parameters
// (set_trace_mask reads "traceMask") and returns the JSON text. Call on the
// server's state thread.
std::string run_command(ServerView& view, std::string_view name,
                        const std::map<std::string, std::string>& args);

// GET <commandURL>: one link per command, as Apache's servlet prints them:
// `<a href="<url>/<name>"><name></a>\n<br/>\n`; with `backup`, snapshot and
// restore (backup_commands.h) among them, as Apache 3.9 lists them; with
// `shed`, shed_connections (shed_command.h), as Apache 3.10 does.
std::string command_links(std::string_view command_url, bool backup, bool shed);

}  // namespace zkd::admin

// SPDX-License-Identifier: Apache-2.0
// zklab add, remove and reconfig: the lab's membership changed the way an
// operator changes an ensemble's, with the reconfig request (Apache 3.5+'s
// dynamic reconfiguration) sent by the lab's superuser (every lab's zoo.cfg
// has reconfigEnabled=true and the superuser super:zklab, kLabSuperUser).
//
// `zklab add` writes the next node (n<id>/, its zoo.cfg naming the current
// members and itself, with their real peer ports: no relay, so no network
// fault on its links), starts it, adds it with a reconfig and waits until it
// serves. `zklab remove N` takes node N out (it keeps running, following
// without a vote as Apache's removed servers do, until stopped; `zklab add`
// brings such a node back when it is named: `zklab add --node N`). The nemesis of `zklab check`
// uses reconfigure().
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "libzk/wire/records.h"
#include "zklab/tool/lab_commands.h"
#include "zklab/tool/lab_state.h"

namespace zk::lab {

// user:password of the lab's superuser (its digest is in every zoo.cfg).
inline constexpr const char* kLabSuperUser = "super:zklab";
// The zoo.cfg lines that allow reconfiguration by that superuser; without
// `enabled`, only the superuser's (a lab of Apache's peer protocol).
std::string lab_reconfig_config(bool enabled = true);

// Sends `request` through a session on any node of `nodes` it does not
// remove (a node that leaves closes its clients before the answer leaves),
// as the lab's superuser. The new /zookeeper/config text, or an error ("error: ...").
struct ReconfigOutcome {
  bool ok = false;
  std::string text;  // ok: the new configuration; else why not
};
ReconfigOutcome reconfigure(const LabContext& ctx, const std::vector<LabNode>& nodes,
                            const zk::wire::ReconfigRequest& request);
// reconfigure() again while it fails and `done` (what to look for when the
// answer was lost, or a change just before left the leader short of synced
// followers) is false, until ctx.deadline; the last outcome (ok when `done`).
ReconfigOutcome reconfigure_until(const LabContext& ctx, const std::vector<LabNode>& nodes,
                                  const zk::wire::ReconfigRequest& request,
                                  const std::function<bool()>& done);

// The ids /zookeeper/config names now (read from any node after a sync);
// empty when no node answers.
std::vector<int> lab_member_ids(const LabContext& ctx, const std::vector<LabNode>& nodes);

// Node `id`'s server line (its real ports; `observer`: as an observer).
std::string lab_server_line(const LabNode& node, bool observer);

// zklab add [--observer] [--node N]: a new node (or node N, removed before)
// joins.
LabExit lab_add(const LabContext& ctx, bool observer, int node);
// zklab remove NODE.
LabExit lab_remove(const LabContext& ctx, const std::string& node);
// zklab reconfig: the request as given (--add LINE, --remove IDS, --members
// LINES, --from VERSION).
LabExit lab_reconfig(const LabContext& ctx, const zk::wire::ReconfigRequest& request);

}  // namespace zk::lab

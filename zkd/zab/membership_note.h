// SPDX-License-Identifier: Apache-2.0
// A committed membership and its version as text, for the payload of the
// messages that carry it (internal to zkd/zab): a Vote (the sender's, so
// that a server that missed reconfigurations learns them, as Apache's
// notifications carry their configuration) and an UpToDate (the leader's,
// with the version its first establishment gives a version-0 membership:
// Apache's ZOOKEEPER-1783). "<version hex>:<voter>,...;<observer>,...";
// version 0 is the one a configuration file names (zkd before join-then-vote
// sent none at version 0, and ignores one).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "zkd/zab/config.h"
#include "zkd/zab/types.h"

namespace zkd::zab {

std::string membership_note(const Config& c);
// Nothing for text that is no note.
std::optional<std::pair<Membership, Zxid>> read_membership_note(const std::string& note);

}  // namespace zkd::zab

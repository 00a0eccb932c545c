// SPDX-License-Identifier: Apache-2.0
// Deleting the znodes of a `zklab check` run (best effort): a run leaves
// thousands of sequential children, and one session's pipelined deletes are
// slow, so the children go in parallel over several sessions, each with many
// deletes in flight.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "toolkit/client_security.h"

namespace zk::lab::check {

// Deletes every child of each of `parents`, then `then` in order (children
// before their parents). `connect_strings`: one session per string, each
// deleting its share. Returns how many deletes failed or did not answer
// within `deadline` (each batch of deletes of a session gets `deadline`).
// `security`: the sessions' TLS and SASL.
int delete_tree(const std::vector<std::string>& connect_strings,
                const std::vector<std::string>& parents, const std::vector<std::string>& then,
                std::chrono::milliseconds session_timeout, std::chrono::milliseconds deadline,
                const toolkit::ClientSecurity& security);

}  // namespace zk::lab::check

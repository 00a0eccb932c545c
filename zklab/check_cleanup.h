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

namespace boost::asio::ssl {
class context;
}

namespace zk::lab::check {

// Deletes every child of each of `parents`, then `then` in order (children
// before their parents). `connect_strings`: one session per string, each
// deleting its share. Returns how many deletes failed or did not answer
// within `deadline` (each batch of deletes of a session gets `deadline`).
// `tls`: the sessions' TLS context (null: plaintext).
int delete_tree(const std::vector<std::string>& connect_strings,
                const std::vector<std::string>& parents, const std::vector<std::string>& then,
                std::chrono::milliseconds session_timeout, std::chrono::milliseconds deadline,
                const std::shared_ptr<boost::asio::ssl::context>& tls);

}  // namespace zk::lab::check

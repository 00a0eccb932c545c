// SPDX-License-Identifier: Apache-2.0
// What the process tests in tests/lab share: the zkd binary under test (its
// path is compiled in as ZKD_BINARY), options that start it, and the raw
// request/reply round trip with gtest expectations.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"
#include "tests/common/request_bodies.h"
#include "tests/lab/raw_client.h"
#include "zklab/process/ensemble.h"
#include "zklab/process/zkd_process.h"

namespace zk::lab {

using zk::test::create_body;
using zk::test::path_body;

// Options for an ensemble of the flavour ZK_ENSEMBLE_FLAVOUR names (zkd when
// unset, the binary ZK_ENSEMBLE_ZKD names or this tree's; apache: Debian's
// Apache ZooKeeper). A name that is neither is a test failure (and zkd).
EnsembleOptions flavoured_ensemble_options();

// Path of the zkd binary this tree built.
// For a fixture's TearDown: when the test `failed`, keeps the ensemble's
// directory and prints where it is and every node's log tail.
void keep_if_failed(Ensemble* ensemble, bool failed);

// Polls until node `id` serves in `mode` (a role change passes through
// election, which gives no other signal than srvr's mode); a failure names
// the mode seen last and carries every node's log tail.
::testing::AssertionResult serves_as(const Ensemble& ensemble, int id, ServerMode mode,
                                     std::chrono::milliseconds deadline = std::chrono::seconds(30));

std::string zkd_binary();
// A failpoint name as a GoogleTest name: "log.before_sync" -> "log_before_sync".
std::string failpoint_test_name(std::string name);
// Default options, starting that binary.
ZkdOptions zkd_options();
// run_zkd with that binary.
RunResult run_zkd(const std::vector<std::string>& args, std::chrono::milliseconds deadline);

// Opens a session on `zkd` (expects the handshake to succeed and to give a
// session id; throws when it fails, which fails the test).
Session connect_session(const ZkdProcess& zkd, int32_t timeout_ms = 30000);

// Creates `count` znodes "/<prefix><i>" through `zkd`, on a session of its
// own; returns the paths it acknowledged (each create it refused is a test
// failure).
std::vector<std::string> create_acknowledged(const ZkdProcess& zkd, const std::string& prefix,
                                             int count);

// Sends a request and returns its reply, expecting the next frame to be that
// reply (nothing is skipped). On failure the reply carries kConnectionLoss.
Reply call(RawConnection& c, int32_t xid, zk::wire::OpCode op, const std::string& body = {});

// The next frame, if it arrives within `deadline` and is a notification
// (xid -1) whose WatcherEvent decodes; nothing otherwise.
std::optional<zk::wire::WatcherEvent> read_notification(
    RawConnection& c, std::chrono::milliseconds deadline = std::chrono::seconds(5));

}  // namespace zk::lab

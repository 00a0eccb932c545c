// SPDX-License-Identifier: Apache-2.0
// start_zkd: a standalone zkd of this build (the library zk_test_zkd is
// compiled with its path) on a free loopback port, for tests that run
// clients or tools against a real server. Process control is zk::lab's
// ZkdProcess (zklab/process/zkd_process.h): the returned process is killed
// and its directory removed when it goes.
#pragma once

#include <memory>

#include "zklab/process/zkd_process.h"

namespace zk::test {

// Starts zkd with `options` (options.binary defaults to this build's zkd)
// and waits until it answers srvr; null, with a failed expectation naming
// why (and zkd's log), if it did not start.
std::unique_ptr<zk::lab::ZkdProcess> start_zkd(zk::lab::ZkdOptions options = {});

}  // namespace zk::test

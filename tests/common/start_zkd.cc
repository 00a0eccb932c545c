// SPDX-License-Identifier: Apache-2.0
#include "tests/common/start_zkd.h"

#include <gtest/gtest.h>

#include <utility>

#ifndef ZKD_BINARY
#error "ZKD_BINARY must name the zkd executable under test"
#endif

namespace zk::test {

std::unique_ptr<zk::lab::ZkdProcess> start_zkd(zk::lab::ZkdOptions options) {
  if (options.binary.empty() && options.command.empty()) options.binary = ZKD_BINARY;
  auto started = zk::lab::ZkdProcess::start(options);
  EXPECT_TRUE(started.process) << started.error;
  return std::move(started.process);
}

}  // namespace zk::test

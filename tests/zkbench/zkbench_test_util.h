// SPDX-License-Identifier: Apache-2.0
// What the zkbench process tests share: a zkd to run against (start_zkd,
// tests/common/start_zkd.h: the build's zkd on a loopback port), the
// zkbench binary run as a user runs it (the build's ZKBENCH_BINARY), and its
// --json output parsed. The library zkbench_test_util is built with this
// build's zkbench (tests/zkbench/CMakeLists.txt) and holds Boost.JSON's
// implementation, so that a test linking it includes <boost/json.hpp> only.
#pragma once

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "tests/common/start_zkd.h"
#include "zklab/process/zkd_process.h"

namespace zk::bench::testing {

// start_zkd() (default options): a zkd; null, with a failed expectation, when
// it did not start.
using zk::test::start_zkd;

struct Outcome {
  int exit_code = -1;  // -1: did not exit normally in time
  std::string output;  // stdout and stderr
};

// Runs zkbench with `args` and waits for it (killed after 120 s).
Outcome zkbench(const std::vector<std::string>& args);

// `text` parsed as a JSON object; an empty object, with a failed
// expectation, when it is not one.
boost::json::object parse_object(const std::string& text);

}  // namespace zk::bench::testing

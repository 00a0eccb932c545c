// SPDX-License-Identifier: Apache-2.0
#include "tests/zkbench/zkbench_test_util.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <boost/json/src.hpp>
#include <chrono>

namespace zk::bench::testing {

Outcome zkbench(const std::vector<std::string>& args) {
  auto r = zk::lab::run_zkd(ZKBENCH_BINARY, args, std::chrono::seconds(120));
  Outcome out;
  out.output = r.output;
  if (r.status >= 0 && WIFEXITED(r.status)) out.exit_code = WEXITSTATUS(r.status);
  return out;
}

boost::json::object parse_object(const std::string& text) {
  boost::json::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  EXPECT_FALSE(ec) << text;
  return ec || !v.is_object() ? boost::json::object() : v.as_object();
}

}  // namespace zk::bench::testing

// SPDX-License-Identifier: Apache-2.0
#include "tests/lab/lab_test_util.h"

#include <cstdlib>
#include <iostream>

#include <gtest/gtest.h>

#include <stdexcept>

#ifndef ZKD_BINARY
#error "ZKD_BINARY must name the zkd executable under test"
#endif

namespace zk::lab {

void keep_if_failed(Ensemble* ensemble, bool failed) {
  if (ensemble == nullptr || !failed) return;
  ensemble->keep_directory();
  std::cerr << "ensemble kept in " << ensemble->directory() << "\n" << ensemble->logs();
}

std::string zkd_binary() { return ZKD_BINARY; }

::testing::AssertionResult serves_as(const Ensemble& ensemble, int id, ServerMode mode,
                                     std::chrono::milliseconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  ServerMode seen = ensemble.mode(id);
  while (seen != mode && std::chrono::steady_clock::now() < until) seen = ensemble.mode(id);
  if (seen == mode) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "node " << id << " is " << server_mode_name(seen) << "\n"
                                       << ensemble.logs();
}

EnsembleOptions flavoured_ensemble_options() {
  const auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v != nullptr ? v : "";
  };
  EnsembleOptions options;
  const std::string flavour = env("ZK_ENSEMBLE_FLAVOUR");
  const auto parsed = parse_flavour(flavour.empty() ? "zkd" : flavour);
  EXPECT_TRUE(parsed) << "ZK_ENSEMBLE_FLAVOUR must be zkd or apache, not '" << flavour << "'";
  options.flavour = parsed.value_or(Flavour::kZkd);
  options.zkd_binary = env("ZK_ENSEMBLE_ZKD").empty() ? zkd_binary() : env("ZK_ENSEMBLE_ZKD");
  return options;
}

std::string failpoint_test_name(std::string name) {
  for (char& c : name) {
    if (c == '.') c = '_';
  }
  return name;
}

ZkdOptions zkd_options() {
  ZkdOptions options;
  options.binary = zkd_binary();
  return options;
}

RunResult run_zkd(const std::vector<std::string>& args, std::chrono::milliseconds deadline) {
  return run_zkd(zkd_binary(), args, deadline);
}

Session connect_session(const ZkdProcess& zkd, int32_t timeout_ms) {
  auto s = open_session(zkd.host(), zkd.port(), new_session_request(timeout_ms));
  EXPECT_TRUE(s) << "handshake failed";
  if (!s) throw std::runtime_error("handshake failed");
  EXPECT_NE(s->response.session_id, 0);
  return std::move(*s);
}

std::vector<std::string> create_acknowledged(const ZkdProcess& zkd, const std::string& prefix,
                                             int count) {
  std::vector<std::string> acknowledged;
  Session s = connect_session(zkd);
  for (int i = 0; i < count; ++i) {
    const std::string path = "/" + prefix + std::to_string(i);
    const auto reply =
        call(s.connection, i + 1, zk::wire::OpCode::kCreate, zk::test::create_body(path, "v"));
    EXPECT_EQ(reply.header.err, zk::wire::Error::kOk) << path;
    if (reply.header.err == zk::wire::Error::kOk) acknowledged.push_back(path);
  }
  return acknowledged;
}

Reply call(RawConnection& c, int32_t xid, zk::wire::OpCode op, const std::string& body) {
  EXPECT_TRUE(c.send_request(xid, op, body));
  auto frame = c.read_frame();
  EXPECT_TRUE(frame) << "no reply to xid " << xid;
  if (!frame) return Reply{{0, 0, zk::wire::Error::kConnectionLoss}, {}};
  auto reply = parse_reply(*frame);
  EXPECT_TRUE(reply);
  if (!reply) return Reply{{0, 0, zk::wire::Error::kConnectionLoss}, {}};
  EXPECT_EQ(reply->header.xid, xid);
  return *reply;
}

std::optional<zk::wire::WatcherEvent> read_notification(RawConnection& c,
                                                        std::chrono::milliseconds deadline) {
  auto frame = c.read_frame(deadline);
  if (!frame) return std::nullopt;
  auto reply = parse_reply(*frame);
  if (!reply || reply->header.xid != zk::wire::kNotificationXid) return std::nullopt;
  zk::wire::WatcherEvent e;
  if (!zk::wire::decode(reply->body, e)) return std::nullopt;
  return e;
}

}  // namespace zk::lab

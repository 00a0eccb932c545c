// SPDX-License-Identifier: Apache-2.0
// zkbench's scenario workloads as a user runs them, against real zkd: the
// counts in their reports are what the servers hold afterwards (populate's
// znodes, creates' cleanup), the lock's mutual exclusion holds and its waits
// are herd-free (about one watch notification per release), the barrier
// completes every round, and bad arguments exit 2. No timing is asserted.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "libzk/client/sync_client.h"
#include "tests/zkbench/zkbench_test_util.h"
#include "zklab/process/ensemble.h"
#include "zklab/process/port_reservation.h"
#include "zklab/process/zkd_process.h"

namespace {

using namespace std::chrono_literals;
using zk::bench::testing::Outcome;
using zk::bench::testing::parse_object;
using zk::bench::testing::start_zkd;
using zk::bench::testing::zkbench;

int64_t count(const boost::json::object& report, const char* name) {
  return report.at("counts").at(name).as_int64();
}

int64_t step_ok(const boost::json::object& report, const char* step) {
  return report.at("steps").at(step).at("ok").as_int64();
}

// The children of `path`, read by a client of our own.
std::vector<std::string> children(const std::string& address, const std::string& path) {
  zk::client::SyncClient client;
  EXPECT_TRUE(client.connect(address, 30s, 20s).ok());
  auto r = client.get_children(path);
  EXPECT_TRUE(r.ok()) << path << ": " << zk::wire::error_name(r.error());
  return r.ok() ? *r : std::vector<std::string>{};
}

TEST(ZkbenchPopulate, CreatesExactlyTheZnodesAndASecondRunFindsThemExisting) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const std::vector<std::string> args = {
      "populate",   "-s", zkd->address(), "--znodes", "500",           "--root", "/pop",
      "--sessions", "3",  "--window",     "8",        "--value-bytes", "100",    "--json"};
  const Outcome first = zkbench(args);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const auto o = parse_object(first.output);
  ASSERT_TRUE(o.contains("counts")) << first.output;
  EXPECT_EQ(o.at("command").as_string(), "populate");
  EXPECT_EQ(count(o, "created"), 500);
  EXPECT_EQ(count(o, "existing"), 0);
  EXPECT_EQ(o.at("errors").as_int64(), 0);
  EXPECT_EQ(o.at("done").as_int64(), 500);
  const auto& latency = o.at("steps").at("create").at("latency_us").as_object();
  EXPECT_LE(latency.at("p50").as_int64(), latency.at("p99").as_int64());
  EXPECT_LE(latency.at("p99").as_int64(), latency.at("max").as_int64());

  const auto names = children(zkd->address(), "/pop");
  EXPECT_EQ(names.size(), 500u);
  std::set<std::string> expected;
  for (int i = 0; i < 500; ++i) expected.insert("p" + std::to_string(i));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), expected);
  zk::client::SyncClient client;
  ASSERT_TRUE(client.connect(zkd->address(), 30s, 20s).ok());
  auto data = client.get_data("/pop/p123");
  ASSERT_TRUE(data.ok());
  ASSERT_TRUE(data->data.has_value());
  EXPECT_EQ(data->data->size(), 100u);

  const Outcome second = zkbench(args);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  const auto again = parse_object(second.output);
  ASSERT_TRUE(again.contains("counts")) << second.output;
  EXPECT_EQ(count(again, "created"), 0);
  EXPECT_EQ(count(again, "existing"), 500);
  EXPECT_EQ(children(zkd->address(), "/pop").size(), 500u);

  // The text report says the same.
  std::vector<std::string> text_args = args;
  text_args.pop_back();
  const Outcome text = zkbench(text_args);
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("created 0, existing 500"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("zkbench cpu: "), std::string::npos) << text.output;
}

void expect_lock_run(const std::vector<std::string>& servers, const std::string& path) {
  const int clients = 5, holds = 20;
  std::string hosts;
  for (const std::string& s : servers) hosts += (hosts.empty() ? "" : ",") + s;
  const Outcome r = zkbench({"lock", "-s", hosts, "--clients", std::to_string(clients), "--holds",
                             std::to_string(holds), "--path", path, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto o = parse_object(r.output);
  ASSERT_TRUE(o.contains("counts")) << r.output;
  EXPECT_EQ(o.at("done").as_int64(), clients * holds);
  EXPECT_EQ(count(o, "acquisitions"), clients * holds);
  EXPECT_EQ(count(o, "releases"), clients * holds);
  EXPECT_EQ(step_ok(o, "acquire"), clients * holds);
  EXPECT_EQ(step_ok(o, "release"), clients * holds);
  EXPECT_EQ(count(o, "violations"), 0);
  EXPECT_EQ(count(o, "max_holders"), 1);
  // Herd-free: a release wakes its successor only.
  EXPECT_LE(count(o, "notifications"), clients * holds + clients) << r.output;
  EXPECT_TRUE(o.at("problems").as_array().empty()) << r.output;
  // Every child was deleted.
  EXPECT_TRUE(children(servers.front(), path).empty());
}

TEST(ZkbenchLock, EveryAcquisitionCountedExclusiveAndHerdFree) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  expect_lock_run({zkd->address()}, "/lk");
  // A held lock for a while, in text.
  const Outcome text = zkbench({"lock", "-s", zkd->address(), "--clients", "3", "--holds", "4",
                                "--path", "/lk", "--hold-us", "2000"});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("12 acquisitions ="), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("mutual exclusion: held by at most 1 client"), std::string::npos)
      << text.output;
}

TEST(ZkbenchLock, ClientsSpreadOverThreeServers) {
  zk::lab::EnsembleOptions eo;
  eo.zkd_binary = ZKD_BINARY;
  auto started = zk::lab::Ensemble::start(eo);
  ASSERT_TRUE(started.ensemble) << started.error;
  std::vector<std::string> servers;
  for (int id : started.ensemble->ids()) servers.push_back(started.ensemble->address(id));
  expect_lock_run(servers, "/lk3");
}

TEST(ZkbenchBarrier, CompletesEveryRound) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const Outcome r = zkbench({"barrier", "-s", zkd->address(), "--clients", "4", "--rounds", "10",
                             "--path", "/bar", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto o = parse_object(r.output);
  ASSERT_TRUE(o.contains("counts")) << r.output;
  EXPECT_EQ(o.at("done").as_int64(), 10);
  EXPECT_EQ(count(o, "rounds"), 10);
  EXPECT_EQ(step_ok(o, "enter"), 40);
  EXPECT_EQ(step_ok(o, "leave"), 40);
  EXPECT_TRUE(o.at("problems").as_array().empty()) << r.output;
  // The round znodes were deleted.
  EXPECT_TRUE(children(zkd->address(), "/bar").empty());
}

TEST(ZkbenchCreates, CountsEveryCreateAndLeavesNothingBehind) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  for (const bool sequential : {false, true}) {
    std::vector<std::string> args = {
        "creates", "-s",     zkd->address(), "--workers",     "3",  "--creates", "100", "--window",
        "4",       "--root", "/cr",          "--value-bytes", "10", "--json"};
    if (sequential) args.push_back("--sequential");
    const Outcome r = zkbench(args);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto o = parse_object(r.output);
    ASSERT_TRUE(o.contains("counts")) << r.output;
    EXPECT_EQ(o.at("done").as_int64(), 300);
    EXPECT_EQ(step_ok(o, "create"), 300);
    EXPECT_EQ(o.at("errors").as_int64(), 0);
    EXPECT_EQ(count(o, "deleted"), 300);
    EXPECT_TRUE(children(zkd->address(), "/cr").empty()) << "sequential " << sequential;
  }
}

TEST(ZkbenchCreates, KeepLeavesTheCreatedZnodes) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const Outcome r = zkbench({"creates", "-s", zkd->address(), "--workers", "2", "--creates", "30",
                             "--root", "/kept", "--keep", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto runs = children(zkd->address(), "/kept");
  ASSERT_EQ(runs.size(), 1u);
  size_t kept = 0;
  for (const std::string& worker : children(zkd->address(), "/kept/" + runs[0])) {
    kept += children(zkd->address(), "/kept/" + runs[0] + "/" + worker).size();
  }
  EXPECT_EQ(kept, 60u);
}

TEST(ZkbenchScenarios, BadArgumentsExitTwo) {
  const std::string s = "127.0.0.1:1";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"populate", "-s", s},
        {"populate", "-s", s, "--znodes", "0"},
        {"populate", "-s", s, "--znodes", "5", "--root", "/"},
        {"populate", "-s", s, "--znodes", "5", "--root", "nope"},
        {"populate", "-s", s, "--znodes", "5", "--window", "0"},
        {"populate", "-s", s + "/chroot", "--znodes", "5"},
        {"populate", "--znodes", "5"},
        {"lock", "-s", s, "--clients", "2"},
        {"lock", "-s", s, "--clients", "0", "--holds", "1"},
        {"lock", "-s", s, "--clients", "2", "--holds", "1", "--path", "/a/"},
        {"lock", "-s", s, "--clients", "2", "--holds", "1", "--hold-us", "-1"},
        {"barrier", "-s", s, "--clients", "2"},
        {"barrier", "-s", s, "--clients", "2", "--rounds", "0"},
        {"barrier", "-s", ",", "--clients", "2", "--rounds", "1"},
        {"creates", "-s", s, "--workers", "2"},
        {"creates", "-s", s, "--workers", "0", "--creates", "1"},
        {"creates", "-s", s, "--workers", "1", "--creates", "1", "--window", "0"},
        {"creates", "-s", s, "--workers", "1", "--creates", "1", "--root", "/"}}) {
    const Outcome r = zkbench(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args.back() << ": " << r.output;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << r.output;
  }
}

TEST(ZkbenchScenarios, NoServerExitsOne) {
  const auto unused = zk::lab::PortReservation::any();  // refused while held
  const std::string address = "127.0.0.1:" + std::to_string(unused.port());
  for (const std::string command : {"populate", "lock", "barrier", "creates"}) {
    std::vector<std::string> args = {command, "-s", address, "--connect-timeout", "1"};
    if (command == "populate") args.insert(args.end(), {"--znodes", "5"});
    if (command == "lock") args.insert(args.end(), {"--clients", "1", "--holds", "1"});
    if (command == "barrier") args.insert(args.end(), {"--clients", "1", "--rounds", "1"});
    if (command == "creates") args.insert(args.end(), {"--workers", "1", "--creates", "1"});
    const Outcome r = zkbench(args);
    EXPECT_EQ(r.exit_code, 1) << command << ": " << r.output;
    EXPECT_NE(r.output.find("connect"), std::string::npos) << r.output;
  }
}

}  // namespace

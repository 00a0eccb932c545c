// SPDX-License-Identifier: Apache-2.0
// `zkbench flood` as a user runs it, against a real standalone zkd, kept
// small (a second per phase, a flood of twice a given capacity): the report
// has both phases with measured requests, the p99 ratios, the session
// events and every kind's counts, in text and in --json FILE; without
// --capacity the capacity is measured first; bad arguments exit 2 and a
// flood source that is not this host's exits 1. No timing is asserted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/zkbench/zkbench_test_util.h"
#include "tests/zklab/zklab_test_util.h"
#include "zklab/process/port_reservation.h"
#include "zklab/process/zkd_process.h"

namespace {

using zk::bench::testing::Outcome;
using zk::bench::testing::parse_object;
using zk::bench::testing::start_zkd;
using zk::bench::testing::zkbench;
using zk::lab::testing::read_file;

// The measured requests of op `op` in phase `phase` of a --json report.
int64_t measured(const boost::json::object& report, const char* phase, const char* op) {
  return report.at("phases").at(phase).at("ops").at(op).at("requests").as_int64();
}

TEST(ZkbenchFlood, ReportsBothPhasesAndTheFloodInTextAndJson) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const auto dir = zk::lab::make_temp_dir("zkbench_flood");
  ASSERT_FALSE(dir.empty());
  const auto json = dir / "flood.json";
  const Outcome r = zkbench({"flood", "-s", zkd->address(), "--phase-seconds", "1", "--capacity",
                             "2000", "--factor", "2", "--json", json.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* part : {"unloaded (", "flood (", "p99 flood/unloaded: get ",
                           "session events:", "pipeline ", "storm ", "large "}) {
    EXPECT_NE(r.output.find(part), std::string::npos) << part << " in " << r.output;
  }

  const auto o = parse_object(read_file(json));
  ASSERT_TRUE(o.contains("phases")) << read_file(json);
  EXPECT_EQ(o.at("command").as_string(), "flood");
  EXPECT_EQ(o.at("capacity").at("ops_per_s").as_int64(), 2000);
  EXPECT_FALSE(o.at("capacity").at("measured").as_bool());
  EXPECT_EQ(o.at("offered_per_s").as_int64(), 4000);
  for (const char* phase : {"unloaded", "flood"}) {
    for (const char* op : {"get", "set"}) {
      EXPECT_GT(measured(o, phase, op), 0) << phase << " " << op;
      const auto& latency = o.at("phases").at(phase).at("ops").at(op).at("latency_us").as_object();
      EXPECT_LE(latency.at("p50").as_int64(), latency.at("p99").as_int64());
      EXPECT_LE(latency.at("p99").as_int64(), latency.at("max").as_int64());
    }
    EXPECT_GT(o.at("phases").at(phase).at("measured_us").as_int64(), 0);
  }
  for (const char* op : {"get", "set"}) {
    EXPECT_TRUE(o.at("p99_ratio").at(op).is_number()) << op;
  }
  EXPECT_TRUE(o.at("session_events").is_array());
  EXPECT_GT(o.at("flood_seconds").as_double(), 0);
  for (const char* kind : {"pipeline", "storm", "large"}) {
    const auto& k = o.at("flood").at(kind).as_object();
    EXPECT_GT(k.at("offered").as_int64(), 0) << kind;
    EXPECT_GT(k.at("connections").as_int64(), 0) << kind;
    for (const char* field : {"sent", "answered", "errors", "sessions", "refused", "closed",
                              "offered_per_s", "answered_per_s", "rate"}) {
      EXPECT_TRUE(k.contains(field)) << kind << " " << field;
    }
  }
  // A standalone zkd answers what the pipeline sent it at twice a modest rate.
  EXPECT_GT(o.at("flood").at("pipeline").at("answered").as_int64(), 0);
}

TEST(ZkbenchFlood, MeasuresTheCapacityWhenNotGiven) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const auto dir = zk::lab::make_temp_dir("zkbench_flood");
  ASSERT_FALSE(dir.empty());
  const auto json = dir / "flood.json";
  const Outcome r = zkbench({"flood", "-s", zkd->address(), "--phase-seconds", "0.5", "--factor",
                             "0.1", "--kinds", "pipeline", "--json", json.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto o = parse_object(read_file(json));
  ASSERT_TRUE(o.contains("capacity")) << read_file(json);
  EXPECT_TRUE(o.at("capacity").at("measured").as_bool());
  EXPECT_GT(o.at("capacity").at("ops_per_s").as_int64(), 0);
  EXPECT_TRUE(o.at("flood").as_object().contains("pipeline"));
  EXPECT_FALSE(o.at("flood").as_object().contains("storm"));
  EXPECT_GT(measured(o, "flood", "get"), 0);
}

TEST(ZkbenchFlood, BadArgumentsExitTwoWithUsage) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"flood"},
        {"flood", "-s", "127.0.0.1:2181", "--kinds", "pipeline,nonsense"},
        {"flood", "-s", "127.0.0.1:2181", "--factor", "0"},
        {"flood", "-s", "127.0.0.1:2181", "--measure-rate", "0"},
        {"flood", "-s", "127.0.0.1:2181", "--root", "/"},
        {"flood", "-s", "127.0.0.1:2181/chroot"}}) {
    const Outcome r = zkbench(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.output;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << r.output;
  }
}

TEST(ZkbenchFlood, AFloodSourceNotOfThisHostOrNoServerExitsOne) {
  const auto unused = zk::lab::PortReservation::any();  // refused while held
  const std::string address = "127.0.0.1:" + std::to_string(unused.port());
  // 192.0.2.1 (TEST-NET-1) is no address of this host.
  const Outcome foreign = zkbench({"flood", "-s", address, "--flood-source", "192.0.2.1"});
  EXPECT_EQ(foreign.exit_code, 1) << foreign.output;
  EXPECT_NE(foreign.output.find("flood source 192.0.2.1"), std::string::npos) << foreign.output;
  const Outcome none = zkbench({"flood", "-s", address, "--connect-timeout", "1"});
  EXPECT_EQ(none.exit_code, 1) << none.output;
  EXPECT_NE(none.output.find("connect"), std::string::npos) << none.output;
}

}  // namespace

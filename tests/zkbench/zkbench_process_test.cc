// SPDX-License-Identifier: Apache-2.0
// zkbench against real zkd: the report adds up (requests counted are the
// requests the server acknowledged: the key znodes' versions add up to the
// successful setData count), the binary's JSON and CSV parse and agree with
// themselves, and with one server of a 3-node ensemble killed mid-run the run
// completes and reports CONNECTIONLOSS; `zkbench sweep` prints a row per step
// that adds up, `zkbench compare` a row per side and round, ratios and
// medians; the server's CPU is found by its port and reported (unknown,
// not fatal, when it cannot be read); --plot writes a latency CDF for run
// and a point per step for sweep. No timing is asserted.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "libzk/client/sync_client.h"
#include "tests/zkbench/zkbench_test_util.h"
#include "tests/zklab/zklab_test_util.h"
#include "zkbench/engine.h"
#include "zkbench/report.h"
#include "zklab/process/ensemble.h"
#include "zklab/process/port_reservation.h"
#include "zklab/process/zkd_process.h"

namespace {

using namespace std::chrono_literals;
using zk::bench::Engine;
using zk::bench::EngineOptions;
using zk::bench::OpType;
using zk::bench::RunResult;
using zk::wire::Error;
using Clock = std::chrono::steady_clock;
using zk::bench::testing::Outcome;
using zk::bench::testing::parse_object;
using zk::bench::testing::start_zkd;
using zk::bench::testing::zkbench;
using zk::lab::testing::read_file;

EngineOptions options(std::vector<std::string> addresses, const std::string& mix,
                      const std::string& root) {
  EngineOptions o;
  o.pool.addresses = std::move(addresses);
  o.pool.sessions = 4;
  o.pool.threads = 2;
  o.in_flight = 4;
  const auto parsed = zk::bench::parse_mix(mix);
  EXPECT_EQ(parsed.error, "");
  o.workload.mix = parsed.mix;
  o.workload.keys.znodes = 50;
  o.workload.value_bytes = 100;
  o.root = root;
  return o;
}

RunResult run_engine(const EngineOptions& o) {
  Engine engine(o);
  EXPECT_EQ(engine.connect(), "");
  EXPECT_EQ(engine.setup(), "");
  return engine.run();
}

// The per-type counts add up to the total, and each histogram holds the
// successful requests of its type.
void expect_consistent(const RunResult& r) {
  const auto total = r.figures.total();
  int64_t requests = 0;
  for (OpType op : zk::bench::kAllOpTypes) {
    const auto& f = r.figures.of(op);
    requests += f.requests();
    EXPECT_EQ(f.latency.count(), f.ok) << zk::bench::op_name(op);
  }
  EXPECT_EQ(requests, total.requests());
  EXPECT_EQ(total.ok + total.error_count(), total.requests());
}

// The versions of the key znodes, added up (each set adds one).
int64_t sum_of_versions(const std::string& address, const std::string& root, int64_t znodes) {
  zk::client::SyncClient client;
  EXPECT_TRUE(client.connect(address, 30s, 20s).ok());
  int64_t sum = 0;
  for (int64_t k = 0; k < znodes; ++k) {
    auto r = client.exists(Engine::key_path(root, k));
    EXPECT_TRUE(r.ok() && r->has_value()) << k;
    if (r.ok() && r->has_value()) sum += (*r)->version;
  }
  return sum;
}

TEST(ZkbenchEngine, SetOnlyRunCountsWhatTheServerAcknowledged) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  EngineOptions o = options({zkd->address()}, "set=1", "/set_only");
  o.ops = 3000;
  const RunResult r = run_engine(o);
  ASSERT_EQ(r.error, "");
  expect_consistent(r);
  const auto& set = r.figures.of(OpType::kSet);
  EXPECT_EQ(r.figures.total().requests(), 3000);
  EXPECT_EQ(set.ok, 3000);
  EXPECT_TRUE(r.ended.empty());
  EXPECT_TRUE(r.drained);
  EXPECT_EQ(sum_of_versions(zkd->address(), o.root, o.workload.keys.znodes), set.ok);
}

TEST(ZkbenchEngine, MixedRunCountsEveryRequestOnce) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  EngineOptions o =
      options({zkd->address()}, "get=40,exists=10,children=10,set=20,create=20,multi=10", "/mixed");
  o.ops = 4000;
  o.warmup = 200ms;
  o.workload.keys.distribution = zk::bench::KeyDistribution::kZipf;
  const RunResult r = run_engine(o);
  ASSERT_EQ(r.error, "");
  expect_consistent(r);
  EXPECT_EQ(r.figures.total().requests(), 4000);
  EXPECT_EQ(r.figures.total().error_count(), 0);
  for (OpType op : zk::bench::kAllOpTypes) {
    EXPECT_GT(r.figures.of(op).ok, 0) << zk::bench::op_name(op);
  }
  // Every successful create is deleted, except (once per lane at most) when
  // the delete would have been request 4001.
  const int64_t creates = r.figures.of(OpType::kCreate).ok;
  const int64_t deletes = r.figures.of(OpType::kDelete).ok;
  EXPECT_LE(deletes, creates);
  EXPECT_GE(deletes, creates - o.pool.sessions * o.in_flight);
  zk::client::SyncClient client;
  ASSERT_TRUE(client.connect(zkd->address(), 30s, 20s).ok());
  auto left = client.get_children(o.root + "/new");
  ASSERT_TRUE(left.ok());
  // Warm-up creates are deleted too (their deletes are not counted).
  EXPECT_EQ(static_cast<int64_t>(left->size()), creates - deletes);
  // Warm-up sets count in the versions but not in the figures; a multi sets multi_ops keys.
  EXPECT_GE(sum_of_versions(zkd->address(), o.root, o.workload.keys.znodes),
            r.figures.of(OpType::kSet).ok + o.workload.multi_ops * r.figures.of(OpType::kMulti).ok);
}

// A text report lists every op type of the mix and the errors.
TEST(ZkbenchEngine, TextReportNamesTypesAndErrors) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  EngineOptions o = options({zkd->address()}, "get=1,create=1", "/text");
  o.ops = 200;
  const RunResult r = run_engine(o);
  const std::string text = zk::bench::text_report(o, r);
  for (const char* want : {"\nget ", "\ncreate ", "\ndelete ", "\ntotal ", "p99.9 ms",
                           "errors: none", "zkbench cpu: "}) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
}

TEST(ZkbenchEngine, KillingAServerMidRunReportsConnectionLoss) {
  zk::lab::EnsembleOptions eo;
  eo.zkd_binary = ZKD_BINARY;
  auto started = zk::lab::Ensemble::start(eo);
  ASSERT_TRUE(started.ensemble) << started.error;
  auto& ensemble = *started.ensemble;
  const auto leader = ensemble.leader();
  ASSERT_TRUE(leader);
  std::vector<std::string> addresses;
  for (int id : ensemble.ids()) addresses.push_back(ensemble.address(id));

  EngineOptions o = options(addresses, "get=50,set=50", "/kill");
  o.pool.sessions = 6;  // two per server
  o.in_flight = 2;
  o.duration = 4s;
  Engine engine(o);
  ASSERT_EQ(engine.connect(), "");
  ASSERT_EQ(engine.setup(), "");
  auto run = std::async(std::launch::async, [&engine] { return engine.run(); });
  // Wait (deadline 30 s) until the measured phase has answers, then kill a
  // follower: its sessions lose their connection and move on.
  bool measuring = false;
  for (const auto until = Clock::now() + 30s; Clock::now() < until;) {
    const auto p = engine.progress();
    if (p.phase == zk::bench::Phase::kMeasure && p.requests >= 200) {
      measuring = true;
      break;
    }
    if (p.phase == zk::bench::Phase::kDone) break;
    std::this_thread::sleep_for(5ms);  // poll interval, bounded by the deadline
  }
  ASSERT_TRUE(measuring);
  const int victim = *leader == 1 ? 2 : 1;
  ASSERT_TRUE(ensemble.kill(victim));
  const RunResult r = run.get();
  ASSERT_EQ(r.error, "");
  expect_consistent(r);
  const auto total = r.figures.total();
  EXPECT_GT(
      total.errors.count(Error::kConnectionLoss) ? total.errors.at(Error::kConnectionLoss) : 0, 0)
      << zk::bench::text_report(o, r);
  EXPECT_GT(total.ok, 0);
  EXPECT_TRUE(r.ended.empty());  // the sessions survived on the other servers
  const std::string text = zk::bench::text_report(o, r);
  EXPECT_NE(text.find("CONNECTIONLOSS"), std::string::npos) << text;
}

// The binary as a user runs it (zkbench_test_util.h).

TEST(ZkbenchBinary, JsonReportParsesAndAddsUp) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const Outcome run =
      zkbench({"run", "-s", zkd->address(), "--sessions", "3", "--in-flight", "2", "--mix",
               "get=60,set=30,exists=10", "--znodes", "20", "--value-bytes", "64", "--ops", "1500",
               "--warmup", "0.1", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  boost::json::error_code ec;
  const boost::json::value v = boost::json::parse(run.output, ec);
  ASSERT_FALSE(ec) << run.output;
  const auto& o = v.as_object();
  EXPECT_EQ(o.at("requests").as_int64(), 1500);
  EXPECT_EQ(o.at("ok").as_int64() + o.at("errors").as_int64(), 1500);
  EXPECT_EQ(o.at("config").at("ops").as_int64(), 1500);
  EXPECT_EQ(o.at("config").at("mix").as_string(), "get=60,exists=10,set=30");
  int64_t sum = 0;
  for (const auto& [name, figures] : o.at("ops").as_object()) {
    sum += figures.at("requests").as_int64();
    const auto& lat = figures.at("latency_us").as_object();
    EXPECT_LE(lat.at("p50").as_int64(), lat.at("p99").as_int64()) << name;
    EXPECT_LE(lat.at("p99").as_int64(), lat.at("max").as_int64()) << name;
  }
  EXPECT_EQ(sum, 1500);
  EXPECT_EQ(o.at("ops").as_object().size(), 3u);
  EXPECT_GE(o.at("cpu").at("user_us").as_int64() + o.at("cpu").at("system_us").as_int64(), 0);
}

TEST(ZkbenchBinary, ARunAfterAnotherCreatesWithoutCollisions) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  // A run that ends on a count may leave its last creates behind; the next
  // run's creates must not collide with them.
  for (int run = 0; run < 2; ++run) {
    const Outcome r =
        zkbench({"run", "-s", zkd->address(), "--sessions", "2", "--in-flight", "3", "--mix",
                 "get=50,create=50", "--znodes", "5", "--ops", "300", "--warmup", "0", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    boost::json::error_code ec;
    const boost::json::value v = boost::json::parse(r.output, ec);
    ASSERT_FALSE(ec) << r.output;
    EXPECT_EQ(v.as_object().at("errors").as_int64(), 0) << "run " << run << ": " << r.output;
  }
}

TEST(ZkbenchBinary, CsvReportHasARowPerTypeAndATotal) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const Outcome run = zkbench({"run", "-s", zkd->address(), "--reads", "50", "--znodes", "10",
                               "--ops", "500", "--warmup", "0", "--csv"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::istringstream in(run.output);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u) << run.output;
  EXPECT_EQ(lines[0].rfind("op,requests,ok,errors,ops_per_s,", 0), 0u);
  int64_t sum = 0;
  for (size_t i = 1; i < 3; ++i) sum += std::stoll(lines[i].substr(lines[i].find(',') + 1));
  EXPECT_EQ(lines[3].rfind("total,500,", 0), 0u) << run.output;
  EXPECT_EQ(sum, 500);
}

TEST(ZkbenchBinary, BadArgumentsExitTwo) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run"},
        {"run", "-s", "127.0.0.1:1", "--mix", "get=1,bogus=2"},
        {"run", "-s", "127.0.0.1:1", "--reads", "50", "--mix", "get=1"},
        {"run", "-s", "127.0.0.1:1", "--ops", "10", "--duration", "1"},
        {"run", "-s", "127.0.0.1:1", "--json", "--csv"},
        {"run", "-s", "127.0.0.1:1", "--keys", "gauss"},
        {"run", "-s", "127.0.0.1:1", "--root", "/"},
        {"sweep"},
        {"sweep", "-s", "127.0.0.1:1", "--steps", "0,101"},
        {"sweep", "-s", "127.0.0.1:1", "--steps", "a,b"},
        {"sweep", "-s", "127.0.0.1:1", "--reads", "50"},
        {"sweep", "-s", "127.0.0.1:1", "--json", "--csv"},
        {"compare", "--a", "127.0.0.1:1"},
        {"compare", "--a", "127.0.0.1:1", "--b", "127.0.0.1:2", "--rounds", "0"},
        {"compare", "--a", "127.0.0.1:1", "--b", "127.0.0.1:2/chroot"},
        {"compare", "--a", "127.0.0.1:1", "--b", "127.0.0.1:2", "--csv"},
        {"compare", "--a", "127.0.0.1:1", "--b", ",", "--ops", "5"},
        {"bogus"}}) {
    const Outcome r = zkbench(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.output;
  }
}

std::vector<std::string> lines_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(ZkbenchBinary, SweepPrintsARowPerStepThatAddsUp) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const std::vector<std::string> common = {
      "sweep",    "-s", zkd->address(),  "--steps", "20,80",      "--znodes", "20", "--ops", "400",
      "--warmup", "0",  "--value-bytes", "64",      "--sessions", "3"};
  std::vector<std::string> json_args = common;
  json_args.push_back("--json");
  const Outcome json = zkbench(json_args);
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const auto o = parse_object(json.output);
  ASSERT_TRUE(o.contains("steps")) << json.output;
  const auto& steps = o.at("steps").as_array();
  ASSERT_EQ(steps.size(), 2u) << json.output;
  for (size_t i = 0; i < 2; ++i) {
    const auto& step = steps[i].as_object();
    EXPECT_EQ(step.at("reads").as_int64(), i == 0 ? 20 : 80);
    EXPECT_EQ(step.at("requests").as_int64(), 400);
    EXPECT_EQ(step.at("ok").as_int64() + step.at("errors").as_int64(), 400);
    const int64_t gets = step.at("get").at("requests").as_int64();
    const int64_t sets = step.at("set").at("requests").as_int64();
    EXPECT_EQ(gets + sets, 400) << json.output;
    EXPECT_GT(gets, 0);
    EXPECT_GT(sets, 0);
    EXPECT_LE(step.at("get").at("p50_us").as_int64(), step.at("get").at("p90_us").as_int64());
    EXPECT_LE(step.at("get").at("p90_us").as_int64(), step.at("get").at("p99_us").as_int64());
  }

  // The text table: a header and a row per step, in order, each with its
  // reads and its 400 requests.
  const Outcome text = zkbench(common);
  ASSERT_EQ(text.exit_code, 0) << text.output;
  std::vector<std::string> rows;
  for (const std::string& line : lines_of(text.output)) {
    std::istringstream fields(line);
    std::string reads, requests;
    if (fields >> reads >> requests && (reads == "20" || reads == "80")) {
      EXPECT_EQ(requests, "400") << line;
      rows.push_back(reads);
    }
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"20", "80"})) << text.output;
  for (const char* column : {"get p50 ms", "get p90 ms", "get p99 ms", "set p90 ms"}) {
    EXPECT_NE(text.output.find(column), std::string::npos) << column << text.output;
  }

  std::vector<std::string> csv_args = common;
  csv_args.push_back("--csv");
  const Outcome csv = zkbench(csv_args);
  ASSERT_EQ(csv.exit_code, 0) << csv.output;
  const auto csv_lines = lines_of(csv.output);
  ASSERT_EQ(csv_lines.size(), 3u) << csv.output;
  EXPECT_EQ(csv_lines[0].rfind("reads,requests,ok,errors,ops_per_s,get_requests,get_p50_us,"
                               "get_p90_us,get_p99_us,set_requests,",
                               0),
            0u)
      << csv.output;
  EXPECT_EQ(csv_lines[1].rfind("20,400,", 0), 0u) << csv.output;
  EXPECT_EQ(csv_lines[2].rfind("80,400,", 0), 0u) << csv.output;
}

TEST(ZkbenchBinary, CompareOfTwoZkdPrintsRoundsRatiosAndMedians) {
  auto one = start_zkd();
  auto two = start_zkd();
  ASSERT_TRUE(one && two);
  const std::vector<std::string> common = {"compare",
                                           "--a",
                                           one->address(),
                                           "--b",
                                           two->address(),
                                           "--a-name",
                                           "first",
                                           "--b-name",
                                           "second",
                                           "--rounds",
                                           "2",
                                           "--reads",
                                           "70",
                                           "--ops",
                                           "300",
                                           "--warmup",
                                           "0",
                                           "--znodes",
                                           "20",
                                           "--value-bytes",
                                           "64",
                                           "--sessions",
                                           "3"};
  const Outcome text = zkbench(common);
  ASSERT_EQ(text.exit_code, 0) << text.output;
  // Rows: round (1, 2, median) and side (first, second, a/b), in this order.
  std::vector<std::string> rows;
  for (const std::string& line : lines_of(text.output)) {
    std::istringstream fields(line);
    std::string round, side;
    if (fields >> round >> side && (round == "1" || round == "2" || round == "median")) {
      rows.push_back(round + " " + side);
    }
  }
  EXPECT_EQ(rows,
            (std::vector<std::string>{"1 first", "1 second", "1 a/b", "2 first", "2 second",
                                      "2 a/b", "median first", "median second", "median a/b"}))
      << text.output;
  EXPECT_NE(text.output.find("a/b rows: first / second"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("set p50 ms     set p90 ms     set p99 ms"), std::string::npos)
      << text.output;

  std::vector<std::string> json_args = common;
  json_args.push_back("--json");
  const Outcome json = zkbench(json_args);
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const auto o = parse_object(json.output);
  ASSERT_TRUE(o.contains("rounds")) << json.output;
  EXPECT_EQ(o.at("ratio").as_string(), "a/b");
  EXPECT_EQ(o.at("a").at("name").as_string(), "first");
  EXPECT_EQ(o.at("b").at("servers").as_array().at(0).as_string(), two->address());
  const auto& rounds = o.at("rounds").as_array();
  ASSERT_EQ(rounds.size(), 2u);
  for (const auto& round : rounds) {
    for (const char* side : {"a", "b"}) {
      EXPECT_EQ(round.at(side).at("requests").as_int64(), 300) << json.output;
      EXPECT_TRUE(round.at(side).at("ops").as_object().contains("get"));
      EXPECT_TRUE(round.at(side).at("ops").as_object().contains("set"));
      // Each op's percentiles, in order.
      const auto& get = round.at(side).at("ops").at("get");
      EXPECT_LE(get.at("p50_us").as_int64(), get.at("p90_us").as_int64()) << json.output;
      EXPECT_LE(get.at("p90_us").as_int64(), get.at("p99_us").as_int64()) << json.output;
    }
    EXPECT_GT(round.at("a_over_b_x1000").at("ops").at("get").at("p90").as_int64(), 0);
    // ops/s of both sides is positive, so the ratio exists.
    EXPECT_GT(round.at("a_over_b_x1000").at("ops_per_s").as_int64(), 0) << json.output;
  }
  EXPECT_TRUE(o.at("median").as_object().contains("a_over_b_x1000"));
  EXPECT_EQ(o.at("median").at("a").at("requests").as_int64(), 300);
}

TEST(ZkbenchBinary, NoServerExitsOne) {
  const auto unused = zk::lab::PortReservation::any();  // refused while held
  const std::string address = "127.0.0.1:" + std::to_string(unused.port());
  const Outcome r = zkbench({"run", "-s", address, "--connect-timeout", "1", "--ops", "10"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("connect"), std::string::npos) << r.output;
}

// The polylines of an SVG plot: class and points ("x,y x,y ...").
std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>> plot_lines(
    const std::string& svg) {
  std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>> out;
  const std::regex polyline("<polyline class=\"([^\"]*)\"[^>]*points=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), polyline);
       it != std::sregex_iterator(); ++it) {
    std::vector<std::pair<double, double>> points;
    std::istringstream in((*it)[2].str());
    for (std::string pair; in >> pair;) {
      const size_t comma = pair.find(',');
      points.emplace_back(std::stod(pair.substr(0, comma)), std::stod(pair.substr(comma + 1)));
    }
    out.emplace_back((*it)[1].str(), std::move(points));
  }
  return out;
}

// A pid that no process has: a child that has exited and been reaped.
pid_t gone_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  EXPECT_EQ(::waitpid(child, &status, 0), child);
  return child;
}

TEST(ZkbenchEngine, ReportsTheCpuOfTheServerListeningOnItsAddress) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  EngineOptions o = options({zkd->address()}, "get=50,set=50", "/server_cpu");
  o.ops = 4000;
  const RunResult r = run_engine(o);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.server_cpu.pids, std::vector<pid_t>{zkd->pid()});
  ASSERT_TRUE(r.server_cpu.cpu.has_value()) << r.server_cpu.unknown;
  EXPECT_GT(r.server_cpu.cpu->count(), 0);
  const std::string text = zk::bench::text_report(o, r);
  EXPECT_NE(text.find("server cpu: "), std::string::npos) << text;
  EXPECT_NE(text.find(" us per request"), std::string::npos) << text;
}

TEST(ZkbenchBinary, RunPlotsALatencyCdfAndReportsServerCpu) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const auto dir = zk::lab::make_temp_dir("zkbench_plot");
  ASSERT_FALSE(dir.empty());
  const auto plot = dir / "run.svg";
  const Outcome run = zkbench({"run", "-s", zkd->address(), "--mix", "get=50,set=50", "--znodes",
                               "20", "--value-bytes", "64", "--ops", "4000", "--warmup", "0",
                               "--json", "--plot", plot.string()});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto o = parse_object(run.output);
  ASSERT_TRUE(o.contains("server_cpu")) << run.output;
  const auto& cpu = o.at("server_cpu").as_object();
  ASSERT_EQ(cpu.at("pids").as_array().size(), 1u) << run.output;
  EXPECT_EQ(cpu.at("pids").as_array().at(0).as_int64(), zkd->pid());
  ASSERT_TRUE(cpu.at("cpu_us").is_int64()) << run.output;
  EXPECT_GT(cpu.at("cpu_us").as_int64(), 0) << run.output;
  EXPECT_GT(cpu.at("ns_per_op").as_int64(), 0) << run.output;
  EXPECT_TRUE(cpu.at("unknown").is_null());

  const std::string svg = read_file(plot);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u) << svg;
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_NE(svg.find("latency (ms, log scale)"), std::string::npos);
  const auto lines = plot_lines(svg);
  ASSERT_EQ(lines.size(), 2u) << svg;
  EXPECT_EQ(lines[0].first, "get");
  EXPECT_EQ(lines[1].first, "set");
  for (const auto& [name, points] : lines) {
    ASSERT_GT(points.size(), 2u) << name;
    EXPECT_GT(points.front().second, points.back().second) << name;  // up to fraction 1
  }
  std::filesystem::remove_all(dir);
}

TEST(ZkbenchBinary, SweepPlotHasAPointPerStep) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const auto dir = zk::lab::make_temp_dir("zkbench_plot");
  ASSERT_FALSE(dir.empty());
  const auto plot = dir / "sweep.svg";
  const Outcome sweep = zkbench({"sweep", "-s", zkd->address(), "--steps", "80,20,50", "--znodes",
                                 "20", "--value-bytes", "64", "--ops", "300", "--warmup", "0",
                                 "--json", "--plot", plot.string()});
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  const auto o = parse_object(sweep.output);
  ASSERT_TRUE(o.contains("steps")) << sweep.output;
  for (const auto& step : o.at("steps").as_array()) {
    EXPECT_TRUE(step.at("server_cpu_us").is_int64()) << sweep.output;
    EXPECT_TRUE(step.as_object().contains("server_cpu_ns_per_op")) << sweep.output;
  }
  const auto lines = plot_lines(read_file(plot));
  ASSERT_EQ(lines.size(), 1u);
  const auto& points = lines[0].second;
  ASSERT_EQ(points.size(), 3u);
  EXPECT_LT(points[0].first, points[1].first);  // 20, 50, 80 % reads, left to right
  EXPECT_LT(points[1].first, points[2].first);
  std::filesystem::remove_all(dir);
}

TEST(ZkbenchBinary, AServerCpuThatCannotBeReadIsUnknownNotFatal) {
  auto one = start_zkd();
  auto two = start_zkd();
  ASSERT_TRUE(one && two);
  const std::string gone = std::to_string(gone_pid());
  const Outcome run = zkbench({"run", "-s", one->address(), "--ops", "100", "--warmup", "0",
                               "--znodes", "10", "--json", "--server-pids", gone});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto o = parse_object(run.output);
  ASSERT_TRUE(o.contains("server_cpu")) << run.output;
  EXPECT_TRUE(o.at("server_cpu").at("cpu_us").is_null()) << run.output;
  EXPECT_NE(o.at("server_cpu").at("unknown").as_string().find(gone), std::string::npos);

  // compare: A found by its port, B given a pid that is gone.
  const Outcome cmp = zkbench({"compare", "--a", one->address(), "--b", two->address(), "--b-name",
                               "second", "--rounds", "1", "--ops", "100", "--warmup", "0",
                               "--znodes", "10", "--b-pids", gone});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.output;
  EXPECT_NE(cmp.output.find("server us/op"), std::string::npos) << cmp.output;
  EXPECT_NE(cmp.output.find("server cpu of second unknown: process " + gone), std::string::npos)
      << cmp.output;
  const Outcome json =
      zkbench({"compare", "--a", one->address(), "--b", two->address(), "--rounds", "1", "--ops",
               "100", "--warmup", "0", "--znodes", "10", "--b-pids", gone, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const auto c = parse_object(json.output);
  ASSERT_TRUE(c.contains("rounds")) << json.output;
  const auto& round = c.at("rounds").as_array().at(0);
  EXPECT_TRUE(round.at("a").at("server_cpu_us").is_int64()) << json.output;
  EXPECT_TRUE(round.at("b").at("server_cpu_us").is_null()) << json.output;
  EXPECT_TRUE(round.at("a_over_b_x1000").at("server_cpu_per_op").is_null()) << json.output;

  // A plot that cannot be written: exit 1, after the report.
  const Outcome unwritable = zkbench({"run", "-s", one->address(), "--ops", "50", "--warmup", "0",
                                      "--znodes", "10", "--plot", "/nonexistent-dir/x.svg"});
  EXPECT_EQ(unwritable.exit_code, 1) << unwritable.output;
  EXPECT_NE(unwritable.output.find("--plot: cannot write"), std::string::npos) << unwritable.output;
}

TEST(ZkbenchBinary, BadServerPidsExitTwo) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "-s", "127.0.0.1:1", "--server-pids", "abc"},
        {"run", "-s", "127.0.0.1:1", "--server-pids", "0"},
        {"sweep", "-s", "127.0.0.1:1", "--server-pids", "1,-2"},
        {"compare", "--a", "127.0.0.1:1", "--b", "127.0.0.1:2", "--a-pids", "x"},
        {"compare", "--a", "127.0.0.1:1", "--b", "127.0.0.1:2", "--server-pids", "1"},
        {"run", "-s", "127.0.0.1:1", "--plot"}}) {
    const Outcome r = zkbench(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.output;
  }
}

}  // namespace

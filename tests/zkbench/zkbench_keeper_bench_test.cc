// SPDX-License-Identifier: Apache-2.0
// `zkbench keeper-bench` as a user runs it, with each workload of
// tests/zkbench/keeper_bench (keeper-bench's YAML) against a real zkd: it
// exits 0, its JSON (keeper-bench's shape) parses and counts what the server
// did (the set workload's versions add up to the writes counted, the create
// workload's child changes to its creates and removes), no request failed,
// the setup tree is there with --keep-setup and gone without; the first
// error ends a run (exit 1) unless errors are to be counted; output.file
// with_timestamp names the file by the run's start; a refused file exits 2
// naming the key. No timing is asserted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "libzk/client/sync_client.h"
#include "tests/zkbench/zkbench_test_util.h"
#include "zklab/process/zkd_process.h"

namespace {

using namespace std::chrono_literals;
using zk::bench::testing::Outcome;
using zk::bench::testing::parse_object;
using zk::bench::testing::start_zkd;
using zk::bench::testing::zkbench;
namespace fs = std::filesystem;

std::string workload(const std::string& name) {
  return std::string(KEEPER_BENCH_DIR) + "/" + name + ".yaml";
}

// A directory of this test's own (of this process: named by its pid).
fs::path scratch() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir =
      fs::temp_directory_path() / ("zkbench-kb-" + std::to_string(getpid()) + "-" + info->name());
  fs::create_directories(dir);
  return dir;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Bench {
  Outcome outcome;
  boost::json::object json;  // empty when no JSON was written
};

// zkbench keeper-bench --config FILE -s ADDRESS --json J --seed 7 EXTRA...
Bench keeper_bench(const std::string& config, const std::string& address,
                   std::vector<std::string> extra = {}) {
  const fs::path json = scratch() / "out.json";
  std::vector<std::string> args = {"keeper-bench", "--config",    config,   "-s", address,
                                   "--json",       json.string(), "--seed", "7"};
  args.insert(args.end(), extra.begin(), extra.end());
  Bench b;
  b.outcome = zkbench(args);
  if (fs::exists(json)) b.json = parse_object(read_text(json));
  return b;
}

// total_requests of read_results or write_results; 0 without them.
int64_t answered(const boost::json::object& o, const char* results) {
  if (!o.contains(results)) return 0;
  return o.at(results).as_object().at("total_requests").as_int64();
}

// The count of a step row ("create", "remove", ...) of the text report; -1 without one.
int64_t step_count(const std::string& text, const std::string& step) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("\n" + step + " +([0-9]+) "))) return -1;
  return std::stoll(m[1]);
}

// A named count of the text report's "counts:" line; -1 without it.
int64_t count_of(const std::string& text, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("[:,] " + name + " ([0-9]+)"))) return -1;
  return std::stoll(m[1]);
}

// Exit 0, a JSON with `ops` answered requests, no error.
void expect_clean_run(const Bench& b) {
  EXPECT_EQ(b.outcome.exit_code, 0) << b.outcome.output;
  ASSERT_FALSE(b.json.empty()) << b.outcome.output;
  EXPECT_EQ(b.json.at("errors").as_int64(), 0) << b.outcome.output;
  EXPECT_GT(b.json.at("timestamp").as_int64(), 0);
  EXPECT_EQ(b.json.at("ops").as_int64(),
            answered(b.json, "read_results") + answered(b.json, "write_results"));
  EXPECT_GT(b.json.at("ops").as_int64(), 0);
  EXPECT_NE(b.outcome.output.find("zkbench keeper-bench: "), std::string::npos) << b.outcome.output;
}

std::unique_ptr<zk::client::SyncClient> connected(const std::string& address) {
  auto client = std::make_unique<zk::client::SyncClient>();
  EXPECT_TRUE(client->connect(address, 30s, 20s).ok());
  return client;
}

TEST(KeeperBench, CreateWorkloadCountsWhatTheServerDid) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const Bench b = keeper_bench(workload("create"), zkd->address(), {"--keep-setup"});
  expect_clean_run(b);
  EXPECT_FALSE(b.json.contains("read_results"));
  const std::string& text = b.outcome.output;
  const int64_t creates = step_count(text, "create");
  const int64_t removes = step_count(text, "remove");
  const int64_t tolerated = count_of(text, "tolerated_nonode");
  ASSERT_GT(creates, 0) << text;
  ASSERT_GE(removes, 0) << text;
  ASSERT_GE(tolerated, 0) << text;
  EXPECT_EQ(answered(b.json, "write_results"), creates + removes);
  // Every create made a child and every remove that was not a tolerated
  // NONODE removed one: the parent's child changes and children add up.
  const auto session = connected(zkd->address());
  auto& client = *session;
  auto stat = client.exists("/kb_create");
  ASSERT_TRUE(stat.ok() && stat->has_value());
  EXPECT_EQ((*stat)->cversion, creates + removes - tolerated);
  EXPECT_EQ((*stat)->num_children, creates - (removes - tolerated));
}

TEST(KeeperBench, SetWorkloadsVersionsAddUpToItsWrites) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const Bench b = keeper_bench(workload("set"), zkd->address(), {"--keep-setup"});
  expect_clean_run(b);
  EXPECT_FALSE(b.json.contains("read_results"));
  const auto session = connected(zkd->address());
  auto& client = *session;
  auto children = client.get_children("/kb_set");
  ASSERT_TRUE(children.ok());
  EXPECT_EQ(children->size(), 10u);
  int64_t versions = 0;
  for (const std::string& child : *children) {
    auto data = client.get_data("/kb_set/" + child);
    ASSERT_TRUE(data.ok()) << child;
    versions += data->stat.version;
    EXPECT_EQ(data->data.value_or("").size(), data->stat.version > 0 ? 100u : 7u) << child;
  }
  EXPECT_EQ(versions, answered(b.json, "write_results"));
}

TEST(KeeperBench, GetWorkloadReadsAndRemovesItsSetupAfter) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const Bench b = keeper_bench(workload("get"), zkd->address());
  expect_clean_run(b);
  EXPECT_GT(answered(b.json, "read_results"), 0);
  EXPECT_FALSE(b.json.contains("write_results"));
  EXPECT_EQ(count_of(b.outcome.output, "setup_znodes"), 6) << b.outcome.output;
  const auto session = connected(zkd->address());
  auto& client = *session;
  auto stat = client.exists("/kb_get");
  ASSERT_TRUE(stat.ok());
  EXPECT_FALSE(stat->has_value()) << "the setup tree is removed after the run";
}

TEST(KeeperBench, ListWorkloadOverTwoConnections) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const Bench b = keeper_bench(workload("list"), zkd->address() + "," + zkd->address());
  expect_clean_run(b);
  EXPECT_GT(answered(b.json, "read_results"), 0);
  EXPECT_NE(b.outcome.output.find("2 server(s)"), std::string::npos) << b.outcome.output;
  EXPECT_GT(step_count(b.outcome.output, "list"), 0);
}

TEST(KeeperBench, MultiWorkloadSendsTransactionsAndMultiReads) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const Bench b = keeper_bench(workload("multi"), zkd->address(), {"--keep-setup"});
  expect_clean_run(b);
  EXPECT_GT(answered(b.json, "read_results"), 0);
  EXPECT_GT(answered(b.json, "write_results"), 0);
  const int64_t multis = step_count(b.outcome.output, "multi");
  EXPECT_GT(multis, 0) << b.outcome.output;
  EXPECT_EQ(step_count(b.outcome.output, "multiread"), answered(b.json, "read_results"));
  EXPECT_EQ(multis, answered(b.json, "write_results"));
  // Four operations per transaction, two in three of them setData on
  // /kb_multi's children: their versions grew.
  const auto session = connected(zkd->address());
  auto& client = *session;
  auto children = client.get_children("/kb_multi");
  ASSERT_TRUE(children.ok());
  int64_t versions = 0;
  for (const std::string& child : *children) {
    auto stat = client.exists("/kb_multi/" + child);
    ASSERT_TRUE(stat.ok() && stat->has_value());
    versions += (*stat)->version;
  }
  EXPECT_GT(versions, 0);
  EXPECT_LE(versions, 4 * multis);
}

TEST(KeeperBench, SetupTreeIsAsConfigured) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const Bench b = keeper_bench(workload("setup"), zkd->address(), {"--keep-setup"});
  expect_clean_run(b);
  EXPECT_EQ(b.json.at("ops").as_int64(), 2000);  // iterations
  EXPECT_EQ(count_of(b.outcome.output, "setup_znodes"), 11) << b.outcome.output;
  const auto session = connected(zkd->address());
  auto& client = *session;
  auto root = client.get_data("/kb_setup");
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(root->data, "root data");
  auto fixed = client.get_data("/kb_setup/fixed");
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(fixed->data, "fixed data");
  auto children = client.get_children("/kb_setup");
  ASSERT_TRUE(children.ok());
  ASSERT_EQ(children->size(), 4u);
  for (const std::string& child : *children) {
    if (child == "fixed") continue;
    EXPECT_EQ(child.size(), 12u) << child;
    auto data = client.get_data("/kb_setup/" + child);
    ASSERT_TRUE(data.ok());
    EXPECT_GE(data->data.value_or("").size(), 10u);
    EXPECT_LE(data->data.value_or("").size(), 20u);
    auto grandchildren = client.get_children("/kb_setup/" + child);
    ASSERT_TRUE(grandchildren.ok());
    EXPECT_EQ(grandchildren->size(), 2u) << child;
    for (const std::string& g : *grandchildren) EXPECT_EQ(g.size(), 5u) << g;
  }
}

constexpr const char* kMissing = R"(
concurrency: 2
iterations: 100
report_delay: 0
connections:
  connection_timeout_ms: 10000
generator:
  requests:
    get:
      path: "/kb_missing"
)";

TEST(KeeperBench, TheFirstErrorEndsTheRun) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const fs::path config = scratch() / "missing.yaml";
  std::ofstream(config) << kMissing;
  const Bench b = keeper_bench(config.string(), zkd->address());
  EXPECT_EQ(b.outcome.exit_code, 1) << b.outcome.output;
  EXPECT_NE(b.outcome.output.find("the first error ended the run (continue_on_error is false): "
                                  "get /kb_missing: NONODE"),
            std::string::npos)
      << b.outcome.output;
  ASSERT_FALSE(b.json.empty());
  EXPECT_GE(b.json.at("errors").as_int64(), 1);
  EXPECT_LT(b.json.at("errors").as_int64(), 100);
}

TEST(KeeperBench, ContinueOnErrorsCountsThem) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const fs::path config = scratch() / "missing.yaml";
  std::ofstream(config) << kMissing;
  const Bench b = keeper_bench(config.string(), zkd->address(), {"--continue-on-errors"});
  EXPECT_EQ(b.outcome.exit_code, 0) << b.outcome.output;
  ASSERT_FALSE(b.json.empty());
  EXPECT_EQ(b.json.at("errors").as_int64(), 100);
  EXPECT_EQ(b.json.at("ops").as_int64(), 0);
  EXPECT_NE(b.outcome.output.find("errors: NONODE 100 (get 100)"), std::string::npos)
      << b.outcome.output;
}

TEST(KeeperBench, OutputFileWithTimestamp) {
  auto zkd = start_zkd();
  ASSERT_TRUE(zkd);
  const fs::path dir = scratch();
  const fs::path config = dir / "timestamped.yaml";
  std::ofstream(config) << "iterations: 50\nreport_delay: 0\n"
                        << "setup:\n  node:\n    name: kb_out\n"
                        << "generator:\n  requests:\n    get:\n      path: /kb_out\n"
                        << "output:\n  file:\n    path: " << (dir / "result.json").string()
                        << "\n    with_timestamp: true\n";
  const Outcome o = zkbench({"keeper-bench", "--config", config.string(), "-s", zkd->address()});
  EXPECT_EQ(o.exit_code, 0) << o.output;
  std::vector<fs::path> written;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().starts_with("result_")) written.push_back(entry.path());
  }
  ASSERT_EQ(written.size(), 1u) << o.output;
  const boost::json::object json = parse_object(read_text(written[0]));
  ASSERT_FALSE(json.empty());
  EXPECT_EQ(written[0].filename().string(),
            "result_" + std::to_string(json.at("timestamp").as_int64()) + ".json");
  EXPECT_EQ(answered(json, "read_results"), 50);
}

TEST(KeeperBench, RefusedFileExitsTwoNamingTheKey) {
  const fs::path config = scratch() / "bad.yaml";
  std::ofstream(config) << "generator:\n  requests:\n    get:\n      path: /a\n"
                        << "connections:\n  use_compression: true\n";
  const Outcome o = zkbench({"keeper-bench", "--config", config.string()});
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_NE(o.output.find("connections.use_compression: true asks for ClickHouse Keeper's "
                          "compressed protocol"),
            std::string::npos)
      << o.output;
  const fs::path serverless = scratch() / "serverless.yaml";
  std::ofstream(serverless) << kMissing;
  const Outcome none = zkbench({"keeper-bench", "--config", serverless.string()});
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("no server"), std::string::npos) << none.output;
}

}  // namespace

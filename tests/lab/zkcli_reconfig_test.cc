// SPDX-License-Identifier: Apache-2.0
// Apache's Java zkCli (Debian `zookeeper`, unmodified) reconfigures a
// 3-node ensemble: `reconfig -add` a started spare, `config`, `reconfig
// -remove` it, `config` again; the same commands against a zkd ensemble and
// an Apache 3.8 one (skipACL=yes, so zkCli needs no superuser). Skipped when
// zkCli is not installed; the Apache half when Apache is not.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/lab/lab_test_util.h"
#include "zklab/ensemble.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;

constexpr const char* kZkCli = "/usr/share/zookeeper/bin/zkCli.sh";
constexpr auto kZkCliDeadline = 120s;

// zkCli's output of one command against `server`, without its log lines.
std::string zkcli(const std::string& server, const std::vector<std::string>& command) {
  std::vector<std::string> args{"-server", server};
  args.insert(args.end(), command.begin(), command.end());
  const RunResult r = run_zkd(kZkCli, args, kZkCliDeadline);
  EXPECT_EQ(r.status, 0) << r.output;
  std::string kept;
  size_t start = 0;
  while (start < r.output.size()) {
    size_t end = r.output.find('\n', start);
    if (end == std::string::npos) end = r.output.size();
    const std::string line = r.output.substr(start, end - start);
    // slf4j-simple's lines start with a date or "[main]"-like thread names.
    const bool log = line.find(" INFO ") != std::string::npos ||
                     line.find(" WARN ") != std::string::npos || line.starts_with("[");
    if (!log && !line.empty()) kept += line + "\n";
    start = end + 1;
  }
  return kept;
}

void reconfigure_with_zkcli(Flavour flavour) {
  EnsembleOptions options = flavoured_ensemble_options();
  options.flavour = flavour;
  options.voters = 3;
  options.spares = 1;
  options.extra_lines = {"reconfigEnabled=true", "skipACL=yes"};
  options.temp_dir_prefix = "zk_zkcli_reconfig_test";
  auto started = Ensemble::start(options);
  ASSERT_TRUE(started.ensemble) << started.error;
  Ensemble& ensemble = *started.ensemble;
  ASSERT_EQ(ensemble.start_spare(), "");
  const std::string spare = ensemble.spare_line(4);  // server.4=127.0.0.1:q:e;127.0.0.1:c
  const std::string spare_ports =
      spare.substr(spare.find('=') + 1, spare.find(';') - spare.find('=') - 1);

  const std::string added = zkcli(ensemble.address(1), {"reconfig", "-add", spare});
  EXPECT_NE(added.find("Committed new configuration:"), std::string::npos) << added;
  EXPECT_NE(added.find("server.4=" + spare_ports + ":participant;"), std::string::npos) << added;
  ASSERT_EQ(ensemble.wait_serving(4, 30s), "") << ensemble.logs();
  const std::string config = zkcli(ensemble.address(4), {"config"});
  EXPECT_NE(config.find("server.4=" + spare_ports), std::string::npos) << config;
  EXPECT_NE(config.find("version="), std::string::npos) << config;

  const std::string removed = zkcli(ensemble.address(1), {"reconfig", "-remove", "4"});
  EXPECT_NE(removed.find("Committed new configuration:"), std::string::npos) << removed;
  EXPECT_EQ(removed.find("server.4="), std::string::npos) << removed;
  const std::string after = zkcli(ensemble.address(2), {"config"});
  EXPECT_EQ(after.find("server.4="), std::string::npos) << after;
  EXPECT_NE(after.find("server.1="), std::string::npos) << after;
  keep_if_failed(&ensemble, ::testing::Test::HasFailure());
}

class ZkCliReconfigTest : public ::testing::TestWithParam<Flavour> {};

TEST_P(ZkCliReconfigTest, AddsConfigsAndRemovesAServer) {
  if (!std::filesystem::exists(kZkCli)) GTEST_SKIP() << kZkCli << " is not installed";
  if (GetParam() == Flavour::kApache && !std::filesystem::exists("/usr/share/java/zookeeper.jar")) {
    GTEST_SKIP() << "Apache ZooKeeper is not installed";
  }
  reconfigure_with_zkcli(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Flavours, ZkCliReconfigTest,
                         ::testing::Values(Flavour::kZkd, Flavour::kApache),
                         // "..._apache": left out of the sanitized run, as Apache's tests are.
                         [](const auto& info) {
                           return "with_" + std::string(flavour_name(info.param));
                         });

}  // namespace
}  // namespace zk::lab

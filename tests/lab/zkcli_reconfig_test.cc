// SPDX-License-Identifier: Apache-2.0
// Apache's Java zkCli (Debian `zookeeper`, unmodified) and zkctl, each with
// zkCli's command lines, reconfigure a 3-node ensemble: `reconfig -add` a
// started spare, `config`, `reconfig -remove` it, `config` again; the same
// commands against a zkd ensemble and an Apache 3.8 one (skipACL=yes, so the
// shell needs no superuser). zkCli's runs are skipped when it is not
// installed; the Apache ensembles when Apache is not. RoleChangeTest makes
// an observer a participant and back, one reconfig each, on both.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "tests/lab/lab_test_util.h"
#include "zklab/process/ensemble.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;

constexpr const char* kZkCli = "/usr/share/zookeeper/bin/zkCli.sh";
constexpr auto kZkCliDeadline = 120s;

enum class Shell { kZkCli, kZkctl };

// The shell's output of one command line against `server` (given with
// zkCli's -server), without zkCli's log lines.
std::string zkcli(Shell shell, const std::string& server, const std::vector<std::string>& command) {
  std::vector<std::string> args{"-server", server};
  args.insert(args.end(), command.begin(), command.end());
  const RunResult r = run_zkd(shell == Shell::kZkCli ? kZkCli : ZKCTL_BINARY, args, kZkCliDeadline);
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

// Three voters and a spare (server 4, not started), reconfig enabled and
// no ACL check, so the shell needs no superuser.
EnsembleOptions reconfigurable_options(Flavour flavour, const char* temp_dir_prefix) {
  EnsembleOptions options = flavoured_ensemble_options();
  options.flavour = flavour;
  options.voters = 3;
  options.spares = 1;
  options.extra_lines = {"reconfigEnabled=true", "skipACL=yes"};
  options.temp_dir_prefix = temp_dir_prefix;
  return options;
}

void reconfigure_with(Shell shell, Flavour flavour) {
  auto started = Ensemble::start(reconfigurable_options(flavour, "zk_zkcli_reconfig_test"));
  ASSERT_TRUE(started.ensemble) << started.error;
  Ensemble& ensemble = *started.ensemble;
  ASSERT_EQ(ensemble.start_spare(), "");
  const std::string spare = ensemble.spare_line(4);  // server.4=127.0.0.1:q:e;127.0.0.1:c
  const std::string spare_ports =
      spare.substr(spare.find('=') + 1, spare.find(';') - spare.find('=') - 1);

  // zkCli prints "Committed new configuration:" before it; zkctl only the configuration.
  const std::string added = zkcli(shell, ensemble.address(1), {"reconfig", "-add", spare});
  EXPECT_NE(added.find("server.4=" + spare_ports + ":participant;"), std::string::npos) << added;
  ASSERT_EQ(ensemble.wait_serving(4, 30s), "") << ensemble.logs();
  const std::string config = zkcli(shell, ensemble.address(4), {"config"});
  EXPECT_NE(config.find("server.4=" + spare_ports), std::string::npos) << config;
  EXPECT_NE(config.find("version="), std::string::npos) << config;

  const std::string removed = zkcli(shell, ensemble.address(1), {"reconfig", "-remove", "4"});
  EXPECT_NE(removed.find("server.1="), std::string::npos) << removed;
  EXPECT_EQ(removed.find("server.4="), std::string::npos) << removed;
  const std::string after = zkcli(shell, ensemble.address(2), {"config"});
  EXPECT_EQ(after.find("server.4="), std::string::npos) << after;
  EXPECT_NE(after.find("server.1="), std::string::npos) << after;
  keep_if_failed(&ensemble, ::testing::Test::HasFailure());
}

// Issue 42: an observer is made a participant, then an observer again, one
// `reconfig -add` each, as operators promote observers; the same steps on
// zkd and on Apache 3.8.
void change_parts(Flavour flavour) {
  auto started = Ensemble::start(reconfigurable_options(flavour, "zk_role_change_test"));
  ASSERT_TRUE(started.ensemble) << started.error;
  Ensemble& ensemble = *started.ensemble;
  ASSERT_EQ(ensemble.start_spare(), "");
  const std::string spare = ensemble.spare_line(4);  // server.4=127.0.0.1:q:e;127.0.0.1:c
  const size_t semicolon = spare.find(';');
  const auto as = [&](const std::string& part) {
    return spare.substr(0, semicolon) + ":" + part + spare.substr(semicolon);
  };
  const auto reconfig = [&](const std::string& line) {
    return zkcli(Shell::kZkctl, ensemble.address(1), {"reconfig", "-add", line});
  };

  std::string config = reconfig(as("observer"));
  EXPECT_NE(config.find(as("observer")), std::string::npos) << config;
  EXPECT_TRUE(serves_as(ensemble, 4, ServerMode::kObserver));

  config = reconfig(as("participant"));
  EXPECT_NE(config.find(as("participant")), std::string::npos) << config;
  EXPECT_TRUE(serves_as(ensemble, 4, ServerMode::kFollower));
  EXPECT_NE(zkcli(Shell::kZkctl, ensemble.address(4), {"config"}).find(as("participant")),
            std::string::npos);

  config = reconfig(as("observer"));
  EXPECT_NE(config.find(as("observer")), std::string::npos) << config;
  EXPECT_TRUE(serves_as(ensemble, 4, ServerMode::kObserver));
  // The ensemble still writes, through the demoted observer too (zkctl
  // prints the created path).
  EXPECT_NE(zkcli(Shell::kZkctl, ensemble.address(4), {"create", "/after-demotion", "x"})
                .find("/after-demotion"),
            std::string::npos);
  keep_if_failed(&ensemble, ::testing::Test::HasFailure());
}

class RoleChangeTest : public ::testing::TestWithParam<Flavour> {};

TEST_P(RoleChangeTest, AnObserverIsPromotedAndDemotedInOneReconfigEach) {
  if (GetParam() == Flavour::kApache && !std::filesystem::exists("/usr/share/java/zookeeper.jar")) {
    GTEST_SKIP() << "Apache ZooKeeper is not installed";
  }
  change_parts(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Flavours, RoleChangeTest,
                         ::testing::Values(Flavour::kZkd, Flavour::kApache),
                         [](const auto& info) { return std::string(flavour_name(info.param)); });

class ZkCliReconfigTest : public ::testing::TestWithParam<std::tuple<Shell, Flavour>> {};

TEST_P(ZkCliReconfigTest, AddsConfigsAndRemovesAServer) {
  const auto [shell, flavour] = GetParam();
  if (shell == Shell::kZkCli && !std::filesystem::exists(kZkCli)) {
    GTEST_SKIP() << kZkCli << " is not installed";
  }
  if (flavour == Flavour::kApache && !std::filesystem::exists("/usr/share/java/zookeeper.jar")) {
    GTEST_SKIP() << "Apache ZooKeeper is not installed";
  }
  reconfigure_with(shell, flavour);
}

INSTANTIATE_TEST_SUITE_P(ShellsAndFlavours, ZkCliReconfigTest,
                         ::testing::Combine(::testing::Values(Shell::kZkCli, Shell::kZkctl),
                                            ::testing::Values(Flavour::kZkd, Flavour::kApache)),
                         // "..._apache": left out of the sanitized run, as Apache's tests are.
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) == Shell::kZkCli ? "zkcli"
                                                                                       : "zkctl") +
                                  "_with_" + std::string(flavour_name(std::get<1>(info.param)));
                         });

}  // namespace
}  // namespace zk::lab

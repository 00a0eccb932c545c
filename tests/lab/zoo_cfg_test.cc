// SPDX-License-Identifier: Apache-2.0
// zkd started on whole zoo.cfg files as users write them: the official
// Docker image's default config serves, and a key zkd refuses stops it with
// exit status 1 and a message saying what to do (docs/zoo-cfg.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>

#include "libzk/wire/records.h"
#include "tests/lab/lab_test_util.h"
#include "zklab/process/zkd_process.h"

namespace zk::lab {
namespace {

using ::testing::HasSubstr;
using zk::wire::Error;
using zk::wire::OpCode;

// The Docker image's zoo.cfg: no clientPort, one server line carrying the
// client port, standaloneEnabled=true. Two changes so that tests can run
// side by side: a free port instead of 2181, and no admin server (the image
// turns it on, on port 8080).
constexpr char kDockerDefault[] =
    "dataDir={dataDir}\n"
    "tickTime=2000\n"
    "initLimit=5\n"
    "syncLimit=2\n"
    "autopurge.snapRetainCount=3\n"
    "autopurge.purgeInterval=0\n"
    "maxClientCnxns=60\n"
    "standaloneEnabled=true\n"
    "admin.enableServer=false\n"
    "server.1=localhost:2888:3888;{port}\n";

// A fresh directory for ZkdOptions::dir, removed when the test ends.
class ZooCfgTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("zkd_zoo_cfg");
    ASSERT_FALSE(dir_.empty());
    std::filesystem::create_directories(dir_ / "data");
  }
  void TearDown() override {
    if (HasFailure()) std::cerr << "---- zkd log ----\n" << log_ << "\n";
    std::filesystem::remove_all(dir_);
  }
  ZkdOptions options(const std::string& config) {
    ZkdOptions o = zkd_options();
    o.dir = dir_;
    o.raw_config = config;
    return o;
  }

  std::filesystem::path dir_;
  std::string log_;
};

TEST_F(ZooCfgTest, DockerDefaultConfigServesOnTheServerLinesClientPort) {
  // The image's entrypoint writes myid (ZOO_MY_ID, default 1).
  std::ofstream(dir_ / "data" / "myid") << "1\n";
  auto started = ZkdProcess::start(options(kDockerDefault));
  ASSERT_TRUE(started.process) << started.error;
  ZkdProcess& zkd = *started.process;
  log_ = zkd.log();
  EXPECT_THAT(zkd.log(), HasSubstr("running standalone"));

  auto s = connect_session(zkd);
  EXPECT_EQ(call(s.connection, 1, OpCode::kCreate, create_body("/docker", "served")).header.err,
            Error::kOk);
  auto got = call(s.connection, 2, OpCode::kGetData, path_body("/docker", false));
  ASSERT_EQ(got.header.err, Error::kOk);
  zk::wire::GetDataResponse data;
  ASSERT_TRUE(zk::wire::decode(got.body, data));
  EXPECT_EQ(data.data, "served");
}

// Starts zkd on `config`, expecting it to exit at once; its log.
std::string refused_start(const ZkdOptions& o, int& exit_code) {
  ZkdOptions refused = o;
  refused.wait_until_ready = false;
  auto started = ZkdProcess::start(refused);
  EXPECT_TRUE(started.process) << started.error;
  if (!started.process) return {};
  auto status = started.process->wait_for_exit(std::chrono::seconds(15));
  EXPECT_TRUE(status) << "zkd did not exit";
  exit_code = status && WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
  return started.process->log();
}

TEST_F(ZooCfgTest, DockerDefaultWithoutMyIdIsRefusedSayingWhatToSet) {
  int exit_code = 0;
  log_ = refused_start(options(kDockerDefault), exit_code);
  EXPECT_EQ(exit_code, 1);
  EXPECT_THAT(log_, HasSubstr("clientPort is not set, and " + (dir_ / "data" / "myid").string() +
                              " does not exist"));
}

TEST_F(ZooCfgTest, DynamicConfigFileIsReadNotIgnored) {
  // Apache 3.5+ moves the server lines there; zkd reads them, so it is an
  // ensemble member (which needs a myid, not written here), not a
  // standalone server.
  std::ofstream(dir_ / "zoo.cfg.dynamic.100000000")
      << "server.1=127.0.0.1:2888:3888;2181\nserver.2=127.0.0.1:2889:3889;2182\n";
  int exit_code = 0;
  log_ = refused_start(options("dataDir={dataDir}\nclientPort={port}\nclientPortAddress=127.0.0.1\n"
                               "admin.enableServer=false\ninitLimit=5\nsyncLimit=2\n"
                               "dynamicConfigFile=" +
                               (dir_ / "zoo.cfg.dynamic.100000000").string() + "\n"),
                       exit_code);
  EXPECT_EQ(exit_code, 1);
  EXPECT_THAT(log_, HasSubstr("an ensemble member needs a myid file"));
}

TEST_F(ZooCfgTest, QuorumTlsWithoutAKeyStoreIsRefusedRatherThanServedInPlaintext) {
  int exit_code = 0;
  log_ = refused_start(options("dataDir={dataDir}\nclientPort={port}\nclientPortAddress=127.0.0.1\n"
                               "admin.enableServer=false\nsslQuorum=true\n"),
                       exit_code);
  EXPECT_EQ(exit_code, 1);
  EXPECT_THAT(log_, HasSubstr("sslQuorum needs ssl.quorum.keyStore.location"));
}

TEST_F(ZooCfgTest, AJksKeyStoreIsRefusedWithTheCommandThatConvertsIt) {
  std::ofstream(dir_ / "keystore.jks") << "not read";
  int exit_code = 0;
  log_ = refused_start(options("dataDir={dataDir}\nclientPort={port}\nclientPortAddress=127.0.0.1\n"
                               "admin.enableServer=false\n"
                               "client.portUnification=true\nssl.keyStore.location=" +
                               (dir_ / "keystore.jks").string() + "\n"),
                       exit_code);
  EXPECT_EQ(exit_code, 1);
  EXPECT_THAT(log_, HasSubstr("is a JKS store, which zkd cannot read"));
  EXPECT_THAT(log_, HasSubstr("-deststoretype PKCS12"));
}

}  // namespace
}  // namespace zk::lab

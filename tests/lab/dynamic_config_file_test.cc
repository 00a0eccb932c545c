// SPDX-License-Identifier: Apache-2.0
// Apache's dynamic configuration files, zkd beside Apache 3.8 (issue 42):
// the same steps on a 3-node zkd ensemble and a 3-node Apache ensemble,
// both with reconfigEnabled, started from zoo.cfg's own server lines —
// start; a reconfig removing server 3; a reconfig adding it back — and after
// each step, on every server, the files each flavour left are compared:
//   * zoo.cfg.bak (Apache's backupOldConfig): the zoo.cfg the lab wrote;
//   * the newest zoo.cfg.dynamic.<version>'s lines, ports and paths mapped
//     to symbols (each lab has its own), and its version the one
//     /zookeeper/config says;
//   * zoo.cfg's dynamicConfigFile line (naming that file) and its keys.
// At the first election both move the server lines to
// zoo.cfg.dynamic.<the epoch's first zxid> (Apache's version bump of
// ZOOKEEPER-1783, which zkd makes too). Then the zkd servers, their
// zoo.cfg now naming the dynamic file, restart with that membership; and,
// exported (zkd export), Apache 3.8 started on each zkd server's zoo.cfg
// and data forms the ensemble that file names, at its version, with the
// data.
// Every wait polls for its condition with a deadline.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "libzk/client/sync_client.h"
#include "tests/lab/lab_test_util.h"
#include "tests/lab/node_session.h"
#include "toolkit/poll_until.h"
#include "zklab/process/ensemble.h"
#include "zklab/process/flavour.h"
#include "zklab/process/server_status.h"
#include "zklab/process/zkd_process.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;

constexpr auto kDeadline = 60s;
constexpr const char* kSuperDigest = "super:lK75jTNcA+U9vtVEw5vB51mj/w4=";  // super:secret

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// What one server's files say, in symbols shared by both labs.
struct NodeFiles {
  std::string dynamic;   // the newest zoo.cfg.dynamic.<v>, symbolised; "" without one
  int64_t version = -1;  // its <v>; -1 without one
  std::string pointer;   // zoo.cfg's dynamicConfigFile line, symbolised
  std::string keys;      // zoo.cfg's keys, sorted, one a line
  bool operator==(const NodeFiles&) const = default;
};

std::ostream& operator<<(std::ostream& os, const NodeFiles& f) {
  return os << "{dynamic v" << std::hex << f.version << std::dec << ": [" << f.dynamic
            << "], pointer [" << f.pointer << "], keys [" << f.keys << "]}";
}

class Lab {
 public:
  explicit Lab(Flavour flavour) {
    EnsembleOptions options = flavoured_ensemble_options();
    options.flavour = flavour;
    options.voters = 3;
    options.extra_lines = {"reconfigEnabled=true",
                           std::string("DigestAuthenticationProvider.superDigest=") + kSuperDigest};
    options.temp_dir_prefix = std::string("zk_dynamic_file_") + flavour_name(flavour).data();
    auto started = Ensemble::start(options);
    EXPECT_TRUE(started.ensemble) << started.error;
    ensemble = std::move(started.ensemble);
    if (!ensemble) return;
    // The zoo.cfg the lab wrote, as zoo.cfg.bak keeps it: each node's ports
    // become symbols (Q1, E1, C1, ...), its directory N1.
    const std::string original = read_text(ensemble->directory() / "node1" / "zoo.cfg.bak");
    EXPECT_NE(original, "") << flavour_name(flavour) << ": no zoo.cfg.bak";
    static const std::regex kLine(R"(^server\.(\d+)=127\.0\.0\.1:(\d+):(\d+);127\.0\.0\.1:(\d+)$)");
    for (const std::string& line : lines_of(original)) {
      std::smatch m;
      if (!std::regex_match(line, m, kLine)) continue;
      const std::string id = m[1].str();
      symbols_[m[2].str()] = "Q" + id;
      symbols_[m[3].str()] = "E" + id;
      symbols_[m[4].str()] = "C" + id;
    }
    EXPECT_EQ(symbols_.size(), 9u) << original;
    // Each node's zoo.cfg.bak: the lab's zoo.cfg of that node.
    auto servers = [](const std::string& text) {
      std::string out;
      for (const std::string& line : lines_of(text)) {
        if (line.starts_with("server.")) out += line + "\n";
      }
      return out;
    };
    for (int id = 1; id <= 3; ++id) {
      const std::string bak = read_text(node_dir(id) / "zoo.cfg.bak");
      EXPECT_EQ(servers(bak), servers(original)) << "node " << id;
      EXPECT_NE(bak.find("\ndataDir=" +
                         (ensemble->directory() / ("node" + std::to_string(id)) / "data").string() +
                         "\n"),
                std::string::npos)
          << "node " << id << ": " << bak;
    }
  }
  ~Lab() {
    if (ensemble && ::testing::Test::HasFailure()) {
      ensemble->keep_directory();
      std::cerr << "kept " << ensemble->directory() << "\n";
    }
  }

  std::filesystem::path node_dir(int id) const {
    return std::filesystem::canonical(ensemble->directory()) / ("node" + std::to_string(id));
  }

  std::string symbolised(std::string text, int id) const {
    const std::string dir = node_dir(id).string();
    for (size_t at; (at = text.find(dir)) != std::string::npos;) text.replace(at, dir.size(), "N");
    static const std::regex kNumber(R"(\d{4,5})");
    std::string out;
    std::sregex_iterator it(text.begin(), text.end(), kNumber), end;
    size_t last = 0;
    for (; it != end; ++it) {
      out += text.substr(last, it->position() - last);
      const auto symbol = symbols_.find(it->str());
      out += symbol != symbols_.end() ? symbol->second : it->str();
      last = it->position() + it->length();
    }
    return out + text.substr(last);
  }

  NodeFiles files(int id) const {
    NodeFiles f;
    const std::filesystem::path dir = node_dir(id);
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      static const std::string kPrefix = "zoo.cfg.dynamic.";
      if (!name.starts_with(kPrefix) || name == kPrefix + "next") continue;
      int64_t v = 0;
      const char* begin = name.data() + kPrefix.size();
      auto [end, err] = std::from_chars(begin, name.data() + name.size(), v, 16);
      if (err == std::errc{} && end == name.data() + name.size() && v > f.version) f.version = v;
    }
    if (f.version >= 0) {
      char hex[17];
      auto end = std::to_chars(hex, hex + sizeof hex, static_cast<uint64_t>(f.version), 16).ptr;
      const std::string text = read_text(dir / ("zoo.cfg.dynamic." + std::string(hex, end)));
      f.dynamic = symbolised(text, id);
      // The pointer names the newest file: its version becomes V.
      f.dynamic += text.ends_with('\n') ? " (final line end)" : "";
    }
    std::vector<std::string> keys;
    for (const std::string& line : lines_of(read_text(dir / "zoo.cfg"))) {
      if (line.starts_with("dynamicConfigFile=")) {
        std::string pointer = symbolised(line, id);
        char hex[17];
        auto end = std::to_chars(hex, hex + sizeof hex, static_cast<uint64_t>(f.version), 16).ptr;
        const std::string newest = "zoo.cfg.dynamic." + std::string(hex, end);
        if (pointer.ends_with(newest))
          pointer.replace(pointer.size() - newest.size(), newest.size(),
                          "zoo.cfg.dynamic.<newest>");
        f.pointer = pointer;
      }
      keys.push_back(line.substr(0, line.find('=')));
    }
    std::sort(keys.begin(), keys.end());
    for (const std::string& key : keys) f.keys += key + " ";
    return f;
  }

  std::map<int, NodeFiles> all_files(const std::vector<int>& ids) const {
    std::map<int, NodeFiles> out;
    for (int id : ids) out[id] = files(id);
    return out;
  }

  // /zookeeper/config on node `id` after a sync; "" when it does not answer.
  std::string config_on(int id) const {
    zk::client::SyncClient client;
    if (!client.connect(ensemble->address(id), 5s, 5s).ok()) return {};
    if (!client.sync("/zookeeper/config").ok()) return {};
    auto got = client.get_data("/zookeeper/config");
    return got.ok() ? got->data.value_or("") : std::string();
  }

  // Sends `request` as the superuser through node 1 until /zookeeper/config
  // there satisfies `done` (an answer lost with a leader's epoch, or
  // NEWCONFIGNOQUORUM while a server catches up, is retried).
  bool reconfigure(const zk::wire::ReconfigRequest& request,
                   const std::function<bool(const std::string&)>& done) const {
    return toolkit::poll_until(
        [&] {
          if (done(config_on(1))) return true;
          zk::client::SyncClient client;
          if (!client.connect(ensemble->address(1), 5s, 5s).ok()) return false;
          if (!client.add_auth("digest", "super:secret").ok()) return false;
          (void)client.reconfig(request);
          return done(config_on(1));
        },
        kDeadline, 200ms);
  }

  // Waits until every node in `ids` points at a dynamic file whose version is
  // `version`; the files then.
  std::map<int, NodeFiles> wait_for_version(const std::vector<int>& ids, int64_t version) const {
    std::map<int, NodeFiles> seen;
    const bool reached = toolkit::poll_until(
        [&] {
          seen = all_files(ids);
          return std::all_of(seen.begin(), seen.end(), [&](const auto& node) {
            return node.second.version == version &&
                   node.second.pointer == "dynamicConfigFile=N/zoo.cfg.dynamic.<newest>";
          });
        },
        kDeadline, 50ms);
    EXPECT_TRUE(reached) << "not every node wrote version " << std::hex << version;
    return seen;
  }

  std::unique_ptr<Ensemble> ensemble;

 private:
  std::map<std::string, std::string> symbols_;  // port -> Q1, E1, C1, ...
};

int64_t version_of(const std::string& config) {
  const size_t at = config.rfind("version=");
  if (at == std::string::npos) return -1;
  int64_t v = -1;
  std::from_chars(config.data() + at + 8, config.data() + config.size(), v, 16);
  return v;
}

bool names_server(const std::string& config, int id) {
  return config.find("server." + std::to_string(id) + "=") != std::string::npos;
}

TEST(ApacheDynamicFiles, ZkdWritesWhatApacheWritesAfterEachReconfig) {
  Lab apache(Flavour::kApache);
  ASSERT_TRUE(apache.ensemble);
  Lab zkd(Flavour::kZkd);
  ASSERT_TRUE(zkd.ensemble);
  const std::vector<int> all = {1, 2, 3};

  // Start: both move the lines out at the first election (version: the
  // first zxid of the leader's epoch, which /zookeeper/config says too).
  const int64_t first = version_of(apache.config_on(1));
  EXPECT_EQ(first & 0xffffffff, 0) << std::hex << first;
  EXPECT_GT(first, 0);
  const auto apache_started = apache.wait_for_version(all, first);
  for (int id : all) {
    EXPECT_EQ(apache_started.at(id).dynamic,
              "server.1=127.0.0.1:Q1:E1:participant;127.0.0.1:C1\n"
              "server.2=127.0.0.1:Q2:E2:participant;127.0.0.1:C2\n"
              "server.3=127.0.0.1:Q3:E3:participant;127.0.0.1:C3")
        << "node " << id;
  }
  const int64_t zkd_first = version_of(zkd.config_on(1));
  EXPECT_EQ(zkd_first & 0xffffffff, 0) << std::hex << zkd_first;
  EXPECT_GT(zkd_first, 0);
  const auto zkd_started = zkd.wait_for_version(all, zkd_first);
  // Epochs may differ between the two labs; the files agree in all else.
  for (int id : all) {
    EXPECT_EQ(zkd_started.at(id).dynamic, apache_started.at(id).dynamic) << "node " << id;
    EXPECT_EQ(zkd_started.at(id).pointer, apache_started.at(id).pointer) << "node " << id;
    EXPECT_EQ(zkd_started.at(id).keys, apache_started.at(id).keys) << "node " << id;
  }

  // Server 3 leaves.
  zk::wire::ReconfigRequest remove;
  remove.leaving = "3";
  auto removed = [](const std::string& c) { return !c.empty() && !names_server(c, 3); };
  ASSERT_TRUE(apache.reconfigure(remove, removed)) << apache.ensemble->logs();
  ASSERT_TRUE(zkd.reconfigure(remove, removed)) << zkd.ensemble->logs();
  const auto apache_removed = apache.wait_for_version(all, version_of(apache.config_on(1)));
  const auto zkd_removed = zkd.wait_for_version(all, version_of(zkd.config_on(1)));
  EXPECT_EQ(zkd_removed, apache_removed);
  EXPECT_EQ(zkd_removed.at(1).dynamic,
            "server.1=127.0.0.1:Q1:E1:participant;127.0.0.1:C1\n"
            "server.2=127.0.0.1:Q2:E2:participant;127.0.0.1:C2");

  // Server 3 (still running, following without a vote) joins again.
  auto line3 = [](const Lab& lab) {
    std::string line = "server.3=127.0.0.1:Q3:E3:participant;127.0.0.1:C3";
    const std::string bak = read_text(lab.node_dir(1) / "zoo.cfg.bak");
    std::smatch m;
    static const std::regex kLine3(R"(server\.3=127\.0\.0\.1:(\d+):(\d+);127\.0\.0\.1:(\d+))");
    if (!std::regex_search(bak, m, kLine3)) return line;
    return "server.3=127.0.0.1:" + m[1].str() + ":" + m[2].str() +
           ":participant;127.0.0.1:" + m[3].str();
  };
  auto added = [](const std::string& c) { return names_server(c, 3); };
  zk::wire::ReconfigRequest add;
  add.joining = line3(apache);
  ASSERT_TRUE(apache.reconfigure(add, added)) << apache.ensemble->logs();
  add.joining = line3(zkd);
  ASSERT_TRUE(zkd.reconfigure(add, added)) << zkd.ensemble->logs();
  const auto apache_added = apache.wait_for_version(all, version_of(apache.config_on(1)));
  const auto zkd_added = zkd.wait_for_version(all, version_of(zkd.config_on(1)));
  EXPECT_EQ(zkd_added, apache_added);
  EXPECT_EQ(zkd_added.at(3).dynamic, apache_started.at(3).dynamic);

  // zkd restarted on its rewritten zoo.cfg: the same membership, and the
  // version the file's name gives.
  const std::string before = zkd.config_on(1);
  for (int id : all) ASSERT_TRUE(zkd.ensemble->kill(id)) << "node " << id;
  for (int id : all) ASSERT_EQ(zkd.ensemble->respawn(id), "") << "node " << id;
  ASSERT_EQ(zkd.ensemble->wait_all_serving(kDeadline), "") << zkd.ensemble->logs();
  for (int id : all) EXPECT_EQ(zkd.config_on(id), before) << "node " << id;
  EXPECT_EQ(zkd.all_files(all), zkd_added);
  {
    zk::client::SyncClient client;
    ASSERT_TRUE(client.connect(zkd.ensemble->address(1), 5s, 5s).ok());
    ASSERT_TRUE(client.create("/written-in-zkd", std::string("x")).ok());
  }

  // Back to Apache (docs/migration.md): each zkd server stopped, its data
  // exported into dataDir's place, and Apache started on zoo.cfg as zkd
  // left it: the ensemble the dynamic file names, at the file's version.
  for (int id : all) ASSERT_TRUE(zkd.ensemble->kill(id)) << "node " << id;
  std::vector<std::unique_ptr<ZkdProcess>> back;
  for (int id : all) {
    const std::filesystem::path dir = zkd.node_dir(id);
    const RunResult exported = run_zkd(
        {"export", "--config", (dir / "zoo.cfg").string(), (dir / "exported").string()}, kDeadline);
    ASSERT_EQ(exported.status, 0) << exported.output;
    std::filesystem::rename(dir / "data", dir / "data.zkd");
    std::filesystem::rename(dir / "exported", dir / "data");
    ZkdOptions options;
    options.command = apache_command(ApacheRuntime{}, "{config}");
    options.dir = dir;
    options.port = zkd.ensemble->node(id).port();
    options.raw_config = read_text(dir / "zoo.cfg");  // written back as it is
    options.wait_until_ready = false;
    auto started = ZkdProcess::start(options);
    ASSERT_TRUE(started.process) << started.error;
    back.push_back(std::move(started.process));
  }
  for (int id : all) {
    const uint16_t port = zkd.ensemble->node(id).port();
    EXPECT_TRUE(toolkit::poll_until([&] { return is_serving(server_mode("127.0.0.1", port, 1s)); },
                                    kDeadline, 100ms))
        << "Apache on node " << id << "'s files does not serve:\n"
        << read_text(zkd.node_dir(id) / "zkd.log");
  }
  for (int id : all) {
    EXPECT_EQ(zkd.config_on(id), before) << "Apache on node " << id;
    zk::client::SyncClient client;
    ASSERT_TRUE(client.connect(zkd.ensemble->address(id), 5s, 5s).ok());
    auto exists = client.exists("/written-in-zkd");
    ASSERT_TRUE(exists.ok());
    EXPECT_TRUE(exists->has_value()) << "Apache on node " << id;
  }
}

}  // namespace
}  // namespace zk::lab

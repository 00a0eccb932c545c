// SPDX-License-Identifier: Apache-2.0
#include "zklab_lab.h"

#include <stdlib.h>

#include <cstdlib>
#include <fstream>
#include <thread>
#include <utility>

#include "toolkit/child_process.h"
#include "toolkit/poll_until.h"
#include "zklab/process/server_status.h"

namespace zk::bench {

namespace {

using namespace std::chrono_literals;

// The client port node `id`'s configuration gives it:
// "server.<id>=...;127.0.0.1:<client>", in zoo.cfg or in the dynamic
// configuration file it names. 0 when there is none.
uint16_t client_port_of(const std::filesystem::path& cfg, int id) {
  const std::string prefix = "server." + std::to_string(id) + "=";
  const std::string dynamic = "dynamicConfigFile=";
  std::vector<std::filesystem::path> files = {cfg};
  for (size_t i = 0; i < files.size(); ++i) {
    std::ifstream in(files[i]);
    for (std::string line; std::getline(in, line);) {
      if (line.starts_with(dynamic)) files.emplace_back(line.substr(dynamic.size()));
      if (!line.starts_with(prefix)) continue;
      const auto semicolon = line.find(';');
      const auto colon = line.rfind(':');
      if (semicolon == std::string::npos || colon == std::string::npos || colon < semicolon)
        return 0;
      return static_cast<uint16_t>(std::atoi(line.c_str() + colon + 1));
    }
  }
  return 0;
}

pid_t pid_in(const std::filesystem::path& file) {
  std::ifstream in(file);
  long pid = -1;
  if (!(in >> pid)) return -1;
  return static_cast<pid_t>(pid);
}

}  // namespace

ZklabLab::ZklabLab(ZklabLabOptions options, std::filesystem::path temp)
    : options_(std::move(options)), temp_(std::move(temp)), lab_(temp_ / "lab") {}

std::unique_ptr<ZklabLab> ZklabLab::start(const ZklabLabOptions& options, std::string& error) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string pattern = std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") + "/" +
                        options.temp_dir_prefix + "_XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    error = "cannot create a directory like " + pattern;
    return nullptr;
  }
  std::unique_ptr<ZklabLab> lab(new ZklabLab(options, pattern));
  std::vector<std::string> up = {"up", "-n", std::to_string(options.voters), "--tick-ms",
                                 std::to_string(options.tick_time_ms)};
  if (options.direct) up.push_back("--direct");
  for (const auto& setting : options.settings) {
    up.push_back("--set");
    up.push_back(setting);
  }
  lab->up_ = true;  // whatever `up` left running, the destructor takes down
  if (error = lab->run(up); !error.empty()) return nullptr;
  for (int id : lab->ids()) {
    const uint16_t port = client_port_of(lab->lab_ / ("n" + std::to_string(id)) / "zoo.cfg", id);
    if (port == 0) {
      error = "no client port for node " + std::to_string(id) + " in " + lab->lab_.string();
      return nullptr;
    }
    lab->client_ports_.push_back(port);
  }
  return lab;
}

ZklabLab::~ZklabLab() {
  if (up_) (void)run({"down"});
  if (!keep_) {
    std::error_code ignored;  // a directory left behind is all that can go wrong
    std::filesystem::remove_all(temp_, ignored);
  }
}

std::string ZklabLab::run(const std::vector<std::string>& args,
                          std::optional<std::chrono::seconds> timeout) const {
  const auto seconds = timeout.value_or(options_.command_deadline);
  std::vector<std::string> argv = {options_.zklab,
                                   "--dir",
                                   lab_.string(),
                                   "--zkd",
                                   options_.zkd,
                                   "--timeout",
                                   std::to_string(seconds.count())};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string command;
  for (const auto& a : args) command += (command.empty() ? "" : " ") + a;
  std::string error;
  auto child = toolkit::ChildProcess::start({.argv = argv, .log = temp_ / "zklab.log"}, error);
  if (!child) return "cannot run zklab " + command + ": " + error;
  const auto status = child->wait_for_exit(seconds + 30s);
  if (!status) return "zklab " + command + " did not finish in time";
  if (const int code = toolkit::ChildProcess::shell_code(*status); code != 0) {
    return "zklab " + command + " exited with " + std::to_string(code) + " (see " +
           (temp_ / "zklab.log").string() + ")";
  }
  return {};
}

std::vector<int> ZklabLab::ids() const {
  std::vector<int> out;
  for (int id = 1; id <= options_.voters; ++id) out.push_back(id);
  return out;
}

std::string ZklabLab::address(int id) const {
  return "127.0.0.1:" + std::to_string(client_ports_.at(static_cast<size_t>(id - 1)));
}

std::optional<int> ZklabLab::leader(std::chrono::milliseconds deadline) {
  std::optional<int> found;
  toolkit::poll_until(
      [&] {
        for (int id : ids()) {
          if (zk::lab::server_mode("127.0.0.1", client_ports_[static_cast<size_t>(id - 1)]) ==
              zk::lab::ServerMode::kLeader) {
            found = id;
          }
        }
        return found.has_value();
      },
      std::chrono::steady_clock::now() + deadline, 50ms);
  return found;
}

bool ZklabLab::kill(int id) { return run({"kill", std::to_string(id)}).empty(); }

std::string ZklabLab::wipe_data(int id) {
  const auto data = lab_ / ("n" + std::to_string(id)) / "data";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(data, ec)) {
    const auto name = entry.path().filename();
    if (name == "myid" || name == "session.key") continue;
    std::filesystem::remove_all(entry.path(), ec);
    if (ec) return "cannot remove " + entry.path().string() + ": " + ec.message();
  }
  return ec ? "cannot list " + data.string() + ": " + ec.message() : "";
}

std::string ZklabLab::restart(int id, std::chrono::milliseconds deadline) {
  const auto seconds =
      std::max(std::chrono::seconds(1), std::chrono::duration_cast<std::chrono::seconds>(deadline));
  return run({"start", std::to_string(id)}, seconds);
}

int64_t ZklabLab::znode_count(int id) const {
  const auto m = zk::lab::mntr("127.0.0.1", client_ports_.at(static_cast<size_t>(id - 1)));
  const auto it = m.find("zk_znode_count");
  return it == m.end() ? -1 : std::atoll(it->second.c_str());
}

pid_t ZklabLab::pid(int id) const { return pid_in(lab_ / ("n" + std::to_string(id)) / "zkd.pid"); }

std::filesystem::path ZklabLab::log_path(int id) const {
  return lab_ / ("n" + std::to_string(id)) / "zkd.log";
}

pid_t ZklabLab::relay_pid() const { return options_.direct ? -1 : pid_in(lab_ / "relay.pid"); }

}  // namespace zk::bench

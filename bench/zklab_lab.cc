// SPDX-License-Identifier: Apache-2.0
#include "zklab_lab.h"

#include <stdlib.h>

#include <cstdlib>
#include <thread>
#include <utility>

#include "toolkit/child_process.h"
#include "toolkit/poll_until.h"
#include "zklab/process/node_config.h"
#include "zklab/process/server_status.h"

namespace zk::bench {

namespace {

using namespace std::chrono_literals;

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
    const auto config =
        zk::lab::read_node_config(lab->lab_ / ("n" + std::to_string(id)) / "zoo.cfg", id);
    const uint16_t port = config ? config->client_port : 0;
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

pid_t ZklabLab::pid(int id) const {
  return zk::lab::read_pid_file(lab_ / ("n" + std::to_string(id)) / "zkd.pid").value_or(-1);
}

std::filesystem::path ZklabLab::log_path(int id) const {
  return lab_ / ("n" + std::to_string(id)) / "zkd.log";
}

pid_t ZklabLab::relay_pid() const {
  return options_.direct ? -1 : zk::lab::read_pid_file(lab_ / "relay.pid").value_or(-1);
}

}  // namespace zk::bench

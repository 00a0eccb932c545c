// SPDX-License-Identifier: Apache-2.0
#include "zklab/process/zkd_process.h"

#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "zklab/process/four_letter_word.h"

namespace zk::lab {

using Clock = std::chrono::steady_clock;

std::filesystem::path make_temp_dir(const std::string& prefix) {
  std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) return {};
  return tmpl;
}

namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos; pos += to.size()) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

std::string config_text(const ZkdOptions& o, uint16_t port, const std::filesystem::path& data) {
  if (o.raw_config) {
    return replace_all(replace_all(*o.raw_config, "{port}", std::to_string(port)), "{dataDir}",
                       data.string());
  }
  std::ostringstream cfg;
  cfg << "tickTime=" << o.tick_time_ms << "\n"
      << "dataDir=" << data.string() << "\n"
      << "clientPort=" << port << "\n"
      << "clientPortAddress=127.0.0.1\n"
      << "maxClientCnxns=" << o.max_client_cnxns << "\n"
      << "4lw.commands.whitelist=" << o.four_letter_whitelist << "\n";
  if (o.min_session_timeout_ms) cfg << "minSessionTimeout=" << *o.min_session_timeout_ms << "\n";
  if (o.max_session_timeout_ms) cfg << "maxSessionTimeout=" << *o.max_session_timeout_ms << "\n";
  // No admin server (HTTP on 0.0.0.0:8080 by default, as Apache's) unless the
  // extra lines configure one: many zkd run side by side here.
  bool admin_configured = false;
  for (const auto& line : o.extra_lines) admin_configured |= line.rfind("admin.", 0) == 0;
  if (!admin_configured) cfg << "admin.enableServer=false\n";
  for (const auto& line : o.extra_lines) cfg << line << "\n";
  return cfg.str();
}

// The bytes of a file from `offset` on (empty if it cannot be read).
std::string read_file(const std::filesystem::path& p, uintmax_t offset = 0) {
  std::ifstream in(p, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

StartResult ZkdProcess::start(const ZkdOptions& options) {
  StartResult result;
  if (options.binary.empty() && options.command.empty()) {
    result.error = "no zkd binary given";
    return result;
  }
  std::unique_ptr<ZkdProcess> p(new ZkdProcess());
  p->start_deadline_ = options.start_deadline;
  if (options.dir) {
    std::error_code ec;
    std::filesystem::create_directories(*options.dir, ec);
    if (ec) {
      result.error = "cannot create " + options.dir->string() + ": " + ec.message();
      return result;
    }
    p->dir_ = *options.dir;
  } else {
    p->dir_ = make_temp_dir(options.temp_dir_prefix);
    if (p->dir_.empty()) {
      result.error = "cannot create a temporary directory";
      return result;
    }
    p->owns_dir_ = true;
  }
  if (options.port == 0) p->port_hold_ = PortReservation::any();
  p->port_ = options.port != 0 ? options.port : p->port_hold_.port();
  if (p->port_ == 0) {
    result.error = "cannot find a free loopback port";
    return result;
  }
  {
    std::ofstream out(p->dir_ / "zoo.cfg", std::ios::trunc);
    out << config_text(options, p->port_, p->data_dir());
    if (!out) {
      result.error = "cannot write " + (p->dir_ / "zoo.cfg").string();
      return result;
    }
  }
  const std::string config = (p->dir_ / "zoo.cfg").string();
  p->command_ = options.command;
  if (p->command_.empty()) p->command_ = {options.binary, "--config", "{config}"};
  for (auto& arg : p->command_) {
    if (arg == "{config}") arg = config;
  }
  p->environment_ = options.environment;
  result.error = p->respawn();
  if (result.error.empty() && options.wait_until_ready) {
    result.error = p->wait_ready(p->start_deadline_);
  }
  if (result.error.empty()) result.process = std::move(p);
  return result;
}

std::string ZkdProcess::respawn() {
  if (running()) return "zkd still runs: stop or kill it first";
  exit_status_.reset();
  std::error_code ec;
  auto size = std::filesystem::file_size(log_path(), ec);
  log_start_ = ec ? 0 : size;
  std::string error;
  child_ = toolkit::ChildProcess::start(
      {.argv = command_, .environment = environment_, .log = log_path()}, error);
  pid_ = child_ ? child_->pid() : -1;
  if (!child_) return "cannot start " + command_.front() + ": " + error;
  return {};
}

std::string ZkdProcess::wait_ready(std::chrono::milliseconds deadline) {
  if (pid_ <= 0) return "zkd was not started";
  auto until = Clock::now() + deadline;
  while (Clock::now() < until) {
    if (!running()) return "zkd exited during start-up; its log:\n" + log();
    auto text = four_letter_word(host_, port_, "srvr", std::chrono::seconds(1));
    if (text && text->rfind("Zookeeper version: ", 0) == 0) return {};
    // Not listening yet: wait (briefly) for the process to exit instead of
    // spinning; then ask again.
    if (wait_for_exit(std::chrono::milliseconds(20))) {
      return "zkd exited during start-up; its log:\n" + log();
    }
  }
  return "zkd did not answer srvr in time; its log:\n" + log();
}

std::string ZkdProcess::restart() {
  auto error = respawn();
  return error.empty() ? wait_ready(start_deadline_) : error;
}

bool ZkdProcess::kill(std::chrono::milliseconds deadline) {
  if (!running()) return true;
  child_->signal(SIGKILL);
  return wait_for_exit(deadline).has_value();
}

ZkdProcess::~ZkdProcess() {
  child_.reset();  // SIGKILLed and reaped if it still runs, before its directory goes
  if (owns_dir_ && !keep_dir_ && !dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

bool ZkdProcess::signal(int signal_number) {
  if (!running()) return false;
  return child_->signal(signal_number);
}

bool ZkdProcess::running() {
  if (!child_ || exit_status_) return false;
  exit_status_ = child_->poll_exit();
  return !exit_status_;
}

std::optional<int> ZkdProcess::wait_for_exit(std::chrono::milliseconds deadline) {
  if (running()) exit_status_ = child_->wait_for_exit(deadline);
  return exit_status_;
}

std::string ZkdProcess::log() const { return read_file(log_path(), log_start_); }

std::string ZkdProcess::log_tail(size_t bytes) const {
  std::string text = log();
  return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

RunResult run_zkd(const std::string& binary, const std::vector<std::string>& args,
                  std::chrono::milliseconds deadline) {
  RunResult result;
  auto dir = make_temp_dir("zkd_run");
  if (dir.empty()) return result;
  std::vector<std::string> argv{binary};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string error;
  if (auto child = toolkit::ChildProcess::start({.argv = argv, .log = dir / "out.log"}, error)) {
    if (auto status = child->wait_for_exit(deadline)) result.status = *status;
    child.reset();  // SIGKILLed and reaped if it outlived the deadline
    result.output = read_file(dir / "out.log");
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return result;
}

}  // namespace zk::lab

// SPDX-License-Identifier: Apache-2.0
#include "zkbench/paper_lab.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <iostream>
#include <thread>

#include "zkbench/engine.h"

namespace zk::bench {

using zk::lab::Ensemble;
using zk::lab::EnsembleOptions;
using zk::lab::Flavour;

namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int) { g_stop.store(true); }

// lab.ensemble_warmup of get=50,set=50 on every server; empty, or why not.
std::string warm_up(const PaperLab& lab, const Ensemble& ensemble) {
  if (lab.ensemble_warmup.count() <= 0) return "";
  EngineOptions o;
  o.pool.addresses = ensemble_addresses(ensemble);
  o.pool.sessions = 24;
  o.pool.threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 2);
  o.in_flight = 8;
  o.workload.mix = reads_mix(50);
  o.root = "/zkbench-paper-warmup";
  o.duration = lab.ensemble_warmup;
  Engine engine(o);
  if (std::string e = engine.connect(); !e.empty()) return e;
  if (std::string e = engine.setup(); !e.empty()) return "setup: " + e;
  return engine.run().error;
}

}  // namespace

void install_paper_stop() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

bool paper_stopped() { return g_stop.load(); }

bool paper_sleep_until(std::chrono::steady_clock::time_point t) {
  // A signal handler can set a flag but not notify a condition variable:
  // look at the flag every 50 ms.
  while (!paper_stopped() && std::chrono::steady_clock::now() < t) {
    std::this_thread::sleep_until(
        std::min(t, std::chrono::steady_clock::now() + std::chrono::milliseconds(50)));
  }
  return !paper_stopped();
}

std::unique_ptr<Ensemble> start_paper_ensemble(const PaperLab& lab, Flavour flavour, int voters,
                                               std::vector<std::string>& problems) {
  if (paper_stopped()) return nullptr;
  EnsembleOptions o;
  o.flavour = flavour;
  o.zkd_binary = lab.zkd;
  o.voters = voters;
  o.tick_time_ms = lab.tick_ms;
  o.temp_dir_prefix = "zkbench_paper";
  o.start_deadline = std::chrono::seconds(60 + 10 * voters);
  // Every client is on 127.0.0.1 here (the paper's came from 35 machines):
  // table3's 200 clients would pass Apache's default of 60 per IP.
  o.max_client_cnxns = 0;
  // fig7's load comes from the leader's admin server (paper_broadcast.h).
  if (flavour == Flavour::kZkd) {
    o.admin_servers = true;
    o.extra_lines.push_back("admin.broadcast.enabled=true");
  }
  o.java_flags = {"-Xms" + lab.apache_heap, "-Xmx" + lab.apache_heap,
                  "-Dzookeeper.admin.enableServer=false", "-Dzookeeper.jmx.log4j.disable=true",
                  "-Dorg.slf4j.simpleLogger.showDateTime=true"};
  paper_progress(lab,
                 "starting " + flavour_label(flavour) + ", " + std::to_string(voters) + " servers");
  auto started = Ensemble::start(o);
  if (!started.ensemble) {
    problems.push_back(flavour_label(flavour) + ", " + std::to_string(voters) +
                       " servers: the ensemble did not start: " + started.error);
    return nullptr;
  }
  if (lab.keep_dirs) {
    started.ensemble->keep_directory();
    paper_progress(lab, "  its directory: " + started.ensemble->directory().string());
  }
  paper_progress(lab, "  warming it up");
  if (std::string e = warm_up(lab, *started.ensemble); !e.empty()) {
    problems.push_back(flavour_label(flavour) + ", " + std::to_string(voters) +
                       " servers: the warm-up failed: " + e);
    return nullptr;
  }
  return std::move(started.ensemble);
}

std::vector<pid_t> ensemble_pids(const Ensemble& ensemble) {
  std::vector<pid_t> pids;
  for (int id : ensemble.ids()) pids.push_back(ensemble.node(id).pid());
  return pids;
}

std::vector<std::string> ensemble_addresses(const Ensemble& ensemble) {
  std::vector<std::string> out;
  for (int id : ensemble.ids()) out.push_back(ensemble.address(id));
  return out;
}

std::string flavour_label(Flavour flavour) { return std::string(zk::lab::flavour_name(flavour)); }

void paper_progress(const PaperLab& lab, const std::string& line) {
  if (lab.progress) std::cerr << "zkbench paper: " << line << std::endl;
}

}  // namespace zk::bench

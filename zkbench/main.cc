// zkbench: a workload generator and latency meter for ZooKeeper-compatible
// ensembles. Parses the command line (CLI11) and runs `zkbench run`: connect,
// set up the znodes, run (with a progress line on a terminal), report on
// stdout. Exit codes: 0 ok (request errors are reported, not fatal), 1 error
// (no connection, setup failed), 2 bad arguments.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "zkbench/engine.h"
#include "zkbench/progress.h"
#include "zkbench/report.h"

namespace {

using namespace zk::bench;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

std::atomic<Engine*> g_engine{nullptr};

// SIGINT/SIGTERM: end the run early; the report covers what was measured.
extern "C" void on_signal(int) {
  if (Engine* e = g_engine.load()) e->stop();
}

std::chrono::milliseconds seconds(double s) {
  return std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
}

std::vector<std::string> split_servers(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

int usage(const CLI::App& app, const std::string& message) {
  std::cerr << "zkbench: " << message << "\n" << app.help();
  return kExitUsage;
}

int run(int argc, char** argv) {
  CLI::App app{"zkbench: workloads and latencies for ZooKeeper-compatible ensembles", "zkbench"};
  app.require_subcommand(1);
  app.footer("\nExit codes: 0 ok (request errors are reported), 1 error, 2 bad arguments.");

  EngineOptions o;
  std::string servers;
  int reads = 90;
  std::string mix;
  std::string keys = "uniform";
  double duration_s = 10, warmup_s = 2, connect_timeout_s = 20;
  int64_t session_timeout_ms = 30000;
  bool json = false, csv = false;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  auto* r = app.add_subcommand("run", "run one workload and report throughput and latency");
  r->add_option("-s,--servers", servers, "connect string: host:port,host:port,...")
      ->required()
      ->type_name("HOSTS");
  r->add_option("--sessions", o.pool.sessions, "sessions (default 8)")->check(CLI::Range(1, 10000));
  r->add_option("--in-flight", o.in_flight, "requests in flight per session (default 1)")
      ->check(CLI::Range(1, 10000));
  auto* threads = r->add_option("--threads", o.pool.threads,
                                "io threads (default: sessions, at most the cores)")
                      ->check(CLI::Range(1, 1024));
  auto* reads_opt =
      r->add_option("--reads", reads, "percent of reads: get=R,set=100-R (default 90)")
          ->check(CLI::Range(0, 100));
  r->add_option("--mix", mix,
                "op mix, e.g. get=70,set=20,exists=10 (get exists children set create)")
      ->excludes(reads_opt);
  r->add_option("--value-bytes", o.workload.value_bytes, "bytes per write (default 1024)")
      ->check(CLI::Range(0, 1 << 20));
  r->add_option("--znodes", o.workload.keys.znodes, "key znodes (default 1000)")
      ->check(CLI::Range(int64_t{1}, int64_t{10'000'000}));
  r->add_option("--keys", keys, "key distribution: uniform or zipf (default uniform)")
      ->check(CLI::IsMember({"uniform", "zipf"}));
  r->add_option("--zipf-s", o.workload.keys.zipf_s, "zipf exponent (default 0.99)")
      ->check(CLI::Range(0.0, 10.0));
  r->add_option("--seed", o.workload.seed, "random seed (default 1)");
  auto* duration = r->add_option("--duration", duration_s, "measured seconds (default 10)")
                       ->check(CLI::Range(0.1, 86400.0));
  r->add_option("--ops", o.ops, "measure this many requests instead of a duration")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->excludes(duration);
  r->add_option("--warmup", warmup_s, "warm-up seconds, not counted (default 2)")
      ->check(CLI::Range(0.0, 3600.0));
  r->add_option("--rate", o.rate, "open loop: requests/s in all (default 0: closed loop)")
      ->check(CLI::Range(0.0, 1e9));
  r->add_option("--root", o.root, "parent znode of the benchmark's znodes (default /zkbench)");
  r->add_option("--session-timeout-ms", session_timeout_ms, "requested (default 30000)")
      ->check(CLI::Range(int64_t{1000}, int64_t{600000}));
  r->add_option("--connect-timeout", connect_timeout_s, "seconds per session (default 20)")
      ->check(CLI::Range(1.0, 600.0));
  auto* json_flag = r->add_flag("--json", json, "print the report as one JSON object");
  r->add_flag("--csv", csv, "print the report as CSV")->excludes(json_flag);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    return usage(app, e.what());
  }

  o.pool.addresses = split_servers(servers);
  if (o.pool.addresses.empty()) return usage(*r, "--servers names no server");
  for (const auto& a : o.pool.addresses) {
    if (a.find('/') != std::string::npos) return usage(*r, "--servers takes no chroot");
  }
  if (o.root.size() < 2 || o.root[0] != '/' || o.root.back() == '/') {
    return usage(*r, "--root must be an absolute path other than /");
  }
  if (!mix.empty()) {
    MixParse parsed = parse_mix(mix);
    if (!parsed.error.empty()) return usage(*r, "--mix: " + parsed.error);
    o.workload.mix = parsed.mix;
  } else {
    o.workload.mix = reads_mix(reads);
  }
  o.workload.keys.distribution = *parse_distribution(keys);
  if (threads->count() == 0) o.pool.threads = std::min(o.pool.sessions, cores);
  o.duration = seconds(duration_s);
  o.warmup = seconds(warmup_s);
  o.pool.session_timeout = std::chrono::milliseconds(session_timeout_ms);
  o.pool.connect_deadline = seconds(connect_timeout_s);

  Engine engine(o);
  if (std::string e = engine.connect(); !e.empty()) {
    std::cerr << "zkbench: " << e << "\n";
    return kExitError;
  }
  if (std::string e = engine.setup(); !e.empty()) {
    std::cerr << "zkbench: setup: " << e << "\n";
    return kExitError;
  }
  g_engine.store(&engine);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  RunResult result;
  {
    std::optional<ProgressLine> line;
    if (isatty(STDERR_FILENO) == 1) line.emplace(engine, stderr);
    result = engine.run();
  }
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  g_engine.store(nullptr);
  if (!result.error.empty()) {
    std::cerr << "zkbench: " << result.error << "\n";
    return kExitError;
  }
  std::cout << (json  ? json_report(o, result)
                : csv ? csv_report(o, result)
                      : text_report(o, result));
  std::cout.flush();
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "zkbench: " << e.what() << "\n";
    return kExitError;
  }
}

// SPDX-License-Identifier: Apache-2.0
#include "zkbench/cli_options.h"

#include <algorithm>
#include <iostream>
#include <limits>
#include <sstream>
#include <thread>

#include "libzk/java/jvm_flags.h"
#include "toolkit/client_security_flags.h"
#include "zkbench/bench_command.h"

namespace zk::bench {

namespace {

std::chrono::milliseconds seconds(double s) {
  return std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
}

}  // namespace

void add_workload_options(CLI::App& c, WorkloadFlags& f, bool with_mix) {
  EngineOptions& o = f.engine;
  c.add_option("--sessions", o.pool.sessions, "sessions (default 8)")->check(CLI::Range(1, 10000));
  c.add_option("--in-flight", o.in_flight, "requests in flight per session (default 1)")
      ->check(CLI::Range(1, 10000));
  f.threads =
      c.add_option("--threads", o.pool.threads, "io threads (default: sessions, at most the cores)")
          ->check(CLI::Range(1, 1024));
  if (with_mix) {
    auto* reads = c.add_option("--reads", f.reads, "percent of reads: get=R,set=100-R (default 90)")
                      ->check(CLI::Range(0, 100));
    c.add_option("--mix", f.mix,
                 "op mix, e.g. get=70,set=20,exists=10 (get exists children set create multi)")
        ->excludes(reads);
  }
  c.add_option("--multi-ops", o.workload.multi_ops, "setData ops per multi (default 2)")
      ->check(CLI::Range(1, 1000));
  c.add_option("--value-bytes", o.workload.value_bytes, "bytes per write (default 1024)")
      ->check(CLI::Range(0, 1 << 20));
  c.add_option("--znodes", o.workload.keys.znodes, "key znodes (default 1000)")
      ->check(CLI::Range(int64_t{1}, int64_t{10'000'000}));
  c.add_option("--keys", f.keys, "key distribution: uniform or zipf (default uniform)")
      ->check(CLI::IsMember({"uniform", "zipf"}));
  c.add_option("--zipf-s", o.workload.keys.zipf_s, "zipf exponent (default 0.99)")
      ->check(CLI::Range(0.0, 10.0));
  c.add_option("--seed", o.workload.seed, "random seed (default 1)");
  auto* duration = c.add_option("--duration", f.duration_s, "measured seconds (default 10)")
                       ->check(CLI::Range(0.1, 86400.0));
  c.add_option("--ops", o.ops, "measure this many requests instead of a duration")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->excludes(duration);
  c.add_option("--warmup", f.warmup_s, "warm-up seconds, not counted (default 2)")
      ->check(CLI::Range(0.0, 3600.0));
  c.add_option("--rate", o.rate, "open loop: requests/s in all (default 0: closed loop)")
      ->check(CLI::Range(0.0, 1e9));
  c.add_option("--root", o.root, "parent znode of the benchmark's znodes (default /zkbench)");
  add_session_options(c, f.session_timeout_ms, f.connect_timeout_s);
  toolkit::add_client_tls_options(c, f.tls);
  toolkit::add_client_sasl_options(c, f.sasl);
}

void add_session_options(CLI::App& c, int64_t& session_timeout_ms, double& connect_timeout_s) {
  c.add_option("--session-timeout-ms", session_timeout_ms, "requested (default 30000)")
      ->check(CLI::Range(int64_t{1000}, int64_t{600000}));
  c.add_option("--connect-timeout", connect_timeout_s, "seconds per session (default 20)")
      ->check(CLI::Range(1.0, 600.0));
}

void add_servers_option(CLI::App& c, std::string& servers) {
  c.add_option("-s,--servers", servers, "connect string: host:port,host:port,...")
      ->required()
      ->type_name("HOSTS");
}

int usage_error(const CLI::App& command, const std::string& message, const std::string& who) {
  std::cerr << who << ": " << message << "\n" << command.help();
  return kExitUsage;
}

void add_plot_option(CLI::App& c, std::string& path, const std::string& what) {
  c.add_option("--plot", path, "write an SVG plot of " + what + " to FILE")->type_name("FILE.svg");
}

void add_pids_option(CLI::App& c, const std::string& name, std::vector<pid_t>& pids,
                     const std::string& whose) {
  c.add_option(name, pids,
               whose + " processes, whose CPU time the report gives (default: found by port)")
      ->delimiter(',')
      ->check(CLI::Range(1, std::numeric_limits<pid_t>::max()))
      ->type_name("PID,...");
}

std::vector<std::string> split_servers(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

std::string to_engine_options(const WorkloadFlags& f, const std::string& servers,
                              EngineOptions& out) {
  out = f.engine;
  out.pool.addresses = split_servers(servers);
  if (out.pool.addresses.empty()) return "no server in \"" + servers + "\"";
  for (const auto& a : out.pool.addresses) {
    if (a.find('/') != std::string::npos) return "a connect string takes no chroot";
  }
  if (out.root.size() < 2 || out.root[0] != '/' || out.root.back() == '/') {
    return "--root must be an absolute path other than /";
  }
  if (!f.mix.empty()) {
    MixParse parsed = parse_mix(f.mix);
    if (!parsed.error.empty()) return "--mix: " + parsed.error;
    out.workload.mix = parsed.mix;
  } else {
    out.workload.mix = reads_mix(f.reads);
  }
  out.workload.keys.distribution = *parse_distribution(f.keys);
  if (f.threads == nullptr || f.threads->count() == 0) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    out.pool.threads = std::min(out.pool.sessions, cores);
  }
  out.duration = seconds(f.duration_s);
  out.warmup = seconds(f.warmup_s);
  out.pool.session_timeout = std::chrono::milliseconds(f.session_timeout_ms);
  out.pool.connect_deadline = seconds(f.connect_timeout_s);
  auto security = toolkit::client_security(f.tls, f.sasl, zk::java::environment("CLIENT_JVMFLAGS"));
  if (auto* why = std::get_if<std::string>(&security)) return *why;
  auto& chosen = std::get<toolkit::ClientSecurity>(security);
  out.pool.tls_context = chosen.tls_context;
  out.pool.tls_verify_host = chosen.tls_verify_host;
  out.pool.sasl = chosen.sasl;
  return "";
}

}  // namespace zk::bench

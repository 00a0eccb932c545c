// SPDX-License-Identifier: Apache-2.0
// The command-line options that describe a workload, shared by `zkbench run`,
// `sweep` and `compare` (one definition, added to each subcommand): sessions,
// in-flight, threads, the mix (--reads or --mix; sweep sets the reads itself),
// values, keys, seed, duration or ops, warm-up, rate, root and timeouts.
// Defaults and ranges are those of man/zkbench.1.
#pragma once

#include <sys/types.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "toolkit/client_sasl.h"
#include "toolkit/client_tls.h"
#include "zkbench/engine.h"

namespace zk::bench {

// The values of the options as parsed; to_engine_options() turns them into
// EngineOptions. Must outlive the parse (CLI11 writes into it).
struct WorkloadFlags {
  EngineOptions engine;  // the fields with an option of their own
  int reads = 90;
  std::string mix;
  std::string keys = "uniform";
  double duration_s = 10;
  double warmup_s = 2;
  double connect_timeout_s = 20;
  int64_t session_timeout_ms = 30000;
  CLI::Option* threads = nullptr;  // to tell whether --threads was given
  toolkit::ClientTlsFlags tls;     // --tls, --tls-ca, --tls-cert, --tls-key
  toolkit::ClientSaslFlags sasl;   // --sasl-user, --sasl-password-file, --sasl-mech, --jaas
};

// Adds the workload options to `command`. `with_mix`: also --reads and
// --mix (sweep chooses the reads per step instead).
void add_workload_options(CLI::App& command, WorkloadFlags& flags, bool with_mix);

// -s/--servers HOSTS (required): the connect string of the ensemble.
void add_servers_option(CLI::App& command, std::string& servers);

// --session-timeout-ms and --connect-timeout, as every subcommand takes them.
void add_session_options(CLI::App& command, int64_t& session_timeout_ms, double& connect_timeout_s);

// --plot FILE.svg: where to write the command's plot (plot_svg.h), which
// shows `what`.
void add_plot_option(CLI::App& command, std::string& path, const std::string& what);

// `name` (--server-pids, --a-pids, ...) PID,...: the server processes whose
// CPU time the report gives, instead of those found by their client ports
// (server_cpu.h); `whose`: "the servers'", "A's", ...
void add_pids_option(CLI::App& command, const std::string& name, std::vector<pid_t>& pids,
                     const std::string& whose);

// A usage error found after the parse: "WHO: MESSAGE" and the usage of
// `command` on stderr; returns kExitUsage (bench_command.h).
int usage_error(const CLI::App& command, const std::string& message,
                const std::string& who = "zkbench");

// The servers of a connect string "host:port,host:port" (empty parts skipped).
std::vector<std::string> split_servers(const std::string& text);

// EngineOptions for the parsed flags against `servers` (a connect string).
// Empty on success, else what is wrong with the arguments (a usage error):
// no server, a chroot, a bad --root or --mix.
std::string to_engine_options(const WorkloadFlags& flags, const std::string& servers,
                              EngineOptions& out);

}  // namespace zk::bench

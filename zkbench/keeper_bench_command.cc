// SPDX-License-Identifier: Apache-2.0
#include "zkbench/keeper_bench_command.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <thread>
#include <variant>

#include "libzk/java/jvm_flags.h"
#include "toolkit/client_sasl.h"
#include "toolkit/client_security_flags.h"
#include "toolkit/client_tls.h"
#include "zkbench/cli_options.h"
#include "zkbench/keeper_bench_config.h"
#include "zkbench/keeper_bench_report.h"
#include "zkbench/keeper_bench_runner.h"

namespace zk::bench {

namespace {

using namespace keeper;

// The options as parsed; an override applies when its option was given.
struct Flags {
  std::string config;
  std::string servers;
  std::string json;
  uint64_t seed = 0;
  CLI::Option* seed_option = nullptr;
  bool keep_setup = false;
  int threads = 1;
  CLI::Option* threads_option = nullptr;
  uint64_t concurrency = 1;
  CLI::Option* concurrency_option = nullptr;
  uint64_t iterations = 0;
  CLI::Option* iterations_option = nullptr;
  double time_limit = 0;
  CLI::Option* time_limit_option = nullptr;
  double report_delay = 1;
  CLI::Option* report_delay_option = nullptr;
  bool continue_on_errors = false;
  toolkit::ClientTlsFlags tls;
  toolkit::ClientSaslFlags sasl;
};

std::atomic<Runner*> g_runner{nullptr};

// SIGINT, SIGTERM: the run ends early and reports what it measured.
extern "C" void on_keeper_bench_signal(int) {
  if (Runner* r = g_runner.load()) r->stop();
}

constexpr const char* kWho = "zkbench keeper-bench";

int error(const std::string& message) {
  std::cerr << kWho << ": " << message << "\n";
  return kExitError;
}

bool given(const CLI::Option* o) { return o != nullptr && o->count() > 0; }

// The command line's overrides of the file; empty, or the usage error.
std::string apply_overrides(const Flags& f, Config& c) {
  if (given(f.concurrency_option)) c.concurrency = f.concurrency;
  if (given(f.iterations_option)) c.iterations = f.iterations;
  if (given(f.time_limit_option)) c.timelimit_s = f.time_limit;
  if (given(f.report_delay_option)) c.report_delay_s = f.report_delay;
  if (f.continue_on_errors) c.continue_on_error = true;
  if (c.concurrency * c.pipeline_depth > 100'000) {
    return "--concurrency: concurrency x pipeline_depth is over 100000";
  }
  if (!f.servers.empty()) {
    c.connections.clear();
    for (const std::string& address : split_servers(f.servers)) {
      if (address.find('/') != std::string::npos) return "a connect string takes no chroot";
      Connection conn = c.connection_defaults;
      conn.host = address;
      c.connections.push_back(conn);
    }
  }
  if (c.connections.empty()) return "no server: give connections in the file, or -s HOSTS";
  return "";
}

// A pool per connection, with the security the options (or CLIENT_JVMFLAGS)
// give; a `secure` connection without TLS options uses the system's CAs.
std::variant<std::vector<Target>, std::string> targets_of(const Flags& f, const Config& c) {
  auto security = toolkit::client_security(f.tls, f.sasl, zk::java::environment("CLIENT_JVMFLAGS"));
  if (auto* why = std::get_if<std::string>(&security)) return *why;
  const toolkit::ClientSecurity& chosen = std::get<toolkit::ClientSecurity>(security);
  std::shared_ptr<boost::asio::ssl::context> tls = chosen.tls_context;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<Target> out;
  for (const Connection& conn : c.connections) {
    if (conn.secure && !tls) {
      toolkit::ClientTlsFlags system;
      system.tls = true;
      auto made = toolkit::client_tls_context(system);
      if (auto* why = std::get_if<std::string>(&made)) return "secure: " + *why;
      tls = std::get<std::shared_ptr<boost::asio::ssl::context>>(made);
    }
    Target t;
    t.pool.addresses = {conn.host};
    t.pool.sessions = static_cast<int>(conn.sessions);
    t.pool.threads =
        given(f.threads_option) ? f.threads : std::min(static_cast<int>(conn.sessions), cores);
    t.pool.session_timeout = conn.session_timeout;
    t.pool.connect_deadline = conn.connection_timeout;
    if (conn.secure || chosen.tls_context) t.pool.tls_context = tls;
    t.pool.tls_verify_host = chosen.tls_verify_host;
    t.pool.sasl = chosen.sasl;
    t.operation_timeout = conn.operation_timeout;
    out.push_back(std::move(t));
  }
  return out;
}

// PATH as keeper-bench names it with_timestamp: DIR/STEM_MS.EXT.
std::string timestamped(const std::string& path, int64_t ms) {
  const std::filesystem::path p(path);
  return (p.parent_path() / (p.stem().string() + "_" + std::to_string(ms) + p.extension().string()))
      .string();
}

// Writes `text` to `path`; empty, or why not.
std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  return out ? "" : "cannot write " + path;
}

int run(const Flags& f, const CLI::App& command) {
  const ConfigParse parsed = load_config(f.config);
  if (!parsed.error.empty()) {
    std::cerr << "zkbench keeper-bench: " << parsed.error << "\n";
    return kExitUsage;
  }
  Config config = parsed.config;
  if (std::string e = apply_overrides(f, config); !e.empty()) return usage_error(command, e, kWho);
  auto targets = targets_of(f, config);
  if (auto* why = std::get_if<std::string>(&targets)) return usage_error(command, *why, kWho);

  RunnerOptions o;
  o.targets = std::get<std::vector<Target>>(std::move(targets));
  o.config = config;
  o.seed = given(f.seed_option) ? f.seed : std::random_device{}();
  RunDescription d;
  d.config_path = f.config;
  d.seed = o.seed;
  d.config = config;
  d.threads = 0;
  for (const Target& t : o.targets) {
    d.servers.push_back(t.pool.addresses.front());
    d.threads += t.pool.threads;
    d.sessions += t.pool.sessions;
  }

  Runner runner(std::move(o));
  g_runner.store(&runner);
  std::signal(SIGINT, on_keeper_bench_signal);
  std::signal(SIGTERM, on_keeper_bench_signal);
  struct Unregister {
    ~Unregister() { g_runner.store(nullptr); }
  } unregister;
  if (std::string e = runner.connect(); !e.empty()) return error(e);
  if (std::string e = runner.prepare(); !e.empty()) return error(e);
  d.setup_znodes = runner.setup_tree().znodes.size();

  keeper::Progress before;
  auto last = std::chrono::steady_clock::now();
  const auto every = std::chrono::milliseconds(static_cast<int64_t>(config.report_delay_s * 1000));
  const keeper::RunResult r = runner.run(
      [&](const keeper::Progress& p) {
        const auto now = std::chrono::steady_clock::now();
        std::cerr << progress_line(p, before, std::chrono::duration<double>(now - last).count())
                  << "\n";
        before = p;
        last = now;
      },
      every);
  // From here on a signal ends zkbench as usual (the cleanup is not
  // interrupted halfway otherwise).
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (!r.error.empty()) return error(r.error);
  std::vector<std::string> failures;
  if (!f.keep_setup) {
    if (std::string e = runner.cleanup(); !e.empty()) failures.push_back("cleanup: " + e);
  }

  const std::string json = keeper_json(r);
  const bool json_on_stdout = config.output.to_stdout || f.json == "-";
  if (config.output.file) {
    const std::string path = config.output.with_timestamp
                                 ? timestamped(*config.output.file, r.start_unix_ms)
                                 : *config.output.file;
    if (std::string e = write_file(path, json); !e.empty()) failures.push_back("output: " + e);
  }
  if (!f.json.empty() && f.json != "-") {
    if (std::string e = write_file(f.json, json); !e.empty()) failures.push_back("--json: " + e);
  }
  const ScenarioResult s = scenario_of(d, r);
  (json_on_stdout ? std::cerr : std::cout) << keeper_text(d, r);
  if (json_on_stdout) std::cout << json;
  std::cout.flush();
  for (const std::string& p : s.problems) failures.push_back(p);
  for (const std::string& e : failures) std::cerr << "zkbench keeper-bench: " << e << "\n";
  return failures.empty() ? kExitOk : kExitError;
}

}  // namespace

BenchCommand add_keeper_bench_command(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  auto* c =
      app.add_subcommand("keeper-bench", "run a workload file of ClickHouse's keeper-bench (YAML)");
  c->add_option("--config", f->config, "the keeper-bench configuration (YAML)")
      ->required()
      ->type_name("FILE");
  c->add_option("-s,--servers", f->servers,
                "connect string host:port,...: replaces the file's connections, a session each")
      ->type_name("HOSTS");
  c->add_option("--json", f->json, "also write keeper-bench's JSON report to FILE (- : stdout)")
      ->type_name("FILE");
  f->seed_option = c->add_option("--seed", f->seed,
                                 "seed of the random names, data and draws (default: random)");
  c->add_flag("--keep-setup", f->keep_setup,
              "keep the setup tree (default: removed after the run)");
  f->threads_option =
      c->add_option("--threads", f->threads,
                    "io threads per server (default: its sessions, at most the cores)")
          ->check(CLI::Range(1, 1024));
  f->concurrency_option =
      c->add_option("--concurrency", f->concurrency, "request loops (replaces concurrency)")
          ->check(CLI::Range(uint64_t{1}, uint64_t{10'000}));
  f->iterations_option = c->add_option("--iterations", f->iterations,
                                       "requests in all (replaces iterations; 0: no limit)")
                             ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 50));
  f->time_limit_option =
      c->add_option("--time-limit", f->time_limit, "seconds of requests (replaces timelimit)")
          ->check(CLI::Range(0.0, 1e7));
  f->report_delay_option =
      c->add_option("--report-delay", f->report_delay,
                    "seconds between progress lines (replaces report_delay; 0: none)")
          ->check(CLI::Range(0.0, 86400.0));
  c->add_flag("--continue-on-errors", f->continue_on_errors,
              "count failed requests and go on (continue_on_error: true)");
  toolkit::add_client_tls_options(*c, f->tls);
  toolkit::add_client_sasl_options(*c, f->sasl);
  return {c, [f, c] { return run(*f, *c); }};
}

}  // namespace zk::bench

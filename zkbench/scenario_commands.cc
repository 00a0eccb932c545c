// SPDX-License-Identifier: Apache-2.0
#include "zkbench/scenario_commands.h"

#include <iostream>
#include <memory>

#include "libzk/wire/path.h"
#include "zkbench/cli_options.h"
#include "zkbench/create_bench.h"
#include "zkbench/double_barrier.h"
#include "zkbench/lock_contention.h"
#include "zkbench/populate.h"
#include "zkbench/scenario_report.h"

namespace zk::bench {

namespace {

// The options every scenario command takes.
struct ConnectionFlags {
  std::string servers;
  int threads = 1;
  CLI::Option* threads_option = nullptr;  // to tell whether --threads was given
  int64_t session_timeout_ms = 30000;
  double connect_timeout_s = 20;
  bool json = false;
};

void add_connection_options(CLI::App& c, ConnectionFlags& f) {
  add_servers_option(c, f.servers);
  f.threads_option =
      c.add_option("--threads", f.threads, "io threads (default: sessions, at most the cores)")
          ->check(CLI::Range(1, 1024));
  add_session_options(c, f.session_timeout_ms, f.connect_timeout_s);
  c.add_flag("--json", f.json, "print the report as one JSON object");
}

// The pool of `sessions` sessions the flags ask for, translated as run's
// (cli_options.h: servers without chroot, default threads, timeouts).
// Empty, or the usage error.
std::string to_pool_options(const ConnectionFlags& f, int sessions,
                            toolkit::SessionPoolOptions& out) {
  WorkloadFlags w;
  w.engine.pool.sessions = sessions;
  w.engine.pool.threads = f.threads;
  w.threads = f.threads_option;
  w.session_timeout_ms = f.session_timeout_ms;
  w.connect_timeout_s = f.connect_timeout_s;
  EngineOptions translated;
  if (std::string e = to_engine_options(w, f.servers, translated); !e.empty()) return e;
  out = translated.pool;
  return "";
}

// Why `path`, the value of `option`, is no znode path to work under; empty if it is one.
std::string path_problem(const std::string& option, const std::string& path) {
  if (path == "/") return option + " must be a znode other than /";
  if (std::string e = zk::wire::path_error(path); !e.empty()) return option + ": " + e;
  return "";
}

ScenarioConfig config_of(const std::string& command, const toolkit::SessionPoolOptions& pool,
                         decltype(ScenarioConfig::settings) settings) {
  ScenarioConfig c;
  c.command = command;
  c.servers = pool.addresses;
  c.threads = pool.threads;
  c.settings = std::move(settings);
  return c;
}

// Prints the report (or the error) and says how zkbench exits.
int report(const ScenarioConfig& c, const ScenarioResult& r, bool json) {
  if (!r.error.empty()) {
    std::cerr << "zkbench " << c.command << ": " << r.error << "\n";
    return kExitError;
  }
  std::cout << (json ? scenario_json(c, r) : scenario_text(c, r));
  std::cout.flush();
  for (const std::string& p : r.problems) std::cerr << "zkbench " << c.command << ": " << p << "\n";
  return r.problems.empty() ? kExitOk : kExitError;
}

}  // namespace

BenchCommand add_populate_command(CLI::App& app) {
  struct Flags {
    ConnectionFlags connection;
    PopulateOptions options;
    int sessions = 8;
  };
  auto f = std::make_shared<Flags>();
  auto* c = app.add_subcommand(
      "populate", "create N znodes fast (pipelined), for memory and recovery measurements");
  add_connection_options(*c, f->connection);
  c->add_option("--znodes", f->options.znodes, "znodes to create: ROOT/p0 .. ROOT/p<N-1>")
      ->required()
      ->check(CLI::Range(int64_t{1}, int64_t{1'000'000'000}));
  c->add_option("--value-bytes", f->options.value_bytes, "bytes per znode (default 100)")
      ->check(CLI::Range(0, 1 << 20));
  c->add_option("--root", f->options.root, "their parent (default /zkbench-pop)");
  c->add_option("--sessions", f->sessions, "sessions (default 8)")->check(CLI::Range(1, 10000));
  c->add_option("--window", f->options.window, "creates in flight per session (default 64)")
      ->check(CLI::Range(1, 100000));
  return {c, [f, c] {
            PopulateOptions o = f->options;
            if (std::string e = to_pool_options(f->connection, f->sessions, o.pool); !e.empty()) {
              return usage_error(*c, e);
            }
            if (std::string e = path_problem("--root", o.root); !e.empty())
              return usage_error(*c, e);
            const ScenarioConfig config = config_of("populate", o.pool,
                                                    {{"znodes", o.znodes},
                                                     {"value_bytes", int64_t{o.value_bytes}},
                                                     {"root", o.root},
                                                     {"sessions", int64_t{o.pool.sessions}},
                                                     {"window", int64_t{o.window}}});
            return report(config, populate(o), f->connection.json);
          }};
}

BenchCommand add_lock_command(CLI::App& app) {
  struct Flags {
    ConnectionFlags connection;
    LockOptions options;
    int clients = 0;
    int64_t hold_us = 0;
  };
  auto f = std::make_shared<Flags>();
  auto* c = app.add_subcommand(
      "lock", "contention for the paper's herd-free lock: C clients acquire and release H times");
  add_connection_options(*c, f->connection);
  c->add_option("--clients", f->clients, "clients, a session each")
      ->required()
      ->check(CLI::Range(1, 10000));
  c->add_option("--holds", f->options.holds, "acquisitions per client")
      ->required()
      ->check(CLI::Range(1, 100'000'000));
  c->add_option("--path", f->options.path, "the lock znode (default /zkbench-lock)");
  c->add_option("--hold-us", f->hold_us, "microseconds a client holds the lock (default 0)")
      ->check(CLI::Range(int64_t{0}, int64_t{60'000'000}));
  return {c, [f, c] {
            LockOptions o = f->options;
            o.hold = std::chrono::microseconds(f->hold_us);
            if (std::string e = to_pool_options(f->connection, f->clients, o.pool); !e.empty()) {
              return usage_error(*c, e);
            }
            if (std::string e = path_problem("--path", o.path); !e.empty())
              return usage_error(*c, e);
            const ScenarioConfig config = config_of("lock", o.pool,
                                                    {{"clients", int64_t{f->clients}},
                                                     {"holds", int64_t{o.holds}},
                                                     {"path", o.path},
                                                     {"hold_us", f->hold_us}});
            return report(config, lock_contention(o), f->connection.json);
          }};
}

BenchCommand add_barrier_command(CLI::App& app) {
  struct Flags {
    ConnectionFlags connection;
    BarrierOptions options;
    int clients = 0;
  };
  auto f = std::make_shared<Flags>();
  auto* c = app.add_subcommand(
      "barrier", "the paper's double barrier: C clients enter and leave together, R rounds");
  add_connection_options(*c, f->connection);
  c->add_option("--clients", f->clients, "clients, a session each")
      ->required()
      ->check(CLI::Range(1, 10000));
  c->add_option("--rounds", f->options.rounds, "rounds of enter and leave")
      ->required()
      ->check(CLI::Range(1, 10'000'000));
  c->add_option("--path", f->options.path,
                "the parent of the round znodes (default /zkbench-barrier)");
  return {
      c, [f, c] {
        BarrierOptions o = f->options;
        if (std::string e = to_pool_options(f->connection, f->clients, o.pool); !e.empty()) {
          return usage_error(*c, e);
        }
        if (std::string e = path_problem("--path", o.path); !e.empty()) return usage_error(*c, e);
        const ScenarioConfig config = config_of(
            "barrier", o.pool,
            {{"clients", int64_t{f->clients}}, {"rounds", int64_t{o.rounds}}, {"path", o.path}});
        return report(config, double_barrier(o), f->connection.json);
      }};
}

BenchCommand add_creates_command(CLI::App& app) {
  struct Flags {
    ConnectionFlags connection;
    CreatesOptions options;
    int workers = 0;
  };
  auto f = std::make_shared<Flags>();
  auto* c = app.add_subcommand(
      "creates", "the paper's create benchmark: W workers each issue N creates of new znodes");
  add_connection_options(*c, f->connection);
  c->add_option("--workers", f->workers, "workers, a session each")
      ->required()
      ->check(CLI::Range(1, 10000));
  c->add_option("--creates", f->options.creates, "creates per worker")
      ->required()
      ->check(CLI::Range(int64_t{1}, int64_t{1'000'000'000}));
  c->add_option("--window", f->options.window, "creates in flight per worker (default 1)")
      ->check(CLI::Range(1, 100000));
  c->add_option("--value-bytes", f->options.value_bytes, "bytes per znode (default 1024)")
      ->check(CLI::Range(0, 1 << 20));
  c->add_flag("--sequential", f->options.sequential,
              "persistent-sequential creates instead of fresh names");
  c->add_option("--root", f->options.root,
                "the parent of the run's znodes (default /zkbench-creates)");
  c->add_flag("--keep", f->options.keep, "keep the created znodes (default: delete them after)");
  return {c, [f, c] {
            CreatesOptions o = f->options;
            if (std::string e = to_pool_options(f->connection, f->workers, o.pool); !e.empty()) {
              return usage_error(*c, e);
            }
            if (std::string e = path_problem("--root", o.root); !e.empty())
              return usage_error(*c, e);
            const ScenarioConfig config =
                config_of("creates", o.pool,
                          {{"workers", int64_t{f->workers}},
                           {"creates", o.creates},
                           {"window", int64_t{o.window}},
                           {"value_bytes", int64_t{o.value_bytes}},
                           {"sequential", std::string(o.sequential ? "yes" : "no")},
                           {"root", o.root},
                           {"keep", std::string(o.keep ? "yes" : "no")}});
            return report(config, create_bench(o), f->connection.json);
          }};
}

}  // namespace zk::bench

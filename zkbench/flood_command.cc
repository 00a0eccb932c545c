// SPDX-License-Identifier: Apache-2.0
#include "zkbench/flood_command.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>

#include "libzk/wire/path.h"
#include "zkbench/cli_options.h"
#include "zkbench/flood_capacity.h"
#include "zkbench/flood_clients.h"
#include "zkbench/flood_measure.h"
#include "zkbench/flood_report.h"

namespace zk::bench {

namespace {

using namespace flood;

constexpr auto kWarmup = std::chrono::seconds(1);

struct Flags {
  std::string servers;
  double capacity = 0;
  double factor = 10;
  std::vector<std::string> kinds = {"pipeline", "storm", "large"};
  double measure_rate = 200;
  double phase_seconds = 10;
  std::string flood_source = "127.0.0.2";
  int large_bytes = 512 * 1024;
  int flood_nice = 0;
  std::string root = "/zkbench-flood";
  std::string json;
  int64_t session_timeout_ms = 30000;
  double connect_timeout_s = 20;
};

int fail(const std::string& why) {
  std::cerr << "zkbench flood: " << why << "\n";
  return kExitError;
}

int run_flood(const Flags& f, const FloodConfig& config, const EngineOptions& engine) {
  FloodReport report;
  report.config = config;
  if (std::string e = source_problem(f.flood_source); !e.empty()) return fail(e);
  MeasuringSession session;
  if (std::string e = session.setup(f.servers, f.root, flood_znodes(f.root),
                                    std::chrono::milliseconds(f.session_timeout_ms),
                                    engine.pool.connect_deadline);
      !e.empty()) {
    return fail(e);
  }
  report.capacity = f.capacity;
  if (report.capacity <= 0) {
    const Capacity c = measure_capacity(engine.pool, f.root);
    if (!c.error.empty()) return fail(c.error);
    report.capacity = c.ops_per_s;
    report.capacity_measured = true;
    report.capacity_errors = c.errors;
  }
  report.offered_per_s = f.factor * report.capacity;
  report.rates = split_rate(report.offered_per_s, config.kinds, f.large_bytes);

  const auto phase = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(f.phase_seconds));
  session.measure("", f.measure_rate, kWarmup);
  report.unloaded = session.measure("unloaded", f.measure_rate, phase);
  Flood flood;
  FloodPlan plan;
  plan.servers = engine.pool.addresses;
  plan.source = f.flood_source;
  plan.root = f.root;
  plan.rates = report.rates;
  plan.large_bytes = f.large_bytes;
  plan.nice = f.flood_nice;
  if (std::string e = flood.start(plan); !e.empty()) return fail(e);
  report.flood = session.measure("flood", f.measure_rate, phase);
  report.result = flood.stop();
  report.events = session.events();
  session.close();

  std::cout << flood_text(report);
  std::cout.flush();
  if (!f.json.empty()) {
    std::ofstream out(f.json);
    out << flood_json(report);
    if (!out) return fail("cannot write " + f.json);
  }
  return kExitOk;
}

}  // namespace

BenchCommand add_flood_command(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  auto* c = app.add_subcommand(
      "flood",
      "one measuring session's latencies unloaded and while misbehaving clients flood the servers");
  add_servers_option(*c, f->servers);
  c->add_option("--capacity", f->capacity, "ops/s the servers take (default: measured first)")
      ->check(CLI::Range(1.0, 1e9));
  c->add_option("--factor", f->factor, "the flood offers FACTOR x capacity (default 10)")
      ->check(CLI::Range(0.01, 1000.0));
  c->add_option("--kinds", f->kinds, "misbehaving clients: pipeline,storm,large (default all)")
      ->delimiter(',')
      ->check(CLI::IsMember({"pipeline", "storm", "large"}))
      ->type_name("KIND,...");
  c->add_option("--measure-rate", f->measure_rate,
                "requests/s of the measuring session (default 200)")
      ->check(CLI::Range(1.0, 100000.0));
  c->add_option("--phase-seconds", f->phase_seconds,
                "seconds measured unloaded, and again flooded (default 10)")
      ->check(CLI::Range(0.1, 86400.0));
  c->add_option("--flood-source", f->flood_source,
                "local address the flood connects from (default 127.0.0.2; \"\": any)")
      ->type_name("ADDR");
  c->add_option("--large-bytes", f->large_bytes, "bytes per large setData (default 524288)")
      ->check(CLI::Range(1, 1000000));
  c->add_option("--flood-nice", f->flood_nice,
                "nice value of the flood's thread (default 0; 19: the servers and the "
                "measuring session go first, as with the flood on other machines)")
      ->check(CLI::Range(0, 19));
  c->add_option("--root", f->root, "parent of the run's znodes (default /zkbench-flood)");
  c->add_option("--json", f->json, "also write the report as one JSON object to FILE")
      ->type_name("FILE");
  add_session_options(*c, f->session_timeout_ms, f->connect_timeout_s);
  return {c, [f, c] {
            WorkloadFlags w;
            w.engine.pool.sessions = kCapacitySessions;
            w.session_timeout_ms = f->session_timeout_ms;
            w.connect_timeout_s = f->connect_timeout_s;
            EngineOptions engine;
            if (std::string e = to_engine_options(w, f->servers, engine); !e.empty()) {
              return usage_error(*c, e);
            }
            if (f->root == "/") return usage_error(*c, "--root must be a znode other than /");
            if (std::string e = zk::wire::path_error(f->root); !e.empty()) {
              return usage_error(*c, "--root: " + e);
            }
            FloodConfig config;
            config.servers = f->servers;
            for (const std::string& k : f->kinds) {
              const Kind kind = *parse_kind(k);
              if (std::find(config.kinds.begin(), config.kinds.end(), kind) == config.kinds.end())
                config.kinds.push_back(kind);
            }
            if (config.kinds.empty()) return usage_error(*c, "--kinds: none given");
            config.factor = f->factor;
            config.measure_rate = f->measure_rate;
            config.phase_seconds = f->phase_seconds;
            config.flood_source = f->flood_source;
            config.large_bytes = f->large_bytes;
            config.root = f->root;
            return run_flood(*f, config, engine);
          }};
}

}  // namespace zk::bench

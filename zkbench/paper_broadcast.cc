// SPDX-License-Identifier: Apache-2.0
#include "zkbench/paper_broadcast.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <sstream>

#include "libzk/client/sync_client.h"
#include "toolkit/admin_http.h"
#include "zkbench/paper_table.h"
#include "zkbench/plot_svg.h"
#include "zkbench/series_report.h"
#include "zkbench/server_cpu.h"

namespace zk::bench {

namespace {

using zk::lab::Flavour;

constexpr const char* kNode = "/zkbench-fig7";

// The number after "key" : in a JSON answer; nothing when absent.
std::optional<double> json_number(const std::string& body, const std::string& key) {
  const std::string quoted = "\"" + key + "\"";
  size_t at = body.find(quoted);
  if (at == std::string::npos) return std::nullopt;
  at = body.find(':', at + quoted.size());
  if (at == std::string::npos) return std::nullopt;
  at = body.find_first_not_of(" \t\r\n", at + 1);
  if (at == std::string::npos) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(body.data() + at, body.data() + body.size(), value);
  if (ec != std::errc{}) return std::nullopt;
  return value;
}

struct SizeResult {
  int size = 0;
  std::vector<double> rates;       // txns/s, one per run that ended
  std::vector<double> cpu_per_us;  // the servers' µs per txn, one per run it was known
};

// One ensemble of `size`: the runs, or a problem added.
SizeResult measure(const PaperLab& lab, const BroadcastOptions& o, int size,
                   std::vector<std::string>& problems) {
  SizeResult r{.size = size, .rates = {}, .cpu_per_us = {}};
  const std::string where = "zkd, " + std::to_string(size) + " servers: ";
  auto ensemble = start_paper_ensemble(lab, Flavour::kZkd, size, problems);
  if (!ensemble) return r;
  const auto leader = ensemble->leader();
  if (!leader) {
    problems.push_back(where + "no leader");
    return r;
  }
  zk::client::SyncClient client;
  if (auto s = client.connect(ensemble->address(*leader), std::chrono::seconds(30),
                              std::chrono::seconds(15));
      !s.ok()) {
    problems.push_back(where + "cannot connect to the leader");
    return r;
  }
  (void)client.create(kNode, std::string(static_cast<size_t>(o.value_bytes), 'x'));
  std::ostringstream session;
  session << "0x" << std::hex << client.session_id();
  const std::string body = "{\"session\": \"" + session.str() + "\", \"path\": \"" + kNode +
                           "\", \"count\": " + std::to_string(o.txns) +
                           ", \"bytes\": " + std::to_string(o.value_bytes) +
                           ", \"in_flight\": " + std::to_string(o.in_flight) + "}";
  const ServerCpu meter(ensemble_addresses(*ensemble), ensemble_pids(*ensemble));
  for (int run = 1; run <= o.runs && !paper_stopped(); ++run) {
    paper_progress(lab, "  broadcast run " + std::to_string(run) + " of " + std::to_string(o.runs) +
                            ": " + std::to_string(o.txns) + " txns on the leader (node " +
                            std::to_string(*leader) + ")");
    const ServerCpuTimes cpu_before = meter.sample();
    const auto reply = zk::toolkit::admin_http({.host = "127.0.0.1",
                                                .port = ensemble->admin_port(*leader),
                                                .method = "POST",
                                                .target = "/commands/broadcast",
                                                .authorization = "ip",
                                                .body = body,
                                                .timeout = std::chrono::minutes(10)});
    const ServerCpuUsage cpu = meter.usage(cpu_before, meter.sample());
    const auto rate = json_number(reply.body, "txns_per_second");
    if (reply.status != 200 || !rate) {
      problems.push_back(where + "the broadcast command failed: " +
                         (reply.status == 0 ? reply.error : reply.body));
      break;
    }
    r.rates.push_back(*rate);
    if (auto per_txn = cpu.us_per_op(o.txns)) r.cpu_per_us.push_back(*per_txn);
  }
  (void)client.close();
  return r;
}

}  // namespace

PaperOutput paper_broadcast(const PaperLab& lab, const BroadcastOptions& options) {
  PaperOutput out;
  std::vector<SizeResult> results;
  if (std::find(lab.flavours.begin(), lab.flavours.end(), Flavour::kZkd) != lab.flavours.end()) {
    for (int size : options.sizes) {
      if (paper_stopped()) break;
      results.push_back(measure(lab, options, size, out.problems));
    }
  }
  PaperTable table;
  table.title = "Figure 7: the atomic broadcast alone, txns of " +
                std::to_string(options.value_bytes) + " bytes made at the leader, " +
                std::to_string(options.in_flight) + " in flight (median of " +
                std::to_string(options.runs) + " runs of " + std::to_string(options.txns) + ")";
  table.header = {"servers", "zkd txns/s", "zkd servers' CPU us/txn"};
  LineSeries series{.name = "zkd", .points = {}};
  for (const SizeResult& r : results) {
    const auto rate = median(r.rates);
    table.rows.push_back(
        {std::to_string(r.size), format_count(rate), format_fixed(median(r.cpu_per_us), 1)});
    if (rate) series.points.emplace_back(r.size, *rate);
  }
  table.notes = {
      "The paper's Figure 7 gives no numbers in its text: read them off its plot (docs/paper.md).",
      "Apache ZooKeeper is not run: it has no way to make txns at its leader without code inside "
      "the server."};
  out.tables.push_back(std::move(table));
  out.plots.emplace_back("fig7.svg", lines_plot_svg({.title = "Figure 7: atomic broadcast alone",
                                                     .x_title = "servers",
                                                     .y_title = "txns per second",
                                                     .series = {series}}));
  return out;
}

}  // namespace zk::bench

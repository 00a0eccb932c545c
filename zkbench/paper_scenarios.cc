// SPDX-License-Identifier: Apache-2.0
#include "zkbench/paper_scenarios.h"

#include <algorithm>
#include <map>
#include <optional>
#include <thread>
#include <tuple>

#include "zkbench/create_bench.h"
#include "zkbench/double_barrier.h"
#include "zkbench/paper_reference.h"
#include "zkbench/plot_svg.h"
#include "zkbench/report.h"

namespace zk::bench {

namespace {

using zk::lab::Flavour;

toolkit::SessionPoolOptions pool_for(const zk::lab::Ensemble& ensemble, int sessions) {
  toolkit::SessionPoolOptions p;
  p.addresses = ensemble_addresses(ensemble);
  p.sessions = sessions;
  p.threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 2);
  return p;
}

// Why a scenario's result is no figure; empty when it is one.
std::string failure(const ScenarioResult& r) {
  if (!r.error.empty()) return r.error;
  std::string out;
  for (const auto& p : r.problems) out += (out.empty() ? "" : "; ") + p;
  return out;
}

double seconds(const ScenarioResult& r) {
  return std::chrono::duration<double>(r.measured).count();
}

template <size_t N>
std::optional<double> paper_cell(const std::array<int, N>& columns, int column,
                                 const std::array<double, N>& values) {
  for (size_t i = 0; i < N; ++i) {
    if (columns[i] == column) return values[i];
  }
  return std::nullopt;
}

std::optional<double> paper_creates(int workers, int servers) {
  for (const auto& row : paper::kTable2) {
    if (row.workers == workers)
      return paper_cell(paper::kTable2Servers, servers, row.creates_per_s);
  }
  return std::nullopt;
}

std::optional<double> paper_barrier_seconds(int barriers, int clients) {
  for (const auto& row : paper::kTable3) {
    if (row.barriers == barriers) return paper_cell(paper::kTable3Clients, clients, row.seconds);
  }
  return std::nullopt;
}

template <typename Map, typename Key>
std::optional<double> lookup(const Map& m, const Key& k) {
  auto it = m.find(k);
  return it == m.end() ? std::nullopt : std::optional<double>(it->second);
}

}  // namespace

PaperOutput paper_creates_table(const PaperLab& lab, const CreatesTableOptions& o) {
  PaperOutput out;
  std::map<std::tuple<Flavour, int, int>, double> rate;  // (flavour, size, workers) -> creates/s
  for (int size : o.sizes) {
    for (Flavour f : lab.flavours) {
      auto ensemble = start_paper_ensemble(lab, f, size, out.problems);
      if (!ensemble) continue;
      for (int w : o.workers) {
        if (paper_stopped()) break;
        const std::string who = flavour_label(f) + ", " + std::to_string(size) + " servers, " +
                                std::to_string(w) + " workers";
        paper_progress(lab, who);
        CreatesOptions c;
        c.pool = pool_for(*ensemble, w);
        c.creates = o.creates;
        c.window = 1;
        c.value_bytes = o.value_bytes;
        c.root = "/zkbench-paper-creates";
        const ScenarioResult r = create_bench(c);
        if (const std::string why = failure(r); !why.empty()) {
          out.problems.push_back(who + ": " + why);
          if (!r.error.empty()) continue;
        }
        rate[{f, size, w}] = per_second(r.done, r.measured);
      }
    }
  }

  PaperTable t;
  t.title = "Table 2: create requests per second";
  t.header = {"workers"};
  const bool both = lab.flavours.size() == 2;
  for (int size : o.sizes) {
    t.header.push_back("paper " + std::to_string(size));
    for (Flavour f : lab.flavours)
      t.header.push_back(flavour_label(f) + " " + std::to_string(size));
    if (both) t.header.push_back("ratio " + std::to_string(size));
  }
  for (int w : o.workers) {
    std::vector<std::string> row = {std::to_string(w)};
    for (int size : o.sizes) {
      row.push_back(format_count(paper_creates(w, size)));
      for (Flavour f : lab.flavours)
        row.push_back(format_count(lookup(rate, std::tuple{f, size, w})));
      if (both) {
        row.push_back(format_ratio(lookup(rate, std::tuple{lab.flavours[0], size, w}),
                                   lookup(rate, std::tuple{lab.flavours[1], size, w})));
      }
    }
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back("each worker: " + std::to_string(o.creates) + " creates of " +
                    std::to_string(o.value_bytes) +
                    " bytes, one at a time (the paper: 50,000 of 1 KB each).");
  out.tables.push_back(std::move(t));

  LinesPlot plot{
      "Table 2: create requests per second against workers", "workers", "creates per second", {}};
  for (int size : o.sizes) {
    for (Flavour f : lab.flavours) {
      LineSeries s{flavour_label(f) + " " + std::to_string(size) + " servers", {}};
      for (int w : o.workers) {
        if (auto v = lookup(rate, std::tuple{f, size, w})) s.points.emplace_back(w, *v);
      }
      plot.series.push_back(std::move(s));
    }
  }
  out.plots.emplace_back("table2.svg", lines_plot_svg(plot));
  return out;
}

PaperOutput paper_barrier_table(const PaperLab& lab, const BarrierTableOptions& o) {
  PaperOutput out;
  std::map<std::tuple<Flavour, int, int>, double> secs;  // (flavour, clients, barriers) -> s
  for (Flavour f : lab.flavours) {
    auto ensemble = start_paper_ensemble(lab, f, o.size, out.problems);
    if (!ensemble) continue;
    for (int c : o.clients) {
      for (int b : o.barriers) {
        if (paper_stopped()) break;
        const std::string who = flavour_label(f) + ", " + std::to_string(c) + " clients, " +
                                std::to_string(b) + " barriers";
        paper_progress(lab, who);
        BarrierOptions bo;
        bo.pool = pool_for(*ensemble, c);
        bo.rounds = b;
        bo.path = "/zkbench-paper-barrier";
        bo.enter_all_first = true;
        const ScenarioResult r = double_barrier(bo);
        if (const std::string why = failure(r); !why.empty()) {
          out.problems.push_back(who + ": " + why);
          continue;
        }
        secs[{f, c, b}] = seconds(r);
      }
    }
  }

  PaperTable t;
  t.title =
      "Table 3: the barrier experiment, seconds for every client to enter and leave b "
      "barriers (" +
      std::to_string(o.size) + " servers)";
  t.header = {"barriers"};
  const bool both = lab.flavours.size() == 2;
  for (int c : o.clients) {
    t.header.push_back("paper " + std::to_string(c));
    for (Flavour f : lab.flavours) t.header.push_back(flavour_label(f) + " " + std::to_string(c));
    if (both) t.header.push_back("ratio " + std::to_string(c));
  }
  for (int b : o.barriers) {
    std::vector<std::string> row = {std::to_string(b)};
    for (int c : o.clients) {
      row.push_back(format_fixed(paper_barrier_seconds(b, c), 1));
      for (Flavour f : lab.flavours)
        row.push_back(format_fixed(lookup(secs, std::tuple{f, c, b}), 2));
      if (both) {
        // Time, not rate: apache / zkd, so that above 1 is zkd faster, as elsewhere.
        row.push_back(format_ratio(lookup(secs, std::tuple{lab.flavours[1], c, b}),
                                   lookup(secs, std::tuple{lab.flavours[0], c, b})));
      }
    }
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back("columns: clients; paper: 50, 100, 200 clients and 200-1600 barriers.");
  if (both) {
    t.notes.push_back("ratio C: " + flavour_label(lab.flavours[1]) + "'s time / " +
                      flavour_label(lab.flavours[0]) +
                      "'s (above 1: " + flavour_label(lab.flavours[0]) + " is faster).");
  }
  // The paper's throughput view: barrier operations (enters and leaves) per second.
  PaperTable ops;
  ops.title = "Table 3 as barrier operations (enter, leave) per second";
  ops.header = {"barriers"};
  for (int c : o.clients) {
    ops.header.push_back("paper " + std::to_string(c));
    for (Flavour f : lab.flavours) ops.header.push_back(flavour_label(f) + " " + std::to_string(c));
  }
  for (int b : o.barriers) {
    std::vector<std::string> row = {std::to_string(b)};
    for (int c : o.clients) {
      const double operations = 2.0 * b * c;
      auto rate = [&](std::optional<double> s) -> std::optional<double> {
        if (!s || *s <= 0) return std::nullopt;
        return operations / *s;
      };
      row.push_back(format_count(rate(paper_barrier_seconds(b, c))));
      for (Flavour f : lab.flavours)
        row.push_back(format_count(rate(lookup(secs, std::tuple{f, c, b}))));
    }
    ops.rows.push_back(std::move(row));
  }
  for (size_t i = 0; i < paper::kTable3Clients.size(); ++i) {
    double lo = 0, hi = 0;
    for (const auto& row : paper::kTable3) {
      const double rate = 2.0 * row.barriers * paper::kTable3Clients[i] / row.seconds[i];
      lo = lo == 0 ? rate : std::min(lo, rate);
      hi = std::max(hi, rate);
    }
    ops.notes.push_back("paper, " + std::to_string(paper::kTable3Clients[i]) + " clients, " +
                        "200-1600 barriers: " + format_count(lo) + "-" + format_count(hi) +
                        " barrier operations per second.");
  }
  out.tables.push_back(std::move(t));
  out.tables.push_back(std::move(ops));

  LinesPlot plot{
      "Table 3: seconds for every client to enter and leave b barriers", "barriers", "seconds", {}};
  for (Flavour f : lab.flavours) {
    for (int c : o.clients) {
      LineSeries s{flavour_label(f) + " " + std::to_string(c) + " clients", {}};
      for (int b : o.barriers) {
        if (auto v = lookup(secs, std::tuple{f, c, b})) s.points.emplace_back(b, *v);
      }
      plot.series.push_back(std::move(s));
    }
  }
  out.plots.emplace_back("table3.svg", lines_plot_svg(plot));
  return out;
}

}  // namespace zk::bench

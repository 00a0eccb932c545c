// SPDX-License-Identifier: Apache-2.0
#include "zkbench/paper_throughput.h"

#include <algorithm>
#include <map>
#include <optional>
#include <thread>

#include "zkbench/engine.h"
#include "zkbench/paper_reference.h"
#include "zkbench/plot_svg.h"
#include "zkbench/report.h"
#include "zkbench/series_report.h"

namespace zk::bench {

namespace {

using zk::lab::Flavour;

// One flavour on one size: its steps (those that ran).
struct Curve {
  Flavour flavour;
  int size;
  std::vector<SweepStep> steps;
};

double rate(const SweepStep& s) {
  return ops_per_second(s.result.figures.total().requests(), s.result);
}

std::optional<double> rate_at(const Curve& c, int reads) {
  for (const SweepStep& s : c.steps) {
    if (s.reads == reads) return rate(s);
  }
  return std::nullopt;
}

const Curve* find(const std::vector<Curve>& curves, Flavour f, int size) {
  for (const Curve& c : curves) {
    if (c.flavour == f && c.size == size) return &c;
  }
  return nullptr;
}

std::optional<double> at(const std::vector<Curve>& curves, Flavour f, int size, int reads) {
  const Curve* c = find(curves, f, size);
  return c ? rate_at(*c, reads) : std::nullopt;
}

// The servers' CPU per request (all nodes summed) at `reads`, in µs.
std::optional<double> cpu_at(const std::vector<Curve>& curves, Flavour f, int size, int reads) {
  const Curve* c = find(curves, f, size);
  if (c == nullptr) return std::nullopt;
  for (const SweepStep& s : c->steps) {
    if (s.reads == reads) return server_us_per_op(s.result);
  }
  return std::nullopt;
}

// The steps of one flavour on one size: an ensemble started, a run per
// step, the ensemble stopped.
Curve measure_curve(const PaperLab& lab, const ThroughputOptions& o, Flavour flavour, int size,
                    std::vector<std::string>& problems) {
  Curve curve{flavour, size, {}};
  auto ensemble = start_paper_ensemble(lab, flavour, size, problems);
  if (!ensemble) return curve;
  const std::string who = flavour_label(flavour) + ", " + std::to_string(size) + " servers";
  EngineOptions e;
  e.pool.addresses = ensemble_addresses(*ensemble);
  if (o.leader_only) {
    const auto leader = ensemble->leader();
    if (!leader) {
      problems.push_back(who + ": no leader");
      return curve;
    }
    e.pool.addresses = {ensemble->address(*leader)};
  }
  e.pool.sessions = o.sessions;
  e.pool.threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 2);
  e.in_flight = o.in_flight;
  e.workload.value_bytes = o.value_bytes;
  e.root = "/zkbench-paper";
  e.warmup = o.warmup;
  e.duration = o.duration;
  e.server_pids = ensemble_pids(*ensemble);
  for (int reads : o.steps) {
    if (paper_stopped()) break;
    paper_progress(lab, who + ": " + std::to_string(reads) + "% reads");
    EngineOptions step = e;
    step.workload.mix = reads_mix(reads);
    Engine engine(step);
    RunResult r;
    if (std::string why = engine.connect(); !why.empty()) {
      r.error = why;
    } else if (std::string s = engine.setup(); !s.empty()) {
      r.error = "setup: " + s;
    } else {
      r = engine.run();
    }
    if (!r.error.empty()) {
      problems.push_back(who + ", " + std::to_string(reads) + "% reads: " + r.error);
      continue;
    }
    if (const int64_t errors = r.figures.total().error_count(); errors > 0) {
      problems.push_back(who + ", " + std::to_string(reads) + "% reads: " + std::to_string(errors) +
                         " requests failed");
    }
    curve.steps.push_back({reads, std::move(r)});
  }
  return curve;
}

std::string column(Flavour f, int size) { return flavour_label(f) + " " + std::to_string(size); }

// One figure of each curve per read share: a column per flavour and size,
// and the ratio of the two flavours at each size. `value` picks the figure,
// `text` writes it.
PaperTable per_read_share(const PaperLab& lab, const ThroughputOptions& o,
                          const std::vector<Curve>& curves,
                          std::optional<double> (*value)(const std::vector<Curve>&, Flavour, int,
                                                         int),
                          std::string (*text)(std::optional<double>)) {
  PaperTable t;
  t.header = {"reads %"};
  const bool both = lab.flavours.size() == 2;
  for (int size : o.sizes) {
    for (Flavour f : lab.flavours) t.header.push_back(column(f, size));
    if (both) t.header.push_back("ratio " + std::to_string(size));
  }
  for (int reads : o.steps) {
    std::vector<std::string> row = {std::to_string(reads)};
    for (int size : o.sizes) {
      for (Flavour f : lab.flavours) row.push_back(text(value(curves, f, size, reads)));
      if (both) {
        row.push_back(format_ratio(value(curves, lab.flavours[0], size, reads),
                                   value(curves, lab.flavours[1], size, reads)));
      }
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string cpu_text(std::optional<double> us) { return format_fixed(us, 1); }

PaperTable rates_table(const PaperLab& lab, const ThroughputOptions& o,
                       const std::vector<Curve>& curves) {
  PaperTable t = per_read_share(lab, o, curves, at, format_count);
  t.title = std::string(o.leader_only ? "Figure 6" : "Figure 5") +
            ": operations per second against reads" +
            (o.leader_only ? ", every client on the leader" : "");
  if (lab.flavours.size() == 2) {
    t.notes.push_back("ratio N: " + flavour_label(lab.flavours[0]) + " / " +
                      flavour_label(lab.flavours[1]) + " on N servers.");
  }
  return t;
}

// The servers' CPU per request beside the rates: what the machine's 2 cores
// are spent on, the figure a single machine can compare fairly.
PaperTable cpu_table(const PaperLab& lab, const ThroughputOptions& o,
                     const std::vector<Curve>& curves) {
  PaperTable t = per_read_share(lab, o, curves, cpu_at, cpu_text);
  t.title = "Server CPU per request (µs, every node summed)" +
            std::string(o.leader_only ? ", every client on the leader" : "");
  if (lab.flavours.size() == 2) {
    t.notes.push_back("ratio N: " + flavour_label(lab.flavours[0]) + "'s CPU per request / " +
                      flavour_label(lab.flavours[1]) +
                      "'s (below 1: " + flavour_label(lab.flavours[0]) + " spends less).");
  }
  return t;
}

// Table 1: the extremes (0% and 100% reads) beside the paper's.
PaperTable extremes_table(const PaperLab& lab, const ThroughputOptions& o,
                          const std::vector<Curve>& curves) {
  PaperTable t;
  t.title = "Table 1: operations per second at the extremes";
  t.header = {"servers", "paper 100% reads", "paper 0% reads"};
  for (Flavour f : lab.flavours) {
    t.header.push_back(flavour_label(f) + " 100% reads");
    t.header.push_back(flavour_label(f) + " 0% reads");
  }
  std::vector<int> sizes = o.sizes;
  for (const auto& p : paper::kTable1) {
    if (std::find(sizes.begin(), sizes.end(), p.servers) == sizes.end()) sizes.push_back(p.servers);
  }
  std::sort(sizes.begin(), sizes.end());
  for (int size : sizes) {
    std::vector<std::string> row = {std::to_string(size)};
    std::optional<double> all, none;
    for (const auto& p : paper::kTable1) {
      if (p.servers == size) all = p.all_reads, none = p.no_reads;
    }
    row.push_back(format_count(all));
    row.push_back(format_count(none));
    for (Flavour f : lab.flavours) {
      row.push_back(format_count(at(curves, f, size, 100)));
      row.push_back(format_count(at(curves, f, size, 0)));
    }
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back("paper: 50 dual-core servers, 250 clients on 35 machines, gigabit ethernet.");
  return t;
}

}  // namespace

PaperOutput paper_throughput(const PaperLab& lab, const ThroughputOptions& o) {
  PaperOutput out;
  std::vector<Curve> curves;
  for (int size : o.sizes) {
    for (Flavour f : lab.flavours) curves.push_back(measure_curve(lab, o, f, size, out.problems));
  }
  out.tables.push_back(rates_table(lab, o, curves));
  out.tables.push_back(cpu_table(lab, o, curves));
  const bool extremes = std::find(o.steps.begin(), o.steps.end(), 0) != o.steps.end() ||
                        std::find(o.steps.begin(), o.steps.end(), 100) != o.steps.end();
  if (!o.leader_only && extremes) out.tables.push_back(extremes_table(lab, o, curves));

  std::vector<SweepSeries> series;
  for (const Curve& c : curves) {
    series.push_back({column(c.flavour, c.size) + " servers", c.steps});
  }
  out.plots.emplace_back(
      o.leader_only ? "fig6.svg" : "fig5.svg",
      sweep_plot_svg(series, o.leader_only
                                 ? "Figure 6: throughput against reads, every client on the leader"
                                 : "Figure 5: throughput of a saturated ensemble against reads"));
  return out;
}

}  // namespace zk::bench

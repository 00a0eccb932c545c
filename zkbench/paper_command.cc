// SPDX-License-Identifier: Apache-2.0
#include "zkbench/paper_command.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "zkbench/paper_broadcast.h"
#include "zkbench/paper_failures.h"
#include "zkbench/paper_lab.h"
#include "zkbench/paper_scenarios.h"
#include "zkbench/paper_throughput.h"
#include "zkbench/plot_svg.h"
#include "zklab/process/zkd_lookup.h"

#ifndef ZKD_BINARY
#define ZKD_BINARY ""
#endif

namespace zk::bench {

namespace {

using namespace std::chrono_literals;

const std::vector<std::string> kFigures = {"fig5",   "fig6", "fig7", "table2",
                                           "table3", "fig8", "all"};

std::chrono::milliseconds ms(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

// The flags as parsed; an option not given leaves the figure's default
// (or --quick's).
struct Flags {
  std::string figure;
  std::vector<std::string> flavours = {"zkd", "apache"};
  std::string zkd;
  bool quick = false;
  std::string out = ".";
  bool markdown = false;
  bool keep = false;
  int tick_ms = 200;
  std::string apache_heap = "512m";
  std::optional<double> ensemble_warmup_s;
  // fig5, fig6, table2
  std::vector<int> sizes;
  std::vector<int> steps;
  std::optional<double> duration_s, warmup_s;
  std::optional<int> sessions, in_flight;
  // table2
  std::vector<int> workers;
  std::optional<int64_t> creates;
  // table3, fig8
  std::optional<int> size;
  std::vector<int> clients, barriers;
  // fig7
  std::optional<int64_t> txns;
  std::optional<int> runs;
  // fig8
  std::optional<double> period_s;
  std::optional<int> bucket_ms, reads;
};

ThroughputOptions throughput_options(const Flags& f, bool leader_only) {
  ThroughputOptions o;
  o.leader_only = leader_only;
  if (f.quick) {
    o.steps = {0, 25, 50, 75, 90, 100};
    o.warmup = 500ms;
    o.duration = 1500ms;
  }
  if (!f.sizes.empty()) o.sizes = f.sizes;
  if (!f.steps.empty()) o.steps = f.steps;
  std::sort(o.steps.begin(), o.steps.end());
  o.steps.erase(std::unique(o.steps.begin(), o.steps.end()), o.steps.end());
  if (f.duration_s) o.duration = ms(*f.duration_s);
  if (f.warmup_s) o.warmup = ms(*f.warmup_s);
  if (f.sessions) o.sessions = *f.sessions;
  if (f.in_flight) o.in_flight = *f.in_flight;
  return o;
}

BroadcastOptions broadcast_options(const Flags& f) {
  BroadcastOptions o;
  if (f.quick) {
    o.txns = 20000;
    o.runs = 1;
  }
  if (!f.sizes.empty()) o.sizes = f.sizes;
  if (f.in_flight) o.in_flight = *f.in_flight;
  if (f.txns) o.txns = *f.txns;
  if (f.runs) o.runs = *f.runs;
  return o;
}

CreatesTableOptions creates_options(const Flags& f) {
  CreatesTableOptions o;
  if (f.quick) o.creates = 200;
  if (!f.sizes.empty()) o.sizes = f.sizes;
  if (!f.workers.empty()) o.workers = f.workers;
  if (f.creates) o.creates = *f.creates;
  return o;
}

BarrierTableOptions barrier_options(const Flags& f) {
  BarrierTableOptions o;
  if (f.quick) o.barriers = {10, 20, 40};
  if (f.size) o.size = *f.size;
  if (!f.clients.empty()) o.clients = f.clients;
  if (!f.barriers.empty()) o.barriers = f.barriers;
  return o;
}

FailuresOptions failures_options(const Flags& f) {
  FailuresOptions o;
  if (f.quick) o.period = 3s;
  if (f.size) o.size = *f.size;
  if (f.period_s) o.period = ms(*f.period_s);
  if (f.bucket_ms) o.bucket = std::chrono::milliseconds(*f.bucket_ms);
  if (f.reads) o.read_percent = *f.reads;
  if (f.sessions) o.sessions = *f.sessions;
  if (f.in_flight) o.in_flight = *f.in_flight;
  return o;
}

// Prints the tables, writes the plots; false when a plot could not be written.
bool report(const Flags& f, const PaperOutput& out) {
  for (const PaperTable& t : out.tables) {
    std::cout << (f.markdown ? table_markdown(t) : table_text(t)) << "\n";
  }
  std::cout.flush();
  bool ok = true;
  for (const auto& [name, text] : out.plots) {
    const std::filesystem::path path = std::filesystem::path(f.out) / name;
    if (std::string e = write_plot(path.string(), text); !e.empty()) {
      std::cerr << "zkbench paper: " << path.string() << ": " << e << "\n";
      ok = false;
    } else {
      std::cerr << "zkbench paper: wrote " << path.string() << "\n";
    }
  }
  for (const std::string& p : out.problems) std::cerr << "zkbench paper: " << p << "\n";
  return ok && out.problems.empty();
}

}  // namespace

BenchCommand add_paper_command(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  auto* p = app.add_subcommand(
      "paper",
      "the ZooKeeper paper's evaluation (fig5, fig6, fig7, table2, table3, fig8, all) on zkd "
      "and Apache, on ensembles it starts");
  p->add_option("figure", f->figure, "fig5, fig6, fig7, table2, table3, fig8 or all")
      ->required()
      ->check(CLI::IsMember(kFigures))
      ->type_name("FIGURE");
  p->add_option("--flavours", f->flavours, "servers to run, in order (default zkd,apache)")
      ->delimiter(',')
      ->check(CLI::IsMember({"zkd", "apache"}))
      ->type_name("zkd,apache");
  p->add_option("--zkd", f->zkd, "the zkd executable (default: as zklab finds it)")
      ->type_name("PATH");
  p->add_flag("--quick", f->quick, "every figure scaled down to a run of minutes");
  p->add_option("--out", f->out, "directory for the plots (default .)")->type_name("DIR");
  p->add_flag("--markdown", f->markdown, "print the tables as Markdown");
  p->add_flag("--keep", f->keep, "keep each ensemble's directory (its logs)");
  p->add_option("--tick-ms", f->tick_ms, "the ensembles' tickTime (default 200)")
      ->check(CLI::Range(10, 10000));
  p->add_option("--apache-heap", f->apache_heap, "each Apache server's heap (default 512m)")
      ->type_name("SIZE");
  p->add_option("--ensemble-warmup", f->ensemble_warmup_s,
                "seconds of load on each new ensemble before it is measured (default 15)")
      ->check(CLI::Range(0.0, 600.0));
  p->add_option("--sizes", f->sizes, "fig5, fig6, fig7, table2: ensemble sizes (default 3,5,7)")
      ->delimiter(',')
      ->check(CLI::Range(1, 15))
      ->type_name("N,...");
  p->add_option("--steps", f->steps, "fig5, fig6: read percentages (default 0,10,...,100)")
      ->delimiter(',')
      ->check(CLI::Range(0, 100))
      ->type_name("R,...");
  p->add_option("--duration", f->duration_s, "fig5, fig6: measured seconds per step (default 5)")
      ->check(CLI::Range(0.1, 3600.0));
  p->add_option("--warmup", f->warmup_s, "fig5, fig6: warm-up seconds per step (default 1)")
      ->check(CLI::Range(0.0, 600.0));
  p->add_option("--sessions", f->sessions, "fig5, fig6, fig8: sessions (default 24; fig8 20)")
      ->check(CLI::Range(1, 10000));
  p->add_option("--in-flight", f->in_flight,
                "fig5, fig6, fig8: requests per session (default 8); fig7: txns (default 1000)")
      ->check(CLI::Range(1, 10000));
  p->add_option("--txns", f->txns, "fig7: txns per run (default 100000)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000000}));
  p->add_option("--runs", f->runs, "fig7: runs per ensemble (default 3)")
      ->check(CLI::Range(1, 1000));
  p->add_option("--workers", f->workers, "table2: workers (default 1,10,20)")
      ->delimiter(',')
      ->check(CLI::Range(1, 10000))
      ->type_name("W,...");
  p->add_option("--creates", f->creates, "table2: creates per worker (default 5000)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000000}));
  p->add_option("--size", f->size, "table3, fig8: ensemble size (default 3; fig8 5)")
      ->check(CLI::Range(1, 15));
  p->add_option("--clients", f->clients, "table3: clients (default 50,100,200)")
      ->delimiter(',')
      ->check(CLI::Range(1, 10000))
      ->type_name("C,...");
  p->add_option("--barriers", f->barriers, "table3: barriers (default 20,40,80,160)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1000000))
      ->type_name("B,...");
  p->add_option("--period", f->period_s, "fig8: seconds between steps (default 10)")
      ->check(CLI::Range(0.5, 3600.0));
  p->add_option("--bucket-ms", f->bucket_ms, "fig8: the timeline's bucket (default 500)")
      ->check(CLI::Range(10, 60000));
  p->add_option("--reads", f->reads, "fig8: percent of reads (default 70)")
      ->check(CLI::Range(0, 100));
  return {p, [f] {
            PaperLab lab;
            lab.flavours.clear();
            for (const std::string& name : f->flavours) {
              lab.flavours.push_back(*zk::lab::parse_flavour(name));
            }
            lab.tick_ms = f->tick_ms;
            lab.apache_heap = f->apache_heap;
            lab.keep_dirs = f->keep;
            if (f->quick) lab.ensemble_warmup = 10s;
            if (f->ensemble_warmup_s) lab.ensemble_warmup = ms(*f->ensemble_warmup_s);
            auto found = zk::lab::find_zkd(zk::lab::this_process_search(f->zkd, ZKD_BINARY));
            for (auto flavour : lab.flavours) {
              if (flavour == zk::lab::Flavour::kZkd && found.path.empty()) {
                std::cerr << "zkbench paper: " << found.error << "\n";
                return kExitError;
              }
              if (flavour == zk::lab::Flavour::kApache) {
                if (std::string m = zk::lab::apache_missing(); !m.empty()) {
                  std::cerr << "zkbench paper: Apache ZooKeeper cannot run: " << m << "\n";
                  return kExitError;
                }
              }
            }
            lab.zkd = found.path;
            std::error_code ec;
            std::filesystem::create_directories(f->out, ec);
            install_paper_stop();
            const bool all = f->figure == "all";
            bool ok = true;
            if (all || f->figure == "fig5")
              ok &= report(*f, paper_throughput(lab, throughput_options(*f, false)));
            if (all || f->figure == "fig6")
              ok &= report(*f, paper_throughput(lab, throughput_options(*f, true)));
            if (all || f->figure == "fig7")
              ok &= report(*f, paper_broadcast(lab, broadcast_options(*f)));
            if (all || f->figure == "table2")
              ok &= report(*f, paper_creates_table(lab, creates_options(*f)));
            if (all || f->figure == "table3")
              ok &= report(*f, paper_barrier_table(lab, barrier_options(*f)));
            if (all || f->figure == "fig8")
              ok &= report(*f, paper_failures(lab, failures_options(*f)));
            if (paper_stopped()) {
              std::cerr << "zkbench paper: interrupted; the tables cover what was measured\n";
              return kExitError;
            }
            return ok ? kExitOk : kExitError;
          }};
}

}  // namespace zk::bench

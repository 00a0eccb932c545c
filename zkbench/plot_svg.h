// SPDX-License-Identifier: Apache-2.0
// zkbench's plots (--plot FILE.svg): standalone SVG documents in the house
// style of zk::svg (libzk/svg/svg_plot.h), drawn from the same figures as
// the reports (report.h, series_report.h).
//
// run: the latency CDF of every op type with a successful request: x the
//   latency in ms on a log scale, y the fraction of that type's successful
//   requests answered within it; a polyline per op type (class: its name),
//   from (min, 0) through the histogram's percentiles at 0.5%, 1%, ...,
//   100% and 99.9%, 99.95%, 99.99%, in increasing order.
// sweep: throughput against reads, as Figure 5 of the ZooKeeper paper: x
//   the read percentage (0 to 100), y requests per second; a polyline per
//   ensemble (class ensemble1, ensemble2, ...; named in the legend), a point
//   (and a dot) per step in increasing reads.
// compare: requests per second per round, a polyline per side (class a and
//   b; the sides' names in the legend), a point (and a dot) per round.
// lines: any figure of a few points per series (zkbench paper's tables): a
//   polyline and dots per series (class line1, line2, ...), linear axes
//   from 0 with the titles given.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "zkbench/engine.h"
#include "zkbench/series_report.h"

namespace zk::bench {

std::string run_plot_svg(const EngineOptions& options, const RunResult& result);

// The steps of one ensemble's sweep, and its name in the legend.
struct SweepSeries {
  std::string name;
  std::vector<SweepStep> steps;
};

std::string sweep_plot_svg(const std::vector<SweepSeries>& ensembles,
                           const std::string& title = "zkbench sweep: throughput against reads");
// One ensemble, named "<n> server(s)" after its addresses.
std::string sweep_plot_svg(const EngineOptions& options, const std::vector<SweepStep>& steps);

std::string compare_plot_svg(const CompareSide& a, const CompareSide& b,
                             const std::vector<CompareRound>& rounds);

struct LineSeries {
  std::string name;                               // in the legend
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in increasing x
};
struct LinesPlot {
  std::string title;
  std::string x_title;
  std::string y_title;
  std::vector<LineSeries> series;
};
std::string lines_plot_svg(const LinesPlot& plot);

// Writes `svg` to `path`, replacing it. Empty on success, else why not.
std::string write_plot(const std::string& path, const std::string& svg);

}  // namespace zk::bench

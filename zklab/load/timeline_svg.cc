// SPDX-License-Identifier: Apache-2.0
#include "zklab/load/timeline_svg.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "libzk/svg/svg_plot.h"

namespace zk::lab {

namespace {

struct Series {
  const char* name;
  const char* colour;
  int64_t (*count)(const LoadBucket&);
};

const Series kSeries[] = {
    {"total", "#222222", [](const LoadBucket& b) { return b.reads + b.writes; }},
    {"writes", "#d62728", [](const LoadBucket& b) { return b.writes; }},
    {"reads", "#1f77b4", [](const LoadBucket& b) { return b.reads; }},
};

constexpr double kLegendBaseline = 44;
constexpr double kMarkerBaseline = 62;
constexpr double kMarkerRowHeight = 13;
constexpr int kMarkerRows = 3;

const char* marker_colour(EventKind kind) {
  switch (kind) {
    case EventKind::kKill:
    case EventKind::kPause:
    case EventKind::kIsolate:
      return "#d62728";
    case EventKind::kNewLeader:
      return "#2ca02c";
    case EventKind::kRestart:
    case EventKind::kResume:
    case EventKind::kHeal:
    case EventKind::kTransfer:
      return "#9467bd";
    case EventKind::kRejoin:
      return "#17becf";
    case EventKind::kRole:
      break;
  }
  return "#7f7f7f";
}

}  // namespace

std::string timeline_svg(const Timeline& timeline, const SvgOptions& options) {
  // Above the plot area, each in a row of its own so that none runs into
  // another however long: the title (baseline 24), the legend (kLegendBaseline)
  // and up to three rows of marker labels (kMarkerBaseline on).
  svg::Layout layout;
  layout.width = std::max(options.width, 320);
  layout.height = std::max(options.height, 240);
  layout.top = kMarkerBaseline + kMarkerRowHeight * (kMarkerRows - 1) + 16;
  const double bucket_s = std::chrono::duration<double>(timeline.bucket).count();
  const double per_s = bucket_s > 0 ? 1 / bucket_s : 0;

  // x: seconds from 0 to the end of the last bucket or the last marker.
  svg::Axis x;
  x.title = "time (s)";
  x.max = std::max(std::chrono::duration<double>(timeline.end()).count(), bucket_s);
  for (const auto& e : timeline.events) {
    if (e.kind != EventKind::kRole) {
      x.max = std::max(x.max, std::chrono::duration<double>(e.at).count());
    }
  }
  if (x.max <= 0) x.max = 1;
  x.step = svg::nice_step(x.max, 12);
  // y: operations per second from 0 to a tick above the peak.
  double peak = 0;
  for (const auto& b : timeline.buckets) {
    peak = std::max(peak, static_cast<double>(b.reads + b.writes) * per_s);
  }
  svg::Axis y = svg::Axis::linear(0, std::max(peak * 1.1, 1.0), 6, "operations per second");
  y.grid = true;
  const svg::Plot plot(layout, x, y);

  std::vector<svg::LegendEntry> legend;
  for (const auto& s : kSeries) legend.push_back({s.name, s.colour});
  std::string out = plot.begin(options.title) + plot.legend(legend, kLegendBaseline) + plot.axes();

  // Markers: a dashed line each, labels above the plot in up to three rows
  // (a label goes in the first row where it does not run into the last one).
  std::vector<double> row_end(kMarkerRows, -1e9);
  for (const auto& e : timeline.events) {
    if (e.kind == EventKind::kRole) continue;
    const double mx = plot.x(std::chrono::duration<double>(e.at).count());
    const std::string label = (e.mark.empty() ? "" : e.mark + ": ") + describe(e);
    size_t row = 0;
    while (row + 1 < row_end.size() && row_end[row] > mx) ++row;
    row_end[row] = mx + 3 + 6.6 * static_cast<double>(label.size());
    const double label_y = kMarkerBaseline + kMarkerRowHeight * static_cast<double>(row);
    const std::string colour = marker_colour(e.kind);
    out += svg::line(mx, label_y + 3, mx, plot.area_bottom(),
                     " stroke=\"" + colour + "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"");
    out += svg::text(mx + 3, label_y, label, " fill=\"" + colour + "\"");
  }

  // The series: one point per bucket, at its middle.
  for (const auto& s : kSeries) {
    std::vector<svg::Point> points;
    for (size_t i = 0; i < timeline.buckets.size(); ++i) {
      points.push_back({(static_cast<double>(i) + 0.5) * bucket_s,
                        static_cast<double>(s.count(timeline.buckets[i])) * per_s});
    }
    out += plot.series(s.name, s.colour, points);
  }
  return out + svg::Plot::end();
}

std::string write_timeline_svg(const std::filesystem::path& path, const Timeline& timeline,
                               const SvgOptions& options) {
  return zk::svg::write_file(path, timeline_svg(timeline, options));
}

}  // namespace zk::lab

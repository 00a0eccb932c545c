// SPDX-License-Identifier: Apache-2.0
#include "zkbench/plot_svg.h"

#include <algorithm>
#include <set>

#include "libzk/svg/svg_plot.h"
#include "zkbench/report.h"

namespace zk::bench {

namespace {

// The plot area leaves two rows above it: the title, then the legend.
svg::Layout layout() {
  svg::Layout l;
  l.top = 60;
  return l;
}

constexpr double kLegendBaseline = 44;

// The quantiles a CDF is drawn through, increasing: every 0.5% and the tail.
std::vector<double> cdf_quantiles() {
  std::set<double> q;
  for (int i = 1; i <= 200; ++i) q.insert(i / 200.0);
  for (double tail : {0.999, 0.9995, 0.9999}) q.insert(tail);
  return {q.begin(), q.end()};
}

double ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// y from 0 to a tick above `peak` requests per second.
svg::Axis rate_axis(double peak) {
  svg::Axis y = svg::Axis::linear(0, std::max(peak * 1.1, 1.0), 6, "operations per second");
  y.grid = true;
  return y;
}

std::string document(const svg::Plot& plot, const std::string& title,
                     const std::vector<svg::LegendEntry>& legend, const std::string& series) {
  return plot.begin(title) + plot.legend(legend, kLegendBaseline) + plot.axes() + series +
         svg::Plot::end();
}

}  // namespace

std::string run_plot_svg(const EngineOptions& o, const RunResult& r) {
  struct Curve {
    OpType op;
    std::vector<svg::Point> points;
  };
  std::vector<Curve> curves;
  double lo = 0, hi = 0;
  for (OpType op : listed_op_types(o.workload, r.figures)) {
    const Histogram& h = r.figures.of(op).latency;
    if (h.count() == 0) continue;
    Curve c{op, {{ms(std::max<int64_t>(h.min(), 1)), 0}}};
    for (double q : cdf_quantiles()) c.points.push_back({ms(h.percentile(q)), q});
    lo = curves.empty() ? c.points.front().x : std::min(lo, c.points.front().x);
    hi = std::max(hi, c.points.back().x);
    curves.push_back(std::move(c));
  }
  svg::Axis x =
      curves.empty() ? svg::Axis::logarithmic(0.1, 1, "") : svg::Axis::logarithmic(lo, hi, "");
  x.title = "latency (ms, log scale)";
  x.grid = true;
  svg::Axis y = svg::Axis::linear(0, 1, 5, "fraction of requests");
  y.grid = true;
  const svg::Plot plot(layout(), x, y);
  std::vector<svg::LegendEntry> legend;
  std::string series;
  for (size_t i = 0; i < curves.size(); ++i) {
    const std::string name(op_name(curves[i].op));
    const std::string colour(svg::series_colour(static_cast<size_t>(curves[i].op)));
    legend.push_back({name, colour});
    series += plot.series(name, colour, curves[i].points);
  }
  return document(plot, "zkbench run: latency CDF per op type (" + o.workload.mix.describe() + ")",
                  legend, series);
}

std::string sweep_plot_svg(const std::vector<SweepSeries>& ensembles, const std::string& title) {
  double peak = 0;
  std::vector<std::vector<svg::Point>> lines;
  for (const SweepSeries& e : ensembles) {
    std::vector<svg::Point> points;
    for (const SweepStep& step : e.steps) {
      const double rate = ops_per_second(step.result.figures.total().requests(), step.result);
      points.push_back({static_cast<double>(step.reads), rate});
      peak = std::max(peak, rate);
    }
    std::stable_sort(points.begin(), points.end(),
                     [](const svg::Point& a, const svg::Point& b) { return a.x < b.x; });
    lines.push_back(std::move(points));
  }
  svg::Axis x = svg::Axis::linear(0, 100, 10, "reads (%)");
  const svg::Plot plot(layout(), x, rate_axis(peak));
  std::vector<svg::LegendEntry> legend;
  std::string series;
  for (size_t i = 0; i < ensembles.size(); ++i) {
    const std::string colour(svg::series_colour(i));
    legend.push_back({ensembles[i].name, colour});
    const std::string css_class = "ensemble" + std::to_string(i + 1);
    series += plot.series(css_class, colour, lines[i]) + plot.markers(css_class, colour, lines[i]);
  }
  return document(plot, title, legend, series);
}

std::string sweep_plot_svg(const EngineOptions& o, const std::vector<SweepStep>& steps) {
  const size_t n = o.pool.addresses.size();
  return sweep_plot_svg(
      {SweepSeries{std::to_string(n) + (n == 1 ? " server" : " servers"), steps}});
}

std::string compare_plot_svg(const CompareSide& a, const CompareSide& b,
                             const std::vector<CompareRound>& rounds) {
  std::vector<svg::Point> as, bs;
  double peak = 0;
  for (size_t i = 0; i < rounds.size(); ++i) {
    const double round = static_cast<double>(i + 1);
    as.push_back({round, ops_per_second(rounds[i].a.figures.total().requests(), rounds[i].a)});
    bs.push_back({round, ops_per_second(rounds[i].b.figures.total().requests(), rounds[i].b)});
    peak = std::max({peak, as.back().y, bs.back().y});
  }
  const double last = std::max<double>(static_cast<double>(rounds.size()), 2);
  const svg::Axis x =
      svg::Axis::linear(1, last, static_cast<int>(std::min(last - 1, 10.0)), "round");
  const svg::Plot plot(layout(), x, rate_axis(peak));
  const std::string a_colour(svg::series_colour(0)), b_colour(svg::series_colour(1));
  return document(
      plot, "zkbench compare: throughput per round (" + a.options.workload.mix.describe() + ")",
      {{a.name, a_colour}, {b.name, b_colour}},
      plot.series("a", a_colour, as) + plot.markers("a", a_colour, as) +
          plot.series("b", b_colour, bs) + plot.markers("b", b_colour, bs));
}

std::string lines_plot_svg(const LinesPlot& p) {
  double x_max = 0, y_max = 0;
  std::vector<std::vector<svg::Point>> lines;
  for (const LineSeries& s : p.series) {
    std::vector<svg::Point> points;
    for (const auto& [x, y] : s.points) {
      points.push_back({x, y});
      x_max = std::max(x_max, x);
      y_max = std::max(y_max, y);
    }
    std::stable_sort(points.begin(), points.end(),
                     [](const svg::Point& a, const svg::Point& b) { return a.x < b.x; });
    lines.push_back(std::move(points));
  }
  const svg::Axis x = svg::Axis::linear(0, std::max(x_max, 1.0), 10, p.x_title);
  svg::Axis y = svg::Axis::linear(0, y_max > 0 ? y_max * 1.1 : 1.0, 6, p.y_title);
  y.grid = true;
  const svg::Plot plot(layout(), x, y);
  std::vector<svg::LegendEntry> legend;
  std::string series;
  for (size_t i = 0; i < p.series.size(); ++i) {
    const std::string colour(svg::series_colour(i));
    legend.push_back({p.series[i].name, colour});
    const std::string css_class = "line" + std::to_string(i + 1);
    series += plot.series(css_class, colour, lines[i]) + plot.markers(css_class, colour, lines[i]);
  }
  return document(plot, p.title, legend, series);
}

std::string write_plot(const std::string& path, const std::string& svg) {
  return svg::write_file(path, svg);
}

}  // namespace zk::bench

// SPDX-License-Identifier: Apache-2.0
// zkbench's plots (plot_svg.h) on made-up results, and the zk::svg pieces
// they are drawn with: well-formed documents, one polyline per series with
// its points in order, axis titles and tick labels.
#include "zkbench/plot_svg.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "libzk/svg/svg_plot.h"

namespace zk::bench {
namespace {

using namespace std::chrono_literals;

// Empty when `svg` is well-formed as far as a plot needs (every tag closed
// in order, one root <svg>, '&' only in entities), else what is wrong.
std::string xml_problem(const std::string& svg) {
  std::vector<std::string> open;
  int roots = 0;
  for (size_t i = 0; i < svg.size(); ++i) {
    if (svg[i] == '&') {
      bool entity = false;
      for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;"}) {
        entity = entity || svg.compare(i, std::string(e).size(), e) == 0;
      }
      if (!entity) return "a bare & at " + std::to_string(i);
      continue;
    }
    if (svg[i] == '>') return "a bare > at " + std::to_string(i);
    if (svg[i] != '<') continue;
    const size_t end = svg.find('>', i);
    if (end == std::string::npos) return "an unclosed tag at " + std::to_string(i);
    const std::string tag = svg.substr(i + 1, end - i - 1);
    i = end;
    if (tag.empty() || tag.find('<') != std::string::npos) return "a bad tag: " + tag;
    if (tag[0] == '?') continue;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return "a stray </" + tag.substr(1) + ">";
      open.pop_back();
      continue;
    }
    const std::string name = tag.substr(0, tag.find_first_of(" \n/"));
    if (open.empty()) ++roots;
    if (tag.back() != '/') open.push_back(name);
  }
  if (!open.empty()) return "<" + open.back() + "> not closed";
  if (roots != 1) return std::to_string(roots) + " root elements";
  return "";
}

struct Polyline {
  std::string css_class;
  std::vector<svg::Point> points;  // in pixels
};

std::vector<Polyline> polylines(const std::string& svg) {
  std::vector<Polyline> out;
  const std::regex polyline("<polyline class=\"([^\"]*)\"[^>]*points=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), polyline);
       it != std::sregex_iterator(); ++it) {
    Polyline p{(*it)[1].str(), {}};
    std::istringstream in((*it)[2].str());
    for (std::string pair; in >> pair;) {
      const size_t comma = pair.find(',');
      p.points.push_back({std::stod(pair.substr(0, comma)), std::stod(pair.substr(comma + 1))});
    }
    out.push_back(std::move(p));
  }
  return out;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A run of `gets` gets at 100 µs .. and `sets` sets at 1 ms .. over 1 s.
RunResult made_up_run(int gets, int sets) {
  RunResult r;
  r.measured = 1s;
  for (int i = 0; i < gets; ++i) {
    r.figures.of(OpType::kGet).ok++;
    r.figures.of(OpType::kGet).latency.record(100'000 + 1'000 * i);
  }
  for (int i = 0; i < sets; ++i) {
    r.figures.of(OpType::kSet).ok++;
    r.figures.of(OpType::kSet).latency.record(1'000'000 + 20'000 * i);
  }
  return r;
}

EngineOptions get_set_options() {
  EngineOptions o;
  o.pool.addresses = {"127.0.0.1:2181", "127.0.0.1:2182", "127.0.0.1:2183"};
  o.workload.mix = parse_mix("get=50,set=50").mix;
  return o;
}

TEST(RunPlot, IsALatencyCdfPerOpType) {
  const std::string svg = run_plot_svg(get_set_options(), made_up_run(500, 300));
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  for (const char* label : {"latency (ms, log scale)", "fraction of requests", ">get<", ">set<",
                            "get=50,set=50", ">0.1</text>", ">1</text>", ">10</text>"}) {
    EXPECT_TRUE(contains(svg, label)) << label << "\n" << svg;
  }
  const auto lines = polylines(svg);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].css_class, "get");
  EXPECT_EQ(lines[1].css_class, "set");
  for (const Polyline& line : lines) {
    ASSERT_GT(line.points.size(), 100u) << line.css_class;
    // Latency rises (x, left to right) as the fraction does (y, upwards).
    for (size_t i = 1; i < line.points.size(); ++i) {
      EXPECT_GE(line.points[i].x, line.points[i - 1].x) << line.css_class << " " << i;
      EXPECT_LE(line.points[i].y, line.points[i - 1].y) << line.css_class << " " << i;
    }
    EXPECT_GT(line.points.front().y, line.points.back().y) << line.css_class;
  }
  // Every get is faster than every set.
  EXPECT_LT(lines[0].points.back().x, lines[1].points.front().x);
}

TEST(RunPlot, WithoutASuccessIsStillAPlot) {
  RunResult r;
  r.figures.of(OpType::kGet).errors[zk::wire::Error::kConnectionLoss] = 3;
  const std::string svg = run_plot_svg(get_set_options(), r);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_TRUE(polylines(svg).empty());
  EXPECT_FALSE(contains(svg, "nan"));
  EXPECT_FALSE(contains(svg, "inf"));
}

TEST(SweepPlot, HasAPointPerStepInIncreasingReads) {
  // Steps in the order run: 90, 0, 50; 900, 100 and 500 requests in 1 s.
  std::vector<SweepStep> steps;
  for (int reads : {90, 0, 50}) steps.push_back({reads, made_up_run(reads * 10, 0)});
  steps[1].result = made_up_run(0, 100);
  const std::string svg = sweep_plot_svg(get_set_options(), steps);
  EXPECT_EQ(xml_problem(svg), "");
  for (const char* label : {"reads (%)", "operations per second", ">3 servers<", ">100</text>"}) {
    EXPECT_TRUE(contains(svg, label)) << label;
  }
  const auto lines = polylines(svg);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].css_class, "ensemble1");
  const auto& p = lines[0].points;
  ASSERT_EQ(p.size(), 3u);
  EXPECT_LT(p[0].x, p[1].x);
  EXPECT_LT(p[1].x, p[2].x);
  // 100, 500, 900 ops/s: higher up (smaller y) from left to right.
  EXPECT_GT(p[0].y, p[1].y);
  EXPECT_GT(p[1].y, p[2].y);
  // A dot on each point.
  const std::string first_dot =
      "<circle cx=\"" + svg::num(p[0].x) + "\" cy=\"" + svg::num(p[0].y) + "\"";
  EXPECT_TRUE(contains(svg, first_dot)) << first_dot;
  size_t dots = 0;
  for (size_t at = svg.find("<circle "); at != std::string::npos;
       at = svg.find("<circle ", at + 1)) {
    ++dots;
  }
  EXPECT_EQ(dots, 3u);
}

TEST(SweepPlot, DrawsAPolylinePerEnsemble) {
  std::vector<SweepSeries> ensembles;
  for (const char* name : {"3 servers", "5 servers <zkd> & co"}) {
    SweepSeries s{name, {}};
    for (int reads : {0, 100}) s.steps.push_back({reads, made_up_run(100 + reads, 0)});
    ensembles.push_back(std::move(s));
  }
  const std::string svg = sweep_plot_svg(ensembles);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_TRUE(contains(svg, "5 servers &lt;zkd&gt; &amp; co"));
  const auto lines = polylines(svg);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].css_class, "ensemble1");
  EXPECT_EQ(lines[1].css_class, "ensemble2");
  EXPECT_EQ(lines[1].points.size(), 2u);
}

TEST(SweepPlot, TakesTheTitleGiven) {
  const std::string svg = sweep_plot_svg({SweepSeries{"zkd 3", {}}}, "Figure 5: <saturated>");
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_TRUE(contains(svg, "Figure 5: &lt;saturated&gt;"));
  EXPECT_FALSE(contains(svg, "zkbench sweep"));
}

TEST(LinesPlot, DrawsEachSeriesInIncreasingX) {
  LinesPlot p{"Table 2", "workers", "creates per second", {}};
  p.series.push_back({"zkd 3 servers", {{20, 9000}, {1, 800}, {10, 5000}}});
  p.series.push_back({"apache 3 servers", {{1, 400}, {20, 3000}}});
  p.series.push_back({"none", {}});
  const std::string svg = lines_plot_svg(p);
  EXPECT_EQ(xml_problem(svg), "");
  for (const char* label : {">Table 2<", ">workers<", ">creates per second<", ">zkd 3 servers<"}) {
    EXPECT_TRUE(contains(svg, label)) << label;
  }
  const auto lines = polylines(svg);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].css_class, "line1");
  ASSERT_EQ(lines[0].points.size(), 3u);
  EXPECT_LT(lines[0].points[0].x, lines[0].points[1].x);
  EXPECT_LT(lines[0].points[1].x, lines[0].points[2].x);
  EXPECT_GT(lines[0].points[0].y, lines[0].points[2].y);  // higher up (smaller y) at 20 workers
  EXPECT_TRUE(lines[2].points.empty());
  EXPECT_FALSE(contains(svg, "nan"));
}

TEST(ComparePlot, HasALinePerSideAndAPointPerRound) {
  CompareSide a{"zkd", get_set_options()}, b{"apache", get_set_options()};
  std::vector<CompareRound> rounds;
  for (int i = 1; i <= 3; ++i) rounds.push_back({made_up_run(100 * i, 0), made_up_run(50, 0)});
  const std::string svg = compare_plot_svg(a, b, rounds);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_TRUE(contains(svg, ">zkd<"));
  EXPECT_TRUE(contains(svg, ">apache<"));
  EXPECT_TRUE(contains(svg, ">round<"));
  const auto lines = polylines(svg);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].css_class, "a");
  EXPECT_EQ(lines[1].css_class, "b");
  for (const Polyline& line : lines) ASSERT_EQ(line.points.size(), 3u);
  EXPECT_GT(lines[0].points[0].y, lines[0].points[2].y);  // a rises
  EXPECT_EQ(lines[1].points[0].y, lines[1].points[2].y);  // b stays
}

TEST(SvgAxis, LogTicksCoverTheDecadesOfTheData) {
  const svg::Axis x = svg::Axis::logarithmic(0.23, 7.1, "ms");
  EXPECT_DOUBLE_EQ(x.min, 0.1);
  EXPECT_DOUBLE_EQ(x.max, 10);
  std::vector<std::string> labels;
  for (double t : x.ticks()) labels.push_back(svg::tick_label(t));
  EXPECT_EQ(labels, (std::vector<std::string>{"0.1", "0.2", "0.5", "1", "2", "5", "10"}));
  EXPECT_DOUBLE_EQ(x.fraction(1), 0.5);
  EXPECT_DOUBLE_EQ(x.fraction(0), 0);  // clamped to the axis
  // Over more than three decades: the powers of ten only.
  std::vector<double> wide = svg::Axis::logarithmic(0.001, 50, "").ticks();
  EXPECT_EQ(wide.size(), 6u);
}

TEST(SvgAxis, LinearAxisEndsOnATick) {
  const svg::Axis y = svg::Axis::linear(0, 1234, 6, "ops");
  EXPECT_DOUBLE_EQ(y.step, 500);  // 200 would take 7 intervals
  EXPECT_DOUBLE_EQ(y.max, 1500);
  EXPECT_EQ(y.ticks().size(), 4u);
  EXPECT_EQ(svg::escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
}

}  // namespace
}  // namespace zk::bench

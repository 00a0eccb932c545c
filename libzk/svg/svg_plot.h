// SPDX-License-Identifier: Apache-2.0
// zk::svg: the pieces of the project's SVG plots (zklab's failover timeline,
// zkbench's throughput and latency plots), so that they share one house
// style: a white page, a bold title top left, a legend of coloured lines, a
// plot area with axes, ticks, tick labels, axis titles and a light grid, and
// the data as polylines. Hand-written SVG 1.1 text: standalone documents that
// browsers display as they are. Pure functions of their arguments, apart from
// write_file().
//
// A plot is assembled in document order:
//   Plot p(layout, x_axis, y_axis);
//   std::string svg = p.begin(title) + p.legend(entries) + p.axes();
//   svg += p.series("reads", colour, points);  // one per series
//   svg += p.markers("reads", colour, points);  // optional dots
//   svg += Plot::end();
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace zk::svg {

// A coordinate or length for an attribute: one decimal ("12.3").
std::string num(double v);
// A tick label: an integer without decimals ("2"), anything else as %g ("0.2").
std::string tick_label(double v);
// `text` with &, <, > and " escaped: safe as character data and as an
// attribute value.
std::string escape(std::string_view text);
// 1, 2 or 5 times a power of ten: the smallest such step that cuts `range`
// into at most `ticks` intervals; 1 for a range <= 0.
double nice_step(double range, int ticks);

// <text x=".." y="..">escaped content</text> and a newline. `extra`: more
// attributes, each with a leading space (` fill="red"`).
std::string text(double x, double y, std::string_view content, std::string_view extra = "");
// <line x1=".." y1=".." x2=".." y2=".."/> and a newline; `extra` as for text().
std::string line(double x1, double y1, double x2, double y2, std::string_view extra = "");

// The colour of series `i` of a plot that has no colours of its own (a
// palette of 8, repeated).
std::string_view series_colour(size_t i);

struct Point {
  double x = 0;
  double y = 0;
};

// An axis: the data values at its start and end and where its ticks go.
// Linear: a tick at min, min + step, ... up to max + step / 2 (so the last
// may lie up to half a step past max). Log (log10; needs 0 < min < max):
// ticks at 1, 2 and 5 times the powers of ten in [min, max] when it spans
// at most 3 decades, else at the powers of ten only.
struct Axis {
  double min = 0;
  double max = 1;
  double step = 1;  // linear only
  bool log = false;
  std::string title;  // shown beside the axis
  bool grid = false;  // a light grid line at every tick but the first

  std::vector<double> ticks() const;
  // Where `v` lies on the axis: 0 at min, 1 at max (a log axis takes values
  // <= 0 as min).
  double fraction(double v) const;

  // A linear axis from `min` to the first multiple of a nice step (at most
  // `ticks` intervals) at or above `max` (one step above min when max <= min).
  static Axis linear(double min, double max, int ticks, std::string title);
  // A log axis from the power of ten at or below `min` to the one at or
  // above `max` (a decade at least); values <= 0 are taken as 1.
  static Axis logarithmic(double min, double max, std::string title);
};

// The page and the plot area in it, in pixels: the area spans [left,
// width - right] by [top, height - bottom].
struct Layout {
  double width = 960;
  double height = 480;
  double left = 80;
  double top = 84;
  double right = 30;
  double bottom = 56;
};

struct LegendEntry {
  std::string name;
  std::string colour;
};

class Plot {
 public:
  Plot(const Layout& layout, Axis x, Axis y);

  // The pixel position of a data value.
  double x(double v) const;
  double y(double v) const;
  const Layout& layout() const { return layout_; }
  // The plot area's edges in pixels.
  double area_left() const { return layout_.left; }
  double area_top() const { return layout_.top; }
  double area_right() const { return layout_.width - layout_.right; }
  double area_bottom() const { return layout_.height - layout_.bottom; }

  // The XML declaration, <svg ...> with the page's size, a white background
  // and `title` (bold, at the top left of the plot area, baseline 24).
  std::string begin(std::string_view title) const;
  // A short line and the name of each entry, in a row right-aligned with
  // the plot area, on text baseline `baseline` (each entry 90 pixels wide,
  // wider for a long name).
  std::string legend(const std::vector<LegendEntry>& entries, double baseline = 24) const;
  // The grid, the two axes with their ticks and tick labels, and the axis
  // titles (the y title rotated, left of the tick labels).
  std::string axes() const;
  // The data `points` as <polyline class="css_class" ...> in `colour`, in
  // the order given.
  std::string series(std::string_view css_class, std::string_view colour,
                     const std::vector<Point>& points) const;
  // A dot (radius 3) in `colour` at each of the data `points`, in a group
  // of class `css_class`: for series of few points.
  std::string markers(std::string_view css_class, std::string_view colour,
                      const std::vector<Point>& points) const;
  static std::string end();

 private:
  Layout layout_;
  Axis x_axis_;
  Axis y_axis_;
};

// Writes `text` (an SVG, or any text written beside one, such as a CSV) to
// `path`, replacing it. Empty on success, else why not.
std::string write_file(const std::filesystem::path& path, std::string_view text);

}  // namespace zk::svg

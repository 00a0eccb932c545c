// SPDX-License-Identifier: Apache-2.0
#include "libzk/svg/svg_plot.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace zk::svg {

namespace {

constexpr std::string_view kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                         "#ff7f0e", "#17becf", "#8c564b", "#7f7f7f"};

// The pixel width a legend entry takes: its line, a gap and its name (about
// 7 pixels a character at font size 12), but at least 90.
double legend_width(const std::string& name) {
  return std::max(90.0, 30 + 7.0 * static_cast<double>(name.size()) + 12);
}

}  // namespace

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string tick_label(double v) {
  char buf[32];
  if (std::fabs(v - std::round(v)) < 1e-9) {
    std::snprintf(buf, sizeof buf, "%.0f", std::round(v));
  } else {
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

double nice_step(double range, int ticks) {
  if (range <= 0) return 1;
  const double raw = range / ticks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

std::string text(double x, double y, std::string_view content, std::string_view extra) {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + std::string(extra) + ">" +
         escape(content) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, std::string_view extra) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
         num(y2) + "\"" + std::string(extra) + "/>\n";
}

std::string_view series_colour(size_t i) { return kPalette[i % std::size(kPalette)]; }

std::vector<double> Axis::ticks() const {
  std::vector<double> out;
  if (!log) {
    if (step <= 0) return {min};
    for (double v = min; v <= max + step / 2; v += step) out.push_back(v);
    return out;
  }
  const int first = static_cast<int>(std::floor(std::log10(min) + 1e-9));
  const int last = static_cast<int>(std::ceil(std::log10(max) - 1e-9));
  const bool fine = last - first <= 3;
  for (int e = first; e <= last; ++e) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (m > 1 && !fine) break;
      const double v = m * std::pow(10.0, e);
      if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)) out.push_back(v);
    }
  }
  return out;
}

double Axis::fraction(double v) const {
  if (!log) return (v - min) / (max - min);
  const double lo = std::log10(min);
  return (std::log10(std::max(v, min)) - lo) / (std::log10(max) - lo);
}

Axis Axis::linear(double min, double max, int ticks, std::string title) {
  Axis a;
  a.min = min;
  a.step = nice_step(max - min, ticks);
  a.max = min + a.step * std::ceil((max - min) / a.step);
  if (a.max <= min) a.max = min + a.step;
  a.title = std::move(title);
  return a;
}

Axis Axis::logarithmic(double min, double max, std::string title) {
  Axis a;
  a.log = true;
  if (min <= 0) min = 1;
  if (max <= 0) max = 1;
  a.min = std::pow(10.0, std::floor(std::log10(min) + 1e-9));
  a.max = std::pow(10.0, std::ceil(std::log10(max) - 1e-9));
  if (a.max <= a.min) a.max = a.min * 10;
  a.title = std::move(title);
  return a;
}

Plot::Plot(const Layout& layout, Axis x, Axis y)
    : layout_(layout), x_axis_(std::move(x)), y_axis_(std::move(y)) {}

double Plot::x(double v) const {
  if (!x_axis_.log) {
    return area_left() +
           (area_right() - area_left()) * (v - x_axis_.min) / (x_axis_.max - x_axis_.min);
  }
  return area_left() + (area_right() - area_left()) * x_axis_.fraction(v);
}

double Plot::y(double v) const {
  if (!y_axis_.log) {
    return area_bottom() -
           (area_bottom() - area_top()) * (v - y_axis_.min) / (y_axis_.max - y_axis_.min);
  }
  return area_bottom() - (area_bottom() - area_top()) * y_axis_.fraction(v);
}

std::string Plot::begin(std::string_view title) const {
  const std::string w = num(layout_.width), h = num(layout_.height);
  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + w + "\" height=\"" +
         h + "\" viewBox=\"0 0 " + w + " " + h +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect x=\"0\" y=\"0\" width=\"" + w + "\" height=\"" + h + "\" fill=\"white\"/>\n";
  svg += text(area_left(), 24, title, " font-size=\"15\" font-weight=\"bold\"");
  return svg;
}

std::string Plot::legend(const std::vector<LegendEntry>& entries, double baseline) const {
  double lx = area_right();
  for (const LegendEntry& e : entries) lx -= legend_width(e.name);
  std::string svg;
  for (const LegendEntry& e : entries) {
    svg += line(lx, baseline - 4, lx + 24, baseline - 4,
                " stroke=\"" + escape(e.colour) + "\" stroke-width=\"2\"");
    svg += text(lx + 30, baseline, e.name);
    lx += legend_width(e.name);
  }
  return svg;
}

std::string Plot::axes() const {
  const double left = area_left(), top = area_top(), right = area_right(), bottom = area_bottom();
  const std::vector<double> xs = x_axis_.ticks(), ys = y_axis_.ticks();
  std::string svg = "<g stroke=\"#e0e0e0\" stroke-width=\"1\">\n";
  for (size_t i = 1; y_axis_.grid && i < ys.size(); ++i)
    svg += line(left, y(ys[i]), right, y(ys[i]));
  for (size_t i = 1; x_axis_.grid && i < xs.size(); ++i)
    svg += line(x(xs[i]), top, x(xs[i]), bottom);
  svg += "</g>\n<g stroke=\"black\" stroke-width=\"1\">\n";
  svg += line(left, top, left, bottom);
  svg += line(left, bottom, right, bottom);
  for (double v : ys) svg += line(left - 5, y(v), left, y(v));
  for (double v : xs) svg += line(x(v), bottom, x(v), bottom + 5);
  svg += "</g>\n<g text-anchor=\"end\">\n";
  for (double v : ys) svg += text(left - 8, y(v) + 4, tick_label(v));
  svg += "</g>\n<g text-anchor=\"middle\">\n";
  for (double v : xs) svg += text(x(v), bottom + 19, tick_label(v));
  svg += text((left + right) / 2, layout_.height - 14, x_axis_.title);
  const std::string mid_y = num((top + bottom) / 2);
  svg += "<text x=\"22\" y=\"" + mid_y + "\" transform=\"rotate(-90 22 " + mid_y + ")\">" +
         escape(y_axis_.title) + "</text>\n";
  svg += "</g>\n";
  return svg;
}

std::string Plot::series(std::string_view css_class, std::string_view colour,
                         const std::vector<Point>& points) const {
  std::string svg = "<polyline class=\"" + escape(css_class) + "\" fill=\"none\" stroke=\"" +
                    escape(colour) + "\" stroke-width=\"1.5\" points=\"";
  bool first = true;
  for (const Point& p : points) {
    const double px = x(p.x), py = y(p.y);
    if (!std::isfinite(px) || !std::isfinite(py)) continue;
    svg += (first ? "" : " ") + num(px) + "," + num(py);
    first = false;
  }
  svg += "\"/>\n";
  return svg;
}

std::string Plot::markers(std::string_view css_class, std::string_view colour,
                          const std::vector<Point>& points) const {
  std::string svg = "<g class=\"" + escape(css_class) + "\" fill=\"" + escape(colour) + "\">\n";
  for (const Point& p : points) {
    const double px = x(p.x), py = y(p.y);
    if (!std::isfinite(px) || !std::isfinite(py)) continue;
    svg += "<circle cx=\"" + num(px) + "\" cy=\"" + num(py) + "\" r=\"3\"/>\n";
  }
  return svg + "</g>\n";
}

std::string Plot::end() { return "</svg>\n"; }

std::string write_file(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return "cannot write " + path.string() + ": " + std::strerror(errno);
  out << text;
  out.close();
  if (!out) return "cannot write " + path.string() + ": " + std::strerror(errno);
  return {};
}

}  // namespace zk::svg

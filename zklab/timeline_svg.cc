#include "zklab/timeline_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace zk::lab {

namespace {

// The plot area in pixels and the data ranges it shows (both from 0).
struct Frame {
  double left = 0, top = 0, right = 0, bottom = 0;
  double x_max = 1;  // seconds
  double y_max = 1;  // operations per second

  double x(double seconds) const { return left + (right - left) * seconds / x_max; }
  double y(double value) const { return bottom - (bottom - top) * value / y_max; }
};

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

const char* marker_colour(EventKind kind) {
  switch (kind) {
    case EventKind::kKill:
      return "#d62728";
    case EventKind::kNewLeader:
      return "#2ca02c";
    case EventKind::kRestart:
      return "#9467bd";
    case EventKind::kRejoin:
      return "#17becf";
    case EventKind::kRole:
      break;
  }
  return "#7f7f7f";
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// An axis label: integers without decimals, others as %g.
std::string tick_label(double v) {
  char buf[32];
  if (std::fabs(v - std::round(v)) < 1e-9) {
    std::snprintf(buf, sizeof buf, "%.0f", std::round(v));
  } else {
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

std::string escape(const std::string& text) {
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

// 1, 2 or 5 times a power of ten: the smallest such step that cuts `range`
// into at most `ticks` intervals.
double nice_step(double range, int ticks) {
  if (range <= 0) return 1;
  const double raw = range / ticks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

std::string text(double x, double y, const std::string& content, const char* extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + extra + ">" + escape(content) +
         "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const char* extra) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
         num(y2) + "\"" + extra + "/>\n";
}

}  // namespace

std::string timeline_svg(const Timeline& timeline, const SvgOptions& options) {
  const double width = std::max(options.width, 320);
  const double height = std::max(options.height, 240);
  const double bucket_s = std::chrono::duration<double>(timeline.bucket).count();
  const double per_s = bucket_s > 0 ? 1 / bucket_s : 0;

  Frame f;
  f.left = 80;
  f.top = 84;
  f.right = width - 30;
  f.bottom = height - 56;
  f.x_max = std::max(std::chrono::duration<double>(timeline.end()).count(), bucket_s);
  for (const auto& e : timeline.events) {
    if (e.kind != EventKind::kRole) {
      f.x_max = std::max(f.x_max, std::chrono::duration<double>(e.at).count());
    }
  }
  if (f.x_max <= 0) f.x_max = 1;
  double peak = 0;
  for (const auto& b : timeline.buckets) {
    peak = std::max(peak, static_cast<double>(b.reads + b.writes) * per_s);
  }
  const double y_step = nice_step(std::max(peak * 1.1, 1.0), 6);
  f.y_max = y_step * std::ceil(std::max(peak * 1.1, 1.0) / y_step);
  const double x_step = nice_step(f.x_max, 12);

  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + num(width) +
         "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " + num(height) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect x=\"0\" y=\"0\" width=\"" + num(width) + "\" height=\"" + num(height) +
         "\" fill=\"white\"/>\n";
  svg += text(f.left, 24, options.title, " font-size=\"15\" font-weight=\"bold\"");

  // Legend, right-aligned in the title row.
  double lx = f.right - 90.0 * static_cast<double>(std::size(kSeries));
  for (const auto& s : kSeries) {
    svg += line(lx, 20, lx + 24, 20,
                (std::string(" stroke=\"") + s.colour + "\" stroke-width=\"2\"").c_str());
    svg += text(lx + 30, 24, s.name);
    lx += 90;
  }

  // Grid and y axis ticks.
  svg += "<g stroke=\"#e0e0e0\" stroke-width=\"1\">\n";
  for (double v = y_step; v <= f.y_max + y_step / 2; v += y_step) {
    svg += line(f.left, f.y(v), f.right, f.y(v), "");
  }
  svg += "</g>\n<g stroke=\"black\" stroke-width=\"1\">\n";
  svg += line(f.left, f.top, f.left, f.bottom, "");
  svg += line(f.left, f.bottom, f.right, f.bottom, "");
  for (double v = 0; v <= f.y_max + y_step / 2; v += y_step) {
    svg += line(f.left - 5, f.y(v), f.left, f.y(v), "");
  }
  for (double t = 0; t <= f.x_max + x_step / 2; t += x_step) {
    svg += line(f.x(t), f.bottom, f.x(t), f.bottom + 5, "");
  }
  svg += "</g>\n<g text-anchor=\"end\">\n";
  for (double v = 0; v <= f.y_max + y_step / 2; v += y_step) {
    svg += text(f.left - 8, f.y(v) + 4, tick_label(v));
  }
  svg += "</g>\n<g text-anchor=\"middle\">\n";
  for (double t = 0; t <= f.x_max + x_step / 2; t += x_step) {
    svg += text(f.x(t), f.bottom + 19, tick_label(t));
  }
  svg += text((f.left + f.right) / 2, height - 14, "time (s)");
  const double mid_y = (f.top + f.bottom) / 2;
  svg += "<text x=\"22\" y=\"" + num(mid_y) + "\" transform=\"rotate(-90 22 " + num(mid_y) +
         ")\">operations per second</text>\n";
  svg += "</g>\n";

  // Markers: a dashed line each, labels above the plot in up to three rows
  // (a label goes in the first row where it does not run into the last one).
  std::vector<double> row_end(3, -1e9);
  for (const auto& e : timeline.events) {
    if (e.kind == EventKind::kRole) continue;
    const double x = f.x(std::chrono::duration<double>(e.at).count());
    const std::string label = describe(e);
    size_t row = 0;
    while (row + 1 < row_end.size() && row_end[row] > x) ++row;
    row_end[row] = x + 3 + 6.6 * static_cast<double>(label.size());
    const double label_y = 44 + 13 * static_cast<double>(row);
    const std::string colour = marker_colour(e.kind);
    svg +=
        line(x, label_y + 3, x, f.bottom,
             (" stroke=\"" + colour + "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"").c_str());
    svg += text(x + 3, label_y, label, (" fill=\"" + colour + "\"").c_str());
  }

  // The series.
  for (const auto& s : kSeries) {
    svg += "<polyline class=\"" + std::string(s.name) + "\" fill=\"none\" stroke=\"" + s.colour +
           "\" stroke-width=\"1.5\" points=\"";
    for (size_t i = 0; i < timeline.buckets.size(); ++i) {
      const double t = (static_cast<double>(i) + 0.5) * bucket_s;
      const double v = static_cast<double>(s.count(timeline.buckets[i])) * per_s;
      svg += (i == 0 ? "" : " ") + num(f.x(t)) + "," + num(f.y(v));
    }
    svg += "\"/>\n";
  }
  svg += "</svg>\n";
  return svg;
}

std::string write_timeline_svg(const std::filesystem::path& path, const Timeline& timeline,
                               const SvgOptions& options) {
  return write_text_file(path, timeline_svg(timeline, options));
}

}  // namespace zk::lab

// SPDX-License-Identifier: Apache-2.0
#include "zklab/load/timeline_csv.h"

#include <cstdio>
#include <map>
#include <set>

#include "libzk/svg/svg_plot.h"

namespace zk::lab {

namespace {

std::string field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string number(double value, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

}  // namespace

std::string timeline_csv(const Timeline& timeline) {
  std::set<int> nodes;
  for (const auto& e : timeline.events) {
    if (e.kind == EventKind::kRole) nodes.insert(e.node);
  }
  std::string out = "time_s,reads,writes,errors,reads_per_s,writes_per_s,total_per_s";
  for (int id : nodes) out += ",n" + std::to_string(id);
  out += ",error_codes,events\n";

  const std::chrono::microseconds width(timeline.bucket);
  const double per_s = width.count() > 0 ? 1e6 / static_cast<double>(width.count()) : 0;
  std::map<int, std::string> roles;
  size_t next = 0;  // the first event not yet written
  for (size_t i = 0; i < timeline.buckets.size(); ++i) {
    const LoadBucket& b = timeline.buckets[i];
    const bool last = i + 1 == timeline.buckets.size();
    const auto bucket_end = width * static_cast<int64_t>(i + 1);
    std::string events;
    for (; next < timeline.events.size() && (last || timeline.events[next].at < bucket_end);
         ++next) {
      const TimelineEvent& e = timeline.events[next];
      if (e.kind == EventKind::kRole) roles[e.node] = e.role;
      events += (events.empty() ? "" : "; ") + describe(e);
    }
    std::string codes;
    for (const auto& [code, count] : b.errors) {
      codes += (codes.empty() ? "" : "; ") + std::string(zk::wire::error_name(code)) + " " +
               std::to_string(count);
    }
    const double seconds = std::chrono::duration<double>(width * static_cast<int64_t>(i)).count();
    out += number(seconds, "%.3f") + "," + std::to_string(b.reads) + "," +
           std::to_string(b.writes) + "," + std::to_string(b.error_count()) + "," +
           number(static_cast<double>(b.reads) * per_s, "%.0f") + "," +
           number(static_cast<double>(b.writes) * per_s, "%.0f") + "," +
           number(static_cast<double>(b.reads + b.writes) * per_s, "%.0f");
    for (int id : nodes) out += "," + field(roles.count(id) ? roles[id] : "");
    out += "," + field(codes) + "," + field(events) + "\n";
  }
  return out;
}

std::string write_timeline_csv(const std::filesystem::path& path, const Timeline& timeline) {
  return zk::svg::write_file(path, timeline_csv(timeline));
}

}  // namespace zk::lab

// SPDX-License-Identifier: Apache-2.0
// The timeline of zklab/timeline.h on a made-up experiment, its CSV and SVG
// writers, and the role watcher driven by a scripted poll.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "zklab/load/role_watcher.h"
#include "zklab/load/timeline.h"
#include "zklab/load/timeline_csv.h"
#include "zklab/load/timeline_svg.h"

namespace zk::lab {
namespace {

using namespace std::chrono_literals;
using zk::wire::Error;

std::chrono::microseconds at_ms(int ms) { return std::chrono::milliseconds(ms); }

// 20 buckets of 100 ms: 5 reads and 10 writes each, except 5..7 where only
// connection losses complete; node 1 leads, is killed at 0.5 s, node 2 leads
// from 0.8 s, node 1 is restarted at 1.2 s and follows from 1.5 s.
Timeline made_up() {
  Timeline t;
  t.bucket = 100ms;
  for (int i = 0; i < 20; ++i) {
    LoadBucket b;
    if (i >= 5 && i <= 7) {
      b.errors[Error::kConnectionLoss] = 2;
    } else {
      b.reads = 5;
      b.writes = 10;
    }
    t.buckets.push_back(b);
  }
  t.add({at_ms(1500), EventKind::kRole, 1, "follower"});  // out of order on purpose
  t.add({at_ms(3), EventKind::kRole, 1, "leader"});
  t.add({at_ms(3), EventKind::kRole, 2, "follower"});
  t.add({at_ms(500), EventKind::kKill, 1, ""});
  t.add({at_ms(520), EventKind::kRole, 1, "down"});
  t.add({at_ms(800), EventKind::kRole, 2, "leader"});
  t.add({at_ms(800), EventKind::kNewLeader, 2, ""});
  t.add({at_ms(1200), EventKind::kRestart, 1, ""});
  t.add({at_ms(1250), EventKind::kRole, 1, "not serving"});
  t.add({at_ms(1500), EventKind::kRejoin, 1, "follower"});
  return t;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Timeline, EventsStayInTimeOrderAndAreFound) {
  const Timeline t = made_up();
  for (size_t i = 1; i < t.events.size(); ++i) EXPECT_LE(t.events[i - 1].at, t.events[i].at);
  EXPECT_EQ(t.end(), at_ms(2000));

  const auto is_leader = [](std::string_view role) { return role == "leader"; };
  const TimelineEvent* leader = t.first(EventKind::kRole, at_ms(500), 0, +is_leader);
  ASSERT_NE(leader, nullptr);
  EXPECT_EQ(leader->node, 2);
  EXPECT_EQ(leader->at, at_ms(800));
  const TimelineEvent* back = t.first(EventKind::kRole, at_ms(1200), 1, role_serves);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->role, "follower");
  EXPECT_EQ(t.first(EventKind::kKill, at_ms(501)), nullptr);

  EXPECT_TRUE(role_serves("leader"));
  EXPECT_TRUE(role_serves("observer"));
  EXPECT_FALSE(role_serves("not serving"));
  EXPECT_FALSE(role_serves("down"));
  EXPECT_EQ(describe(t.events[2]), "kill node 1");
  EXPECT_EQ(describe(*back), "node 1 follower");
}

TEST(Timeline, RatesCountWholeBucketsOnly) {
  const Timeline t = made_up();
  const Rates before = t.rates(at_ms(0), at_ms(500));
  EXPECT_DOUBLE_EQ(before.seconds, 0.5);
  EXPECT_DOUBLE_EQ(before.writes_per_s, 100);
  EXPECT_DOUBLE_EQ(before.reads_per_s, 50);
  // [0.45 s, 0.95 s) holds the whole buckets 5..8: one of them with requests.
  const Rates across = t.rates(at_ms(450), at_ms(950));
  EXPECT_DOUBLE_EQ(across.seconds, 0.4);
  EXPECT_DOUBLE_EQ(across.writes_per_s, 25);
  EXPECT_EQ(t.rates(at_ms(1950), at_ms(2000)).seconds, 0);  // no whole bucket
  EXPECT_EQ(t.rates(at_ms(1900), at_ms(5000)).seconds, 0.1);
  const LoadBucket totals = t.totals();
  EXPECT_EQ(totals.writes, 170);
  EXPECT_EQ(totals.reads, 85);
  EXPECT_EQ(totals.error_count(), 6);
}

TEST(TimelineCsv, OneRowPerBucketWithRolesErrorsAndEvents) {
  const auto rows = lines(timeline_csv(made_up()));
  ASSERT_EQ(rows.size(), 21u);
  EXPECT_EQ(rows[0],
            "time_s,reads,writes,errors,reads_per_s,writes_per_s,total_per_s,n1,n2,error_codes,"
            "events");
  EXPECT_EQ(rows[1], "0.000,5,10,0,50,100,150,leader,follower,,node 1 leader; node 2 follower");
  EXPECT_EQ(rows[2], "0.100,5,10,0,50,100,150,leader,follower,,");
  EXPECT_EQ(rows[6], "0.500,0,0,2,0,0,0,down,follower,CONNECTIONLOSS 2,kill node 1; node 1 down");
  EXPECT_EQ(rows[9], "0.800,5,10,0,50,100,150,down,leader,,node 2 leader; new leader node 2");
  EXPECT_EQ(rows[16],
            "1.500,5,10,0,50,100,150,follower,leader,,node 1 follower; rejoin node 1 (follower)");
  EXPECT_EQ(rows[20], "1.900,5,10,0,50,100,150,follower,leader,,");
}

TEST(TimelineCsv, QuotesFieldsWithCommasAndPutsLateEventsInTheLastRow) {
  Timeline t;
  t.buckets.resize(2);
  t.add({at_ms(50), EventKind::kRole, 1, "odd, \"role\""});
  t.add({at_ms(900), EventKind::kKill, 1, ""});
  const auto rows = lines(timeline_csv(t));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1], "0.000,0,0,0,0,0,0,\"odd, \"\"role\"\"\",,\"node 1 odd, \"\"role\"\"\"");
  EXPECT_EQ(rows[2], "0.100,0,0,0,0,0,0,\"odd, \"\"role\"\"\",,kill node 1");
}

TEST(TimelineSvg, PlotsThreeSeriesMarkersAxesAndLegend) {
  SvgOptions options;
  options.title = "failover <3 nodes> & load";
  const std::string svg = timeline_svg(made_up(), options);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_NE(svg.find("failover &lt;3 nodes&gt; &amp; load"), std::string::npos);
  EXPECT_EQ(svg.find("<3"), std::string::npos);

  // Three polylines of one point per bucket.
  std::regex polyline("<polyline class=\"(\\w+)\"[^>]*points=\"([^\"]*)\"");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), polyline);
       it != std::sregex_iterator(); ++it) {
    names.push_back((*it)[1].str());
    EXPECT_EQ(count((*it)[2].str(), ","), 20u) << (*it)[1].str();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"total", "writes", "reads"}));

  for (const char* label :
       {"kill node 1", "new leader node 2", "restart node 1", "rejoin node 1 (follower)",
        "time (s)", "operations per second", ">total<", ">writes<", ">reads<"}) {
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  }
  EXPECT_EQ(count(svg, "stroke-dasharray"), 4u);  // one line per marker, none for roles
  EXPECT_EQ(count(svg, "<text"), count(svg, "</text>"));
  // Ticks on the time axis every 0.2 s up to 2.
  EXPECT_NE(svg.find(">0.2</text>"), std::string::npos);
  EXPECT_NE(svg.find(">2</text>"), std::string::npos);
}

// A text element's box, from its x, its baseline and its length: `px` per
// character (15-pixel bold title: 9.5; 12-pixel text: 7.2, generous), 14
// pixels tall above the baseline.
struct TextBox {
  double left, right, top, bottom;
  std::string text;
};

bool overlap(const TextBox& a, const TextBox& b) {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

TEST(TimelineSvg, TitleLegendAndMarkerLabelsKeepApartHoweverLongTheTitle) {
  SvgOptions options;
  options.title =
      "zklab failover --fault isolate: the leader of a 3-node lab cut off under 1000 ops/s";
  const std::string svg = timeline_svg(made_up(), options);
  // Every <text> above the plot area (the title, the legend, marker labels).
  std::regex text_element("<text x=\"([0-9.]+)\" y=\"([0-9.]+)\"([^>]*)>([^<]*)</text>");
  std::vector<TextBox> boxes;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text_element);
       it != std::sregex_iterator(); ++it) {
    const double x = std::stod((*it)[1].str());
    const double y = std::stod((*it)[2].str());
    if (y > 100) continue;  // in or below the plot area
    const bool title = (*it)[3].str().find("font-weight=\"bold\"") != std::string::npos;
    const std::string content = (*it)[4].str();
    const double width = (title ? 9.5 : 7.2) * static_cast<double>(content.size());
    boxes.push_back({x, x + width, y - 14, y, content});
  }
  ASSERT_GE(boxes.size(), 5u);  // the title, three legend names, a marker label
  for (size_t i = 0; i < boxes.size(); ++i) {
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      EXPECT_FALSE(overlap(boxes[i], boxes[j])) << boxes[i].text << " | " << boxes[j].text;
    }
  }
}

TEST(TimelineSvg, AMarkedEventsLabelStartsWithItsMark) {
  Timeline t = made_up();
  TimelineEvent e{at_ms(900), EventKind::kKill, 2, ""};
  e.mark = "4a";
  t.add(e);
  const std::string svg = timeline_svg(t);
  EXPECT_NE(svg.find(">4a: kill node 2</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">kill node 1</text>"), std::string::npos);  // unmarked as before
}

TEST(TimelineSvg, AnEmptyTimelineIsStillAPlot) {
  const std::string svg = timeline_svg(Timeline{});
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 3u);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
}

TEST(RoleWatcher, RecordsEachChangeOnce) {
  std::atomic<int> polls{0};
  RoleWatcher::Poll poll = [&polls] {
    const int n = ++polls;
    if (n <= 3) return RoleWatcher::Roles{{1, "leader"}, {2, "follower"}};
    return RoleWatcher::Roles{{1, "down"}, {2, "leader"}};
  };
  const auto origin = std::chrono::steady_clock::now();
  RoleWatcher watcher(poll, origin, 1ms);
  EXPECT_TRUE(watcher.wait_until(
      [](const RoleWatcher::Roles& r) { return r.count(2) != 0 && r.at(2) == "leader"; },
      std::chrono::steady_clock::now() + 20s));
  watcher.stop();
  const auto events = watcher.events();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(describe(events[0]), "node 1 leader");
  EXPECT_EQ(describe(events[1]), "node 2 follower");
  EXPECT_EQ(describe(events[2]), "node 1 down");
  EXPECT_EQ(describe(events[3]), "node 2 leader");
  EXPECT_LT(events[1].at, events[2].at);
  EXPECT_EQ(watcher.roles().at(1), "down");
}

}  // namespace
}  // namespace zk::lab

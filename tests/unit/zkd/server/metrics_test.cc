// SPDX-License-Identifier: Apache-2.0
// Apache's metrics as zkd lists them (zkd/view/metrics.h): names, types and
// detail levels as Apache 3.8 registers them, the summaries' figures and
// quantiles, and how mntr (monitor_texts) and Prometheus print them.
#include "zkd/view/metrics.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <variant>

#include "zkd/admin/prometheus_text.h"
#include "zkd/view/summary.h"

namespace zkd::server {
namespace {

TEST(Summary, KeepsCountSumMinMaxAndQuantilesWithinASixteenth) {
  Summary s;
  EXPECT_EQ(s.quantile(0.5), 0);
  for (int64_t v = 1; v <= 1000; ++v) s.record(v);
  EXPECT_EQ(s.count(), 1000);
  EXPECT_EQ(s.sum(), 500500);
  EXPECT_EQ(s.min(), 1);
  EXPECT_EQ(s.max(), 1000);
  EXPECT_DOUBLE_EQ(s.average(), 500.5);
  for (double q : {0.5, 0.9, 0.95, 0.99, 0.999}) {
    const double exact = q * 1000;
    EXPECT_NEAR(static_cast<double>(s.quantile(q)), exact, exact / 16 + 1) << q;
  }
  EXPECT_EQ(s.quantile(1.0), 1000);
  s.record(-5);  // a clock going back counts as 0
  EXPECT_EQ(s.min(), 0);
}

TEST(Summary, SmallValuesAreExact) {
  Summary s;
  for (int i = 0; i < 90; ++i) s.record(0);
  for (int i = 0; i < 10; ++i) s.record(7);
  EXPECT_EQ(s.quantile(0.5), 0);
  EXPECT_EQ(s.quantile(0.95), 7);
}

std::map<std::string, MonitorEntry> by_name(const std::vector<MonitorEntry>& entries) {
  std::map<std::string, MonitorEntry> out;
  for (const auto& e : entries) out.emplace(e.label.empty() ? e.key : e.label + "_" + e.key, e);
  return out;
}

TEST(Metrics, NamesAreUniqueAndTypedAsApacheRegistersThem) {
  Metrics m;
  m.read_per_namespace.record("w", 10);
  std::vector<MonitorEntry> entries;
  append_metrics(m, entries);
  const auto named = by_name(entries);
  EXPECT_EQ(named.size(), entries.size()) << "a name listed twice";
  // Counters (ServerMetrics' getCounter).
  for (const char* name :
       {"proposal_count", "commit_count", "bytes_received_count", "response_bytes", "watch_bytes",
        "stale_sessions_expired", "sync_processor_request_queued", "connection_rejected"}) {
    ASSERT_TRUE(named.count(name)) << name;
    EXPECT_EQ(named.at(name).type, MetricType::kCounter) << name;
    EXPECT_TRUE(std::holds_alternative<int64_t>(named.at(name).value)) << name;
  }
  // Summaries, with Apache's detail level.
  const std::map<std::string, bool> summaries = {{"readlatency", true},
                                                 {"updatelatency", true},
                                                 {"quorum_ack_latency", true},
                                                 {"sync_processor_queue_time_ms", true},
                                                 {"fsynctime", false},
                                                 {"election_time", false},
                                                 {"sync_processor_batch_size", false},
                                                 {"node_changed_watch_count", false}};
  for (const auto& [name, advanced] : summaries) {
    ASSERT_TRUE(named.count(name)) << name;
    const auto* f = std::get_if<SummaryFigures>(&named.at(name).value);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->advanced, advanced) << name;
  }
  // A summary set's member carries its namespace as a label.
  ASSERT_TRUE(named.count("w_read_per_namespace"));
  EXPECT_EQ(named.at("w_read_per_namespace").label, "w");
  // Gauges.
  EXPECT_EQ(std::get<int64_t>(named.at("last_client_response_size").value), -1);
  EXPECT_EQ(named.at("outstanding_tls_handshake").type, MetricType::kGauge);
}

TEST(Metrics, ResetClearsCountersAndSummariesButNotWhatIsUnderWay) {
  Metrics m;
  m.proposal_count = 3;
  m.readlatency.record(5);
  m.client_response_size.record(16);
  m.outstanding_tls_handshake = 2;
  m.non_mtls_local_conn_count = 4;
  m.leading_since_ms = 1000;
  reset_metrics(m);
  EXPECT_EQ(m.proposal_count, 0u);
  EXPECT_EQ(m.readlatency.count(), 0);
  EXPECT_EQ(m.client_response_size.last, -1);
  EXPECT_EQ(m.outstanding_tls_handshake, 2);
  EXPECT_EQ(m.non_mtls_local_conn_count, 4);
  EXPECT_EQ(m.leading_since_ms, 1000);
}

TEST(Metrics, TopNamespaceIsTheFirstPathComponent) {
  EXPECT_EQ(top_namespace("/w/n1"), "w");
  EXPECT_EQ(top_namespace("/w"), "w");
  EXPECT_EQ(top_namespace("/"), "");
  EXPECT_EQ(top_namespace(""), "");
}

TEST(MonitorTexts, AdvancedSummariesAddQuantilesAndSetsTheirKey) {
  Summary s;
  for (int v = 1; v <= 100; ++v) s.record(v);
  std::vector<MonitorEntry> entries = {
      {"readlatency", summary_figures(s, /*advanced=*/true)},
      {"fsynctime", summary_figures(s, /*advanced=*/false)},
      {"read_per_namespace", summary_figures(s, false), MetricType::kGauge, "w"}};
  std::map<std::string, std::string> texts;
  for (auto& [k, v] : monitor_texts(entries)) texts[k] = v;
  for (const char* key :
       {"avg_readlatency", "min_readlatency", "max_readlatency", "cnt_readlatency",
        "sum_readlatency", "p50_readlatency", "p95_readlatency", "p99_readlatency",
        "p999_readlatency", "avg_fsynctime", "cnt_w_read_per_namespace"}) {
    EXPECT_TRUE(texts.count(key)) << key;
  }
  EXPECT_FALSE(texts.count("p50_fsynctime"));
  EXPECT_EQ(texts["cnt_readlatency"], "100");
  EXPECT_EQ(texts["avg_readlatency"], "50.5");
}

TEST(PrometheusText, TypesQuantilesAndLabelsAsApachesProvider) {
  Summary s;
  for (int v = 1; v <= 10; ++v) s.record(v);
  std::vector<MonitorEntry> entries = {
      {"version", std::string("3.8.0")},
      {"proposal_count", int64_t{3}, MetricType::kCounter},
      {"znode_count", int64_t{5}},
      {"readlatency", summary_figures(s, true)},
      {"fsynctime", summary_figures(s, false)},
      {"read_per_namespace", summary_figures(s, false), MetricType::kGauge, "a"},
      {"read_per_namespace", summary_figures(s, false), MetricType::kGauge, "b"}};
  const std::string text = admin::prometheus_text(entries);
  EXPECT_EQ(text.find("version"), std::string::npos);
  EXPECT_NE(text.find("# TYPE proposal_count counter\nproposal_count 3.0\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE znode_count gauge\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE readlatency summary\nreadlatency{quantile=\"0.5\",} 5.0\n"
                      "readlatency{quantile=\"0.9\",} 9.0\nreadlatency{quantile=\"0.99\",} 10.0\n"
                      "readlatency_count 10.0\nreadlatency_sum 55.0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fsynctime{quantile=\"0.5\",} 5.0\nfsynctime_count 10.0\n"),
            std::string::npos);
  EXPECT_EQ(text.find("fsynctime{quantile=\"0.9\""), std::string::npos);
  // One family for the set, a labelled series per namespace.
  EXPECT_NE(text.find("read_per_namespace{key=\"a\",quantile=\"0.5\",} 5.0\n"), std::string::npos);
  EXPECT_NE(text.find("read_per_namespace_count{key=\"b\",} 10.0\n"), std::string::npos);
  size_t families = 0;
  for (size_t at = 0; (at = text.find("# TYPE read_per_namespace ", at)) != std::string::npos;
       ++at) {
    ++families;
  }
  EXPECT_EQ(families, 1u);
}

}  // namespace
}  // namespace zkd::server

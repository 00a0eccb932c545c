// SPDX-License-Identifier: Apache-2.0
// The monitor figures (the ones mntr prints) in the Prometheus text
// exposition format 0.0.4, as Apache's PrometheusMetricsProvider serves them
// on /metrics: per metric a `# HELP <name> <name>` line, a `# TYPE` line and
// its samples. Integers and doubles are gauges named as Apache registers
// them (znode_count, watch_count, avg_latency, ...); a summary such as
// fsynctime is a Prometheus summary with <name>_count and <name>_sum (zkd
// keeps no quantiles). Texts (version, server_state) are not metrics and are
// left out. Values print as Java's Double.toString does ("5.0").
#pragma once

#include <string>
#include <vector>

#include "zkd/view/four_letter_format.h"

namespace zkd::admin {

// The Content-Type of the text.
inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string prometheus_text(const std::vector<server::MonitorEntry>& entries);

}  // namespace zkd::admin

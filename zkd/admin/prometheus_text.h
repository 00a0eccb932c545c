// SPDX-License-Identifier: Apache-2.0
// The monitor figures (the ones mntr prints) in the Prometheus text
// exposition format 0.0.4, as Apache's PrometheusMetricsProvider (on
// simpleclient 0.9) serves them on /metrics: per metric a
// `# HELP <name> <name>` line, a `# TYPE` line and its samples. Counters and
// gauges are typed as Apache registers them; a summary has Apache's
// quantiles (0.5, and 0.9 and 0.99 when advanced: <name>{quantile="0.5",}),
// <name>_count and <name>_sum, over all samples since the start (Apache's
// quantiles cover the last ten minutes). A summary set's members share one
// block, told apart by the label key="<namespace>". Texts (version,
// server_state) are not metrics and are left out. Values print as Java's
// Double.toString does ("5.0").
#pragma once

#include <string>
#include <vector>

#include "zkd/view/four_letter_format.h"

namespace zkd::admin {

// The Content-Type of the text.
inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string prometheus_text(const std::vector<server::MonitorEntry>& entries);

}  // namespace zkd::admin

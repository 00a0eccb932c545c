// SPDX-License-Identifier: Apache-2.0
// The timeline (timeline.h) as an SVG plot in the manner of Figure 8 of the
// ZooKeeper paper (Hunt et al., 2010, throughput upon failures): operations
// per second over time in seconds, as three polylines (total, writes, reads;
// one point per bucket, at its middle), with a vertical dashed line and a
// label for every event other than a role change (kill, new leader, restart,
// rejoin), axes with ticks and labels, a title and a legend: the house style
// of zk::svg (libzk/svg/svg_plot.h). A standalone SVG 1.1 document that
// browsers display as is.
#pragma once

#include <filesystem>
#include <string>

#include "zklab/load/timeline.h"

namespace zk::lab {

struct SvgOptions {
  std::string title = "Throughput";
  int width = 960;   // pixels
  int height = 480;  // pixels
};

std::string timeline_svg(const Timeline& timeline, const SvgOptions& options = {});

// Writes timeline_svg(timeline, options) to `path`. Empty on success, else why not.
std::string write_timeline_svg(const std::filesystem::path& path, const Timeline& timeline,
                               const SvgOptions& options = {});

}  // namespace zk::lab

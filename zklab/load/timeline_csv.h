// SPDX-License-Identifier: Apache-2.0
// The timeline (timeline.h) as CSV: a header, then one row per bucket.
//   time_s        the start of the bucket, in seconds from the origin
//   reads,writes  successful requests completed in the bucket
//   errors        failed requests completed in the bucket
//   reads_per_s, writes_per_s, total_per_s   the same as rates
//   n<id>...      one column per node that has role events: its role at the
//                 end of the bucket (empty before the first event)
//   error_codes   "CONNECTIONLOSS 3; SESSIONEXPIRED 1" (error_name of each code)
//   events        every event in the bucket, "kill node 1; node 2 leader"
// Events after the last bucket go in its row. Fields holding a comma or a
// quote are quoted (RFC 4180).
#pragma once

#include <filesystem>
#include <string>

#include "zklab/load/timeline.h"

namespace zk::lab {

std::string timeline_csv(const Timeline& timeline);

// Writes timeline_csv(timeline) to `path`. Empty on success, else why not.
std::string write_timeline_csv(const std::filesystem::path& path, const Timeline& timeline);

}  // namespace zk::lab

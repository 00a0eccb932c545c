// SPDX-License-Identifier: Apache-2.0
// Quotas as nodes (Apache's Quotas and StatsTrack): a quota on /a/b is the
// node /zookeeper/quota/a/b/zookeeper_limits (its limits) next to
// /zookeeper/quota/a/b/zookeeper_stats (its usage, kept by the server). Both
// hold StatsTrack text. zkCli's setquota/listquota/delquota write and read
// these nodes with ordinary requests, so the layout is part of the protocol.
//
// The text a quota's zookeeper_limits and zookeeper_stats nodes hold (Apache's
// StatsTrack): "key=long" pairs separated by runs of ',' or ';', written as
//   count=<n>,bytes=<n>[=;<key>=<n>;<key>=<n>...]
// count and bytes first, any other keys (3.7+: countHardLimit, byteHardLimit)
// after a spurious '=' in sorted order, so that 3.4-era parsers still read the
// first two. A key that is absent reads as -1 ("no limit" in a limits node).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace zk::wire {

inline constexpr std::string_view kQuotaRoot = "/zookeeper/quota";
inline constexpr std::string_view kQuotaLimitNode = "zookeeper_limits";
inline constexpr std::string_view kQuotaStatNode = "zookeeper_stats";

// "/zookeeper/quota" + path + "/zookeeper_limits" (Quotas.limitPath).
std::string quota_limit_path(std::string_view path);
// "/zookeeper/quota" + path + "/zookeeper_stats" (Quotas.statPath).
std::string quota_stat_path(std::string_view path);

class StatsTrack {
 public:
  static constexpr std::string_view kCount = "count";
  static constexpr std::string_view kBytes = "bytes";
  static constexpr std::string_view kCountHardLimit = "countHardLimit";
  static constexpr std::string_view kByteHardLimit = "byteHardLimit";

  StatsTrack() = default;
  // Apache's StatsTrack(String): empty text gives no keys; a later duplicate
  // key wins; "key==" style empty values read as -1. nullopt where Apache's
  // parser throws: a pair without '=' and a value, a value that is not a
  // Java long.
  static std::optional<StatsTrack> parse(std::string_view text);

  // The value of `key`, -1 when absent.
  int64_t get(std::string_view key) const;
  void set(std::string_view key, int64_t value);

  int64_t count() const { return get(kCount); }
  int64_t bytes() const { return get(kBytes); }
  int64_t count_hard_limit() const { return get(kCountHardLimit); }
  int64_t byte_hard_limit() const { return get(kByteHardLimit); }

  // Apache's StatsTrack.toString (format above).
  std::string to_string() const;

 private:
  std::map<std::string, int64_t, std::less<>> values_;
};

}  // namespace zk::wire

// SPDX-License-Identifier: Apache-2.0
#include "zkctl/quota_requests.h"

#include <array>
#include <string_view>

#include "libzk/wire/quota_nodes.h"

namespace zkctl {

using zk::wire::Error;
using zk::wire::StatsTrack;

namespace {

constexpr std::array<std::string_view, 4> kLimitKeys = {StatsTrack::kCount, StatsTrack::kBytes,
                                                        StatsTrack::kCountHardLimit,
                                                        StatsTrack::kByteHardLimit};

std::string_view key_of(QuotaLimit limit) { return kLimitKeys[static_cast<size_t>(limit)]; }

// The quota's directory: /zookeeper/quota + PATH.
std::string quota_dir(const std::string& path) { return std::string(zk::wire::kQuotaRoot) + path; }

CommandFailure failure(ExitCode code, std::string name, std::string path, std::string message) {
  CommandFailure f;
  f.exit_code = code;
  f.name = std::move(name);
  f.path = std::move(path);
  f.message = std::move(message);
  return f;
}

CommandFailure no_quota(const std::string& path) {
  return failure(ExitCode::kNoNode, "NO_QUOTA", path, "no quota on this node");
}

// The StatsTrack held by `node`; NO_QUOTA when it is missing, BAD_QUOTA when
// its text does not parse.
std::variant<StatsTrack, CommandFailure> read_track(zk::client::SyncClient& zk,
                                                    const std::string& node,
                                                    const std::string& path) {
  auto data = zk.get_data(node);
  if (!data) {
    if (data.error() == Error::kNoNode) return no_quota(path);
    return failure_from_zk(data.error(), node);
  }
  auto track = StatsTrack::parse(data->data.value_or(""));
  if (!track) return failure(ExitCode::kError, "BAD_QUOTA", node, "quota text does not parse");
  return *track;
}

// A descendant of PATH with a quota of its own (zkCli's checkIfChildQuota).
std::optional<CommandFailure> child_quota(zk::client::SyncClient& zk, const std::string& path,
                                          const std::string& dir) {
  auto children = zk.get_children(dir);
  if (!children) {
    if (children.error() == Error::kNoNode) return std::nullopt;
    return failure_from_zk(children.error(), dir);
  }
  for (const std::string& name : *children) {
    if (name == zk::wire::kQuotaLimitNode && dir != quota_dir(path)) {
      return failure(
          ExitCode::kError, "QUOTA_CONFLICT", path,
          "has a child " + dir.substr(zk::wire::kQuotaRoot.size()) + " which has a quota");
    }
    if (name == zk::wire::kQuotaLimitNode || name == zk::wire::kQuotaStatNode) continue;
    if (auto f = child_quota(zk, path, dir + "/" + name)) return f;
  }
  return std::nullopt;
}

// An ancestor of PATH with a quota (zkCli's checkIfParentQuota).
std::optional<CommandFailure> parent_quota(zk::client::SyncClient& zk, const std::string& path) {
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string ancestor = path.substr(0, slash);
    auto children = zk.get_children(quota_dir(ancestor));
    if (!children) {
      if (children.error() == Error::kNoNode) return std::nullopt;
      return failure_from_zk(children.error(), quota_dir(ancestor));
    }
    for (const std::string& name : *children) {
      if (name == zk::wire::kQuotaLimitNode) {
        return failure(ExitCode::kError, "QUOTA_CONFLICT", path,
                       "has a parent " + ancestor + " which has a quota");
      }
    }
  }
  return std::nullopt;
}

// Creates `node` (null data) unless it exists.
std::optional<CommandFailure> ensure_node(zk::client::SyncClient& zk, const std::string& node) {
  auto created = zk.create(node, std::nullopt);
  if (created || created.error() == Error::kNodeExists) return std::nullopt;
  return failure_from_zk(created.error(), node);
}

}  // namespace

std::variant<DoneResult, CommandFailure> set_quota(zk::client::SyncClient& zk,
                                                   const SetQuotaCommand& c) {
  if (c.path.starts_with(zk::wire::kQuotaRoot)) {
    return failure(ExitCode::kUsage, "USAGE", c.path,
                   "cannot set a quota under " + std::string(zk::wire::kQuotaRoot));
  }
  auto exists = zk.exists(c.path);
  if (!exists) return failure_from_zk(exists.error(), c.path);
  if (!exists->has_value()) return failure_from_zk(Error::kNoNode, c.path);
  if (auto f = child_quota(zk, c.path, quota_dir(c.path))) return *f;
  if (auto f = parent_quota(zk, c.path)) return *f;

  // The quota root and a directory per component of PATH.
  if (auto f = ensure_node(zk, std::string(zk::wire::kQuotaRoot))) return *f;
  for (size_t slash = c.path.find('/', 1);; slash = c.path.find('/', slash + 1)) {
    if (auto f = ensure_node(zk, quota_dir(c.path.substr(0, slash)))) return *f;
    if (slash == std::string::npos) break;
  }
  const std::string limits_node = zk::wire::quota_limit_path(c.path);
  auto current = read_track(zk, limits_node, c.path);
  if (auto* f = std::get_if<CommandFailure>(&current); f != nullptr && f->name != "NO_QUOTA") {
    return *f;
  }
  if (auto* track = std::get_if<StatsTrack>(&current)) {
    track->set(key_of(c.limit), c.value);
    auto set = zk.set_data(limits_node, track->to_string());
    if (!set) return failure_from_zk(set.error(), limits_node);
    return DoneResult{"setquota", c.path};
  }
  StatsTrack limits;
  for (std::string_view key : kLimitKeys) limits.set(key, -1);
  limits.set(key_of(c.limit), c.value);
  auto created = zk.create(limits_node, limits.to_string());
  if (!created) return failure_from_zk(created.error(), limits_node);
  StatsTrack usage;  // recounted by the server once this node exists
  usage.set(StatsTrack::kCount, 0);
  usage.set(StatsTrack::kBytes, 0);
  const std::string stats_node = zk::wire::quota_stat_path(c.path);
  created = zk.create(stats_node, usage.to_string());
  if (!created) return failure_from_zk(created.error(), stats_node);
  return DoneResult{"setquota", c.path};
}

std::variant<QuotaResult, CommandFailure> list_quota(zk::client::SyncClient& zk,
                                                     const ListQuotaCommand& c) {
  auto limits = read_track(zk, zk::wire::quota_limit_path(c.path), c.path);
  if (auto* f = std::get_if<CommandFailure>(&limits)) return *f;
  auto usage = read_track(zk, zk::wire::quota_stat_path(c.path), c.path);
  if (auto* f = std::get_if<CommandFailure>(&usage)) return *f;
  QuotaResult r{c.path, {}, {}};
  for (std::string_view key : kLimitKeys) {
    r.limits.emplace_back(key, std::get<StatsTrack>(limits).get(key));
  }
  for (std::string_view key : {StatsTrack::kCount, StatsTrack::kBytes}) {
    r.usage.emplace_back(key, std::get<StatsTrack>(usage).get(key));
  }
  return r;
}

std::variant<DoneResult, CommandFailure> del_quota(zk::client::SyncClient& zk,
                                                   const DelQuotaCommand& c) {
  const std::string limits_node = zk::wire::quota_limit_path(c.path);
  auto limits = read_track(zk, limits_node, c.path);
  if (auto* f = std::get_if<CommandFailure>(&limits)) return *f;
  if (c.limit) {
    std::get<StatsTrack>(limits).set(key_of(*c.limit), -1);
    auto set = zk.set_data(limits_node, std::get<StatsTrack>(limits).to_string());
    if (!set) return failure_from_zk(set.error(), limits_node);
    return DoneResult{"delquota", c.path};
  }
  std::string dir = quota_dir(c.path);
  auto children = zk.get_children(dir);
  if (!children) return failure_from_zk(children.error(), dir);
  for (const std::string& name : *children) {
    auto removed = zk.remove(dir + "/" + name);
    if (!removed && removed.error() != Error::kNoNode) {
      return failure_from_zk(removed.error(), dir + "/" + name);
    }
  }
  // The directories left empty, up to the quota root (zkCli's trimProcQuotas).
  while (dir != zk::wire::kQuotaRoot) {
    auto left = zk.get_children(dir);
    if (!left || !left->empty()) break;
    if (!zk.remove(dir)) break;
    dir.erase(dir.rfind('/'));
  }
  return DoneResult{"delquota", c.path};
}

}  // namespace zkctl

// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/quota_tracker.h"

#include <optional>

#include "zkd/tree/data_tree.h"
#include "zkd/tree/quota_paths.h"

namespace zkd::tree {
namespace {

constexpr std::string_view kProcRoot = "/zookeeper";

std::string_view child_name(std::string_view path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

void QuotaTracker::created(DataTree& tree, std::string_view path, int64_t data_length) {
  std::string_view parent = apache_parent(path);
  if (parent.starts_with(kQuotaRoot)) {
    std::string_view quota_path = parent.substr(kQuotaRoot.size());
    std::string_view name = child_name(path);
    if (name == kQuotaLimitNode) paths_.add(quota_path);
    if (name == kQuotaStatNode) recount(tree, quota_path);
  }
  if (std::optional<std::string> root = paths_.root_of(path)) {
    update_stats(tree, *root, data_length, 1);
  }
}

QuotaTracker::Removal QuotaTracker::removing(const DataTree& tree, std::string_view path) const {
  Removal out;
  if (paths_.empty()) return out;  // nothing to remove from or account to
  std::vector<std::string> stack{std::string(path)};
  while (!stack.empty()) {
    std::string p = std::move(stack.back());
    stack.pop_back();
    const Node* node = tree.find(p);
    if (node == nullptr) continue;
    for (const Node* child : node->children()) stack.emplace_back(child->path());
    const int64_t length = node->data_length();
    out.nodes.emplace_back(std::move(p), length);
  }
  return out;
}

void QuotaTracker::removed(DataTree& tree, const Removal& removal) {
  for (const auto& [path, length] : removal.nodes) {
    // Apache tests the parent against /zookeeper but trims /zookeeper/quota
    // off it (and throws when the parent is shorter than that).
    std::string_view parent = apache_parent(path);
    if (parent.starts_with(kProcRoot) && child_name(path) == kQuotaLimitNode &&
        parent.size() >= kQuotaRoot.size()) {
      paths_.remove(parent.substr(kQuotaRoot.size()));
    }
    if (std::optional<std::string> root = paths_.root_of(path)) {
      update_stats(tree, *root, -length, -1);
    }
  }
}

void QuotaTracker::data_changed(DataTree& tree, std::string_view path, int64_t bytes_diff) {
  if (std::optional<std::string> root = paths_.root_of(path)) {
    update_stats(tree, *root, bytes_diff, 0);
  }
}

void QuotaTracker::update_stats(DataTree& tree, std::string_view quota_path, int64_t bytes_diff,
                                int64_t count_diff) {
  Node* stats = tree.find_mutable(quota_stat_path(quota_path));
  if (stats == nullptr) return;
  std::optional<StatsTrack> track = StatsTrack::parse(stats->data().value_or(""));
  if (!track) return;
  track->set(StatsTrack::kCount, track->count() + count_diff);
  track->set(StatsTrack::kBytes, track->bytes() + bytes_diff);
  tree.replace_data(stats, track->to_string());
}

void QuotaTracker::recount(DataTree& tree, std::string_view quota_path) {
  int64_t count = 0;
  int64_t bytes = 0;
  std::vector<std::string> stack{std::string(quota_path)};
  while (!stack.empty()) {
    std::string p = std::move(stack.back());
    stack.pop_back();
    const Node* node = tree.find(p);
    if (node == nullptr) continue;
    ++count;
    bytes += node->data_length();
    for (const Node* child : node->children()) stack.emplace_back(child->path());
  }
  Node* stats = tree.find_mutable(quota_stat_path(quota_path));
  if (stats == nullptr) return;
  StatsTrack track;
  track.set(StatsTrack::kCount, count);
  track.set(StatsTrack::kBytes, bytes);
  tree.replace_data(stats, track.to_string());
}

void QuotaTracker::rebuild(DataTree& tree) {
  paths_.clear();
  if (tree.exists(kQuotaRoot)) find_limits(tree, std::string(kQuotaRoot));
}

// Apache's traverseNode: only a leaf named .../zookeeper_limits counts, and
// the quota path ends where "/zookeeper_limits" first occurs.
void QuotaTracker::find_limits(DataTree& tree, const std::string& path) {
  const Node* node = tree.find(path);
  if (node == nullptr) return;
  if (node->children().empty()) {
    const std::string end = "/" + std::string(kQuotaLimitNode);
    if (path.ends_with(end)) {
      std::string quota_path = path.substr(kQuotaRoot.size(), path.find(end) - kQuotaRoot.size());
      recount(tree, quota_path);
      paths_.add(quota_path);
    }
    return;
  }
  std::vector<std::string> children;
  for (const Node* child : node->children()) children.emplace_back(child->path());
  for (const std::string& child : children) find_limits(tree, child);
}

}  // namespace zkd::tree

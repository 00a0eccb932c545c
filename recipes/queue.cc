// SPDX-License-Identifier: Apache-2.0
#include "recipes/queue.h"

#include <algorithm>

#include "recipes/protected_create.h"
#include "recipes/receipt_multi.h"
#include "recipes/watch_wait.h"
#include "recipes/znode_util.h"

namespace zk::recipes {

namespace {

constexpr uint32_t kItemsVersion = 0x00010001;  // Curator's ItemSerializer.VERSION
constexpr char kItemOpcode = 0x01;
constexpr char kEndOpcode = 0x02;

void put_int32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

bool get_int32(std::string_view& in, uint32_t& v) {
  if (in.size() < 4) return false;
  v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(in[i]);
  in.remove_prefix(4);
  return true;
}

struct Entry {
  std::string name;
  int64_t sequence;
};

// The item nodes among `children`, in sequence order.
std::vector<Entry> items_in_order(const std::vector<std::string>& children) {
  std::vector<Entry> entries;
  for (const std::string& name : children) {
    if (!strip_protection(name).starts_with(kQueueItemName)) continue;
    if (auto seq = sequence_of(name)) entries.push_back({name, *seq});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.sequence < b.sequence; });
  return entries;
}

}  // namespace

std::string encode_queue_items(const std::vector<std::string>& items) {
  std::string out;
  put_int32(out, kItemsVersion);
  for (const std::string& item : items) {
    out.push_back(kItemOpcode);
    put_int32(out, static_cast<uint32_t>(item.size()));
    out += item;
  }
  out.push_back(kEndOpcode);
  return out;
}

std::optional<std::vector<std::string>> decode_queue_items(const zk::wire::Buffer& data) {
  if (!data) return std::nullopt;
  std::string_view in = *data;
  uint32_t version = 0;
  if (!get_int32(in, version) || version != kItemsVersion) return std::nullopt;
  std::vector<std::string> items;
  for (;;) {
    if (in.empty()) return std::nullopt;
    const char opcode = in.front();
    in.remove_prefix(1);
    if (opcode == kEndOpcode) break;
    uint32_t size = 0;
    if (opcode != kItemOpcode || !get_int32(in, size) || size > in.size()) return std::nullopt;
    items.emplace_back(in.substr(0, size));
    in.remove_prefix(size);
  }
  if (!in.empty()) return std::nullopt;
  return items;
}

Result<std::string> queue_put(SyncClient& zk, const std::string& queue, const std::string& data,
                              const QueuePutOptions& options) {
  const std::string bytes = encode_queue_items({data});
  if (options.protect) {
    return protected_create(zk, queue, kQueueItemName, bytes,
                            zk::wire::CreateMode::kPersistentSequential, options.retry);
  }
  const std::string prefix = detail::child_path(queue, kQueueItemName);
  auto created = zk.create(prefix, bytes, zk::wire::CreateMode::kPersistentSequential);
  if (created.error() == Error::kNoNode) {
    Status parent = ensure_path(zk, queue, options.retry);
    if (!parent.ok()) return parent.error();
    created = zk.create(prefix, bytes, zk::wire::CreateMode::kPersistentSequential);
  }
  return created;  // a lost create is not retried: it may have happened
}

Result<std::optional<QueueItem>> queue_poll(SyncClient& zk, const std::string& queue,
                                            const RetryPolicy& policy) {
  using Polled = std::optional<QueueItem>;
  auto children =
      with_retries<std::vector<std::string>>(zk, policy, [&] { return zk.get_children(queue); });
  if (!children.ok()) {
    if (children.error() == Error::kNoNode) return Polled();
    return children.error();
  }
  for (const Entry& entry : items_in_order(*children)) {
    const std::string path = detail::child_path(queue, entry.name);
    auto node = with_retries<zk::client::NodeData>(zk, policy, [&] { return zk.get_data(path); });
    if (!node.ok()) {
      if (node.error() == Error::kNoNode) continue;  // another taker was first
      return node.error();
    }
    Status taken =
        multi_with_receipt(zk, {zk::wire::multi_remove(path, node->stat.version)}, queue, policy);
    if (taken.error() == Error::kNoNode || taken.error() == Error::kBadVersion) continue;
    if (!taken.ok()) return taken.error();
    auto items = decode_queue_items(node->data);
    if (!items) items = std::vector<std::string>{node->data.value_or(std::string())};
    return Polled(QueueItem{path, std::move(*items)});
  }
  return Polled();
}

Result<QueueItem> queue_take(SyncClient& zk, const std::string& queue,
                             std::optional<std::chrono::milliseconds> timeout,
                             const RetryPolicy& policy) {
  const detail::Deadline deadline = detail::deadline_after(timeout);
  Status exists = ensure_path(zk, queue, policy);
  if (!exists.ok()) return exists.error();
  for (;;) {
    auto polled = queue_poll(zk, queue, policy);
    if (!polled.ok()) return polled.error();
    if (polled->has_value()) return std::move(**polled);
    // Empty: watch the children and look once more before waiting, so that
    // an item put between the poll and the watch is not missed.
    auto children = detail::watched_read<std::vector<std::string>>(
        zk, policy, [&](auto watch) { return zk.get_children(queue, std::move(watch)); });
    if (!children.result.ok()) return children.result.error();
    if (!items_in_order(*children.result).empty()) continue;
    if (!children.wait(deadline)) return Error::kOperationTimeout;
  }
}

}  // namespace zk::recipes

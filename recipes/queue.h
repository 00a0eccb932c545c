// SPDX-License-Identifier: Apache-2.0
// Distributed queue (the ZooKeeper recipes; Curator DistributedQueue's node
// names and item format).
//
// Layout: each item is a persistent sequential child of the queue path Q,
// named "queue-<10-digit sequence>" as Curator names them, or, when put with
// protection (the default), "_c_<uuid>-queue-<sequence>" (protected_create.h).
// Items are taken in sequence order, whatever their prefix. The node data is
// Curator's ItemSerializer format: int32 0x00010001, then per item the byte
// 0x01, an int32 length and the bytes, then the byte 0x02 (big-endian). A node
// holds one item when put here and may hold several when put by Curator's
// putMulti; data in any other format (e.g. `zkctl create -s Q/queue-`) is taken
// as one item as it is.
//
// Guarantees: an item put once is taken at most once by all takers together,
// and exactly once if takers keep taking and nobody deletes items otherwise
// (a take deletes the item node in a multi with a receipt, receipt_multi.h,
// so a connection loss neither loses nor duplicates it). With one producer,
// items are taken in the order they were put (FIFO), as sequence numbers grow
// with each create under Q.
//
// Curator compatibility: Curator producers' items are taken here. Curator
// consumers skip children whose names do not start with "queue-" (they log a
// "Foreign node" warning), so items put here with protection are invisible to
// them; put with `protect = false` for a Curator consumer (then a put whose
// reply is lost fails with kConnectionLoss and may or may not have happened).
// Transient "_receipt-<uuid>" children of Q are skipped by both.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "recipes/retry.h"

namespace zk::recipes {

inline constexpr const char* kQueueItemName = "queue-";

struct QueuePutOptions {
  // Protected create: a connection loss never duplicates the item.
  bool protect = true;
  RetryPolicy retry;
};

struct QueueItem {
  std::string path;                // the item node, deleted by the take
  std::vector<std::string> items;  // usually one (several from Curator's putMulti)
};

// Curator's ItemSerializer encoding of `items`.
std::string encode_queue_items(const std::vector<std::string>& items);
// The items of node data in that format; nullopt when it is not in it.
std::optional<std::vector<std::string>> decode_queue_items(const zk::wire::Buffer& data);

// Appends `data` as one item (the queue path and its ancestors are created
// when missing) and returns the item node's path. Errors: kConnectionLoss
// (budget spent; with protection the item was not put, without it unknown),
// kSessionExpired, kNoAuth.
Result<std::string> queue_put(SyncClient& zk, const std::string& queue, const std::string& data,
                              const QueuePutOptions& options = {});

// Takes the head item if there is one: nullopt when the queue is empty or
// missing. Errors: kConnectionLoss, kSessionExpired (a take in flight may then
// have removed an item that is not returned).
Result<std::optional<QueueItem>> queue_poll(SyncClient& zk, const std::string& queue,
                                            const RetryPolicy& policy = {});

// Takes the head item, waiting (with a children watch) while the queue is
// empty, at most `timeout` (none: forever). A missing queue path is created.
// Errors: those of queue_poll, kOperationTimeout.
Result<QueueItem> queue_take(SyncClient& zk, const std::string& queue,
                             std::optional<std::chrono::milliseconds> timeout = std::nullopt,
                             const RetryPolicy& policy = {});

}  // namespace zk::recipes

// SPDX-License-Identifier: Apache-2.0
// Counter: a number in one znode, changed by a conditional setData loop.
//
// add_to_counter reads the value with its version, writes value + delta at
// that version and, when another client wrote first (kBadVersion), reads and
// tries again. Every successful add is applied exactly once, also across a
// connection loss: the write is a multi with a receipt (receipt_multi.h), so
// a write whose reply was lost is recognised instead of being repeated or
// guessed at. Concurrent adds therefore always end at the exact sum.
//
// Value layout (Curator-compatible): a big-endian two's-complement integer,
// 8 bytes as Curator's DistributedAtomicLong stores it, or 4 bytes as
// Curator's SharedCount stores it. A counter keeps the width it has: a
// 4-byte counter stays 4 bytes (an add that leaves the int32 range fails
// with kBadArguments), a new counter is created with 8 bytes. A missing node
// or empty data reads as 0 (DistributedAtomicLong does the same). Any other
// length is kMarshallingError. Binary rather than decimal text so that Curator
// clients and these recipes can share a counter; `zkctl counter get` prints it
// in decimal.
//
// The node (and its missing ancestors) is created on the first add. Transient
// receipt children "_receipt-<uuid>" may appear under the counter node.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "recipes/retry.h"

namespace zk::recipes {

struct CounterValue {
  int64_t value = 0;
  int width = 8;  // bytes: 8 (DistributedAtomicLong) or 4 (SharedCount)
};

// The value of counter data; nullopt for a length other than 0, 4 or 8.
std::optional<CounterValue> decode_counter(const zk::wire::Buffer& data);
// `value` big-endian in `width` (4 or 8) bytes; 4 bytes keep the low 32 bits.
std::string encode_counter(int64_t value, int width);

// The counter's value: 0 when the node is missing. Retries on connection
// loss. Errors: kMarshallingError, kSessionExpired, kConnectionLoss.
Result<int64_t> read_counter(SyncClient& zk, const std::string& path,
                             const RetryPolicy& policy = {});

// Adds `delta` and returns the new value. Blocks until the add is applied;
// retries on kBadVersion (contention) without limit and on connection loss
// per `policy`. Errors: kMarshallingError, kBadArguments (a 4-byte counter
// would overflow), kConnectionLoss (budget spent; the add was not applied),
// kSessionExpired (the add may or may not have been applied), those of
// create/setData (kNoAuth, ...).
Result<int64_t> add_to_counter(SyncClient& zk, const std::string& path, int64_t delta,
                               const RetryPolicy& policy = {});

}  // namespace zk::recipes

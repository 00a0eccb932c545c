// SPDX-License-Identifier: Apache-2.0
#include "recipes/counter.h"

#include <chrono>
#include <limits>

#include "libzk/wire/path.h"
#include "recipes/protected_create.h"
#include "recipes/receipt_multi.h"

namespace zk::recipes {

std::optional<CounterValue> decode_counter(const zk::wire::Buffer& data) {
  if (!data || data->empty()) return CounterValue{0, 8};
  const size_t width = data->size();
  if (width != 4 && width != 8) return std::nullopt;
  uint64_t bits = 0;
  for (unsigned char c : *data) bits = (bits << 8) | c;
  if (width == 4) return CounterValue{static_cast<int32_t>(static_cast<uint32_t>(bits)), 4};
  return CounterValue{static_cast<int64_t>(bits), 8};
}

std::string encode_counter(int64_t value, int width) {
  std::string out(width, '\0');
  auto bits = static_cast<uint64_t>(value);
  for (int i = width - 1; i >= 0; --i, bits >>= 8) out[i] = static_cast<char>(bits & 0xFF);
  return out;
}

Result<int64_t> read_counter(SyncClient& zk, const std::string& path, const RetryPolicy& policy) {
  return with_retries<int64_t>(zk, policy, [&]() -> Result<int64_t> {
    auto node = zk.get_data(path);
    if (!node.ok()) return node.error() == Error::kNoNode ? Result<int64_t>(0) : node.error();
    auto value = decode_counter(node->data);
    if (!value) return Error::kMarshallingError;
    return value->value;
  });
}

Result<int64_t> add_to_counter(SyncClient& zk, const std::string& path, int64_t delta,
                               const RetryPolicy& policy) {
  const auto start = std::chrono::steady_clock::now();
  int losses = 0;
  for (;;) {
    Status written = Error::kOk;
    int64_t next = delta;
    auto node = zk.get_data(path);
    if (!node.ok() && node.error() == Error::kNoNode) {
      // First add: create the node holding `delta` (its receipt goes under it).
      written = multi_with_receipt(zk, {zk::wire::multi_create(path, encode_counter(delta, 8))},
                                   path, policy);
      if (written.error() == Error::kNoNode) {
        Status ancestors = ensure_path(zk, std::string(zk::wire::parent_path(path)), policy);
        if (!ancestors.ok()) return ancestors.error();
        continue;
      }
      if (written.error() == Error::kNodeExists) continue;  // another client created it
    } else if (node.ok()) {
      auto value = decode_counter(node->data);
      if (!value) return Error::kMarshallingError;
      if (__builtin_add_overflow(value->value, delta, &next)) return Error::kBadArguments;
      if (value->width == 4 && (next < std::numeric_limits<int32_t>::min() ||
                                next > std::numeric_limits<int32_t>::max())) {
        return Error::kBadArguments;
      }
      written = multi_with_receipt(
          zk,
          {zk::wire::multi_set_data(path, encode_counter(next, value->width), node->stat.version)},
          path, policy);
      if (written.error() == Error::kBadVersion || written.error() == Error::kNoNode) continue;
    } else {
      written = node.error();
    }
    if (written.ok()) return next;
    if (!is_retryable(written.error()) || !backoff(zk, policy, start, losses++)) {
      return written.error();
    }
  }
}

}  // namespace zk::recipes

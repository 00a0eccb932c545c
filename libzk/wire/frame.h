// SPDX-License-Identifier: Apache-2.0
// Length-prefixed framing (docs/wire-protocol.md §1.1): int32 length, then that
// many payload bytes.
#pragma once

#include <cstdint>
#include <string_view>

namespace zk::wire {

// Apache's default jute.maxbuffer: the longest frame payload either side accepts.
inline constexpr int32_t kDefaultMaxFrame = 1048575;

enum class FrameStatus {
  kNeedMore,   // `buffered` does not yet hold a whole frame
  kFrame,      // payload holds one whole frame
  kBadLength,  // negative or larger than max_len: the peer must be disconnected
};

struct FrameView {
  FrameStatus status = FrameStatus::kNeedMore;
  int32_t length = 0;        // the declared length, when at least 4 bytes were buffered
  std::string_view payload;  // valid with kFrame; points into `buffered`
  size_t consumed = 0;       // bytes to drop from the front of `buffered` with kFrame
};

// Looks at the front of a receive buffer for one frame.
FrameView next_frame(std::string_view buffered, int32_t max_len = kDefaultMaxFrame);

}  // namespace zk::wire

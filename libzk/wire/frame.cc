// SPDX-License-Identifier: Apache-2.0
#include "libzk/wire/frame.h"

#include "libzk/wire/jute.h"

namespace zk::wire {

FrameView next_frame(std::string_view buffered, int32_t max_len) {
  FrameView v;
  if (buffered.size() < 4) return v;
  Reader r(buffered.substr(0, 4));
  v.length = r.int32();
  if (v.length < 0 || v.length > max_len) {
    v.status = FrameStatus::kBadLength;
    return v;
  }
  auto len = static_cast<size_t>(v.length);
  if (buffered.size() - 4 < len) return v;
  v.status = FrameStatus::kFrame;
  v.payload = buffered.substr(4, len);
  v.consumed = 4 + len;
  return v;
}

}  // namespace zk::wire

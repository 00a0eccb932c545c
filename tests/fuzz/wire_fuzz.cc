// SPDX-License-Identifier: Apache-2.0
// Fuzz target for the frame splitter and every request record decoder: the
// bytes a hostile client can send. Properties: nothing crashes or reads out of
// bounds, and a record that decodes re-encodes to bytes that decode to the
// same encoding (decode∘encode is stable).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "libzk/wire/frame.h"
#include "libzk/wire/records.h"

namespace {

using namespace zk::wire;

template <typename Record, typename... Args>
void check_stable(std::string_view bytes, Args... args) {
  Record first;
  Reader r(bytes);
  first.read(r, args...);
  if (!r.ok()) return;
  std::string once;
  Writer w1(once);
  first.write(w1, args...);
  Record second;
  Reader r2(once);
  second.read(r2, args...);
  std::string twice;
  Writer w2(twice);
  second.write(w2, args...);
  if (!r2.ok() || once != twice) std::abort();
}

void decode_request(std::string_view frame) {
  Reader r(frame);
  RequestHeader h;
  h.read(r);
  if (!r.ok()) return;
  std::string_view body = r.rest();
  switch (h.type) {
    case OpCode::kCreate:
    case OpCode::kCreate2:
    case OpCode::kCreateContainer:
      check_stable<CreateRequest>(body);
      break;
    case OpCode::kDelete:
      check_stable<DeleteRequest>(body);
      break;
    case OpCode::kExists:
    case OpCode::kGetData:
    case OpCode::kGetChildren:
    case OpCode::kGetChildren2:
      check_stable<PathWatchRequest>(body);
      break;
    case OpCode::kSetData:
      check_stable<SetDataRequest>(body);
      break;
    case OpCode::kGetACL:
    case OpCode::kSync:
      check_stable<PathRecord>(body);
      break;
    case OpCode::kSetACL:
      check_stable<SetACLRequest>(body);
      break;
    case OpCode::kCheck:
      check_stable<CheckVersionRequest>(body);
      break;
    case OpCode::kAuth:
      check_stable<AuthPacket>(body);
      break;
    case OpCode::kSetWatches:
      check_stable<SetWatches>(body, false);
      break;
    case OpCode::kSetWatches2:
      check_stable<SetWatches>(body, true);
      break;
    default:
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  bool first = true;
  while (true) {
    FrameView f = next_frame(input);
    if (f.status != FrameStatus::kFrame) break;
    if (first) {
      check_stable<ConnectRequest>(f.payload);
      first = false;
    } else {
      decode_request(f.payload);
    }
    input.remove_prefix(f.consumed);
  }
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// The frames zkd sends to clients, length prefix included (§1.1 of
// docs/wire-protocol.md): replies, watch notifications and the
// ConnectResponse. Pure functions; no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"

namespace zkd::server {

// The header zxid of a notification that no txn fired: setWatches catch-up
// events, as Apache's WatchedEvent.NO_ZXID.
inline constexpr int64_t kNoZxid = -1;

// ReplyHeader{xid, zxid, err} followed by `body` (empty on errors, but for a
// multiRead of writes only, zkd/tree/results.h).
std::string reply_frame(int32_t xid, int64_t zxid, zk::wire::Error err, std::string_view body);

// A watch notification: ReplyHeader{-1, zxid, 0} + WatcherEvent. `zxid` is
// the zxid of the txn whose apply fired the event (for a multi, the multi's;
// for ephemerals removed by a closed or expired session, the closeSession
// txn's), as Apache 3.9 sends it (ZOOKEEPER-4655); kNoZxid when no txn fired
// it. Apache 3.8 sent -1 in every notification; its clients ignore the field.
std::string notification_frame(const zk::wire::WatcherEvent& event, int64_t zxid);

// The ConnectResponse, with the trailing readOnly byte iff the ConnectRequest
// carried one (`request_had_read_only`), whatever `response.has_read_only`
// says: Apache 3.8 (`isOldClient`) and 3.9.3+ (ZOOKEEPER-4814) answer a
// request that ends after the password with 36 bytes, one with the byte with
// 37. Used for every answer to a ConnectRequest, the all-zero refusal too.
std::string connect_response_frame(zk::wire::ConnectResponse response, bool request_had_read_only);

}  // namespace zkd::server

// SPDX-License-Identifier: Apache-2.0
// One request of `zkbench keeper-bench` (keeper_bench_generator.h) sent on a
// zk::client session, and what keeper-bench would make of its answer.
//
// Opcodes: create 1 (persistent, world:anyone), delete 2 (version -1),
// setData 5 (version -1), getData 4, getChildren 8, multi 14 (writes) and
// multiRead 22 (reads); no watch is set.
//
// Bytes: the size of the request and of its reply as they go on the wire,
// from the jute encoding (request header 8 bytes, reply header 16, the
// records, multi bodies encoded by zk::wire), without the frames' 4-byte
// length; counted for answers that keeper-bench counts (see `counted`).
//
// Tolerated answers, as keeper-bench takes them: NONODE to a remove (the
// znode may not be created yet, or removed by another loop), and a multi
// whose failing operation is such a remove; they count as answered.
//
// Threading: send() runs on the client's executor (zk::client's contract).
#pragma once

#include <cstdint>

#include "libzk/client/client.h"
#include "zkbench/keeper_bench_generator.h"

namespace zk::bench::keeper {

struct Answer {
  zk::wire::Error error = zk::wire::Error::kOk;  // the request's, or a multi's failing operation's
  bool tolerated = false;                        // an error keeper-bench counts as answered
  int64_t bytes = 0;                             // request + reply, when counted()

  bool counted() const { return error == zk::wire::Error::kOk || tolerated; }
};

zk::client::Task<Answer> send(zk::client::Client& client, const Request& request);

// The wire size of `request` (header and body), as send() counts it.
int64_t request_bytes(const Request& request);

}  // namespace zk::bench::keeper

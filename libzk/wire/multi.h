// SPDX-License-Identifier: Apache-2.0
// multi (14) and multiRead (22): the request and response bodies (§7 of
// docs/wire-protocol.md). Shared by zkd and zk::client.
//
// A request body is, per operation, MultiHeader{type, done=false, err=-1}
// and that operation's request record, then the terminator
// MultiHeader{-1, true, -1}. A response body is, per operation,
// MultiHeader{type, false, err} and the result's record, then the same
// terminator. Which operations a multi or a multiRead may hold is the
// server's rule, not this codec's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "libzk/wire/jute.h"
#include "libzk/wire/protocol.h"
#include "libzk/wire/records.h"

namespace zk::wire {

struct MultiHeader {
  int32_t type = -1;
  bool done = true;
  int32_t err = -1;
  void write(Writer& w) const;
  void read(Reader& r);
};

// One operation of a request. The record follows the type:
//   create 1, create2 15, createContainer 19 -> CreateRequest
//   createTTL 21 -> CreateTTLRequest
//   delete 2 -> DeleteRequest; setData 5 -> SetDataRequest
//   check 13 -> CheckVersionRequest
//   getData 4, getChildren 8 -> PathWatchRequest (the watch flag is ignored)
struct MultiOp {
  using Request = std::variant<CreateRequest, CreateTTLRequest, DeleteRequest, SetDataRequest,
                               CheckVersionRequest, PathWatchRequest>;
  OpCode type = OpCode::kCheck;
  Request request;
};

// Convenience constructors for the common operations.
MultiOp multi_create(std::string path, Buffer data, CreateMode mode = CreateMode::kPersistent,
                     ACLs acl = open_acl_unsafe());
MultiOp multi_remove(std::string path, int32_t version = -1);
MultiOp multi_set_data(std::string path, Buffer data, int32_t version = -1);
MultiOp multi_check(std::string path, int32_t version);
MultiOp multi_get_data(std::string path);
MultiOp multi_get_children(std::string path);

std::string encode_multi_request(const std::vector<MultiOp>& ops);
// False for a truncated body, a missing terminator or an operation type that
// has no record in the table above (`out` is then unspecified).
bool decode_multi_request(std::string_view body, std::vector<MultiOp>& out);

// One operation's result. `type` is the operation's own type when it
// succeeded (create2 15 for createContainer and createTTL too, as Apache) and kError when it did
// not; then `err` is its code (in a failed multi: kOk for the operations before the failing one,
// the code for the failing one, kRuntimeInconsistency after it).
struct MultiResult {
  OpCode type = OpCode::kError;
  Error err = Error::kOk;
  std::string path;                   // create 1, create2 15
  Stat stat;                          // create2 15, setData 5, getData 4
  Buffer data;                        // getData 4
  std::vector<std::string> children;  // getChildren 8
};

std::string encode_multi_response(const std::vector<MultiResult>& results);
// The same, a piece at a time, for a server that has each operation's own
// reply record encoded already: MultiHeader{type, false, 0} + `record` when
// `err` is kOk, else MultiHeader{-1, false, err} + ErrorResponse{err}; and
// the terminator after the last.
void write_multi_result(Writer& w, OpCode type, Error err, std::string_view record);
void write_multi_end(Writer& w);
// False for a truncated body, a missing terminator or an unknown result type.
bool decode_multi_response(std::string_view body, std::vector<MultiResult>& out);

}  // namespace zk::wire

// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/read_processor.h"

#include <algorithm>
#include <string>
#include <utility>

#include "libzk/wire/java_string.h"
#include "libzk/wire/multi.h"
#include "libzk/wire/records.h"
#include "zkd/tree/acl_check.h"
#include "zkd/tree/watch_requests.h"

namespace zkd::tree {
namespace {

using zk::wire::Error;
using zk::wire::OpCode;

Response error(Error err) { return Response{err, 0, {}}; }

template <typename Record>
Response ok(const Record& record) {
  Response r;
  zk::wire::Writer w(r.body);
  record.write(w);
  return r;
}

// getACL's reply to a caller without ADMIN: every digest id "user:hash"
// becomes "user:x" (Apache replaces ":.*" with ":x").
zk::wire::ACLs digests_masked(zk::wire::ACLs acl) {
  for (zk::wire::ACL& entry : acl) {
    if (entry.id.scheme != kDigestScheme) continue;
    const size_t colon = entry.id.id.find(':');
    if (colon != std::string::npos) entry.id.id.replace(colon, std::string::npos, ":x");
  }
  return acl;
}

}  // namespace

Response ReadProcessor::read(WatcherId watcher, OpCode op, std::string_view body, int64_t last_zxid,
                             const AuthIds& caller) const {
  Response r = error(Error::kUnimplemented);  // also for a value that is no OpCode
  // getData, getChildren, getChildren2: `answer` for the decoded request.
  auto path_watch = [&](auto answer) {
    zk::wire::PathWatchRequest req;
    return zk::wire::decode(body, req) ? answer(req) : error(Error::kMarshallingError);
  };
  switch (op) {
    case OpCode::kExists:
      r = exists(watcher, body, caller);
      break;
    case OpCode::kGetData:
      r = path_watch([&](const auto& req) { return get_data(watcher, req, caller); });
      break;
    case OpCode::kGetACL:
      r = get_acl(body, caller);
      break;
    case OpCode::kGetChildren:
      r = path_watch([&](const auto& req) { return get_children(watcher, req, false, caller); });
      break;
    case OpCode::kGetChildren2:
      r = path_watch([&](const auto& req) { return get_children(watcher, req, true, caller); });
      break;
    case OpCode::kSync:
      r = sync(body);
      break;
    case OpCode::kGetAllChildrenNumber:
      r = all_children_number(body, caller);
      break;
    case OpCode::kMultiRead:
      r = multi_read(body, caller);
      break;
    case OpCode::kAddWatch:
      r = add_watch(watches_, watcher, body);
      break;
    case OpCode::kCheckWatches:
      r = check_watches(watches_, watcher, body);
      break;
    case OpCode::kRemoveWatches:
      r = remove_watches(watches_, watcher, body);
      break;
    // Not OpKind::kRead (libzk/wire/op_table.h): the dispatcher sends these
    // elsewhere.
    case OpCode::kNotification:
    case OpCode::kCreate:
    case OpCode::kDelete:
    case OpCode::kSetData:
    case OpCode::kSetACL:
    case OpCode::kPing:
    case OpCode::kCheck:
    case OpCode::kMulti:
    case OpCode::kCreate2:
    case OpCode::kReconfig:
    case OpCode::kCreateContainer:
    case OpCode::kDeleteContainer:
    case OpCode::kCreateTTL:
    case OpCode::kAuth:
    case OpCode::kSetWatches:
    case OpCode::kSasl:
    case OpCode::kGetEphemerals:
    case OpCode::kSetWatches2:
    case OpCode::kWhoAmI:
    case OpCode::kCreateSession:
    case OpCode::kCloseSession:
    case OpCode::kError:
      r = error(Error::kUnimplemented);
      break;
  }
  r.zxid = last_zxid;
  return r;
}

// READ is checked only when the node exists, before the watch is set; a
// missing node has no ACL, so the watch is then set and waits for NodeCreated.
Response ReadProcessor::exists(WatcherId watcher, std::string_view body,
                               const AuthIds& caller) const {
  zk::wire::PathWatchRequest req;
  if (!zk::wire::decode(body, req)) return error(Error::kMarshallingError);
  if (req.path.find('\0') != std::string::npos) return error(Error::kBadArguments);
  const Node* node = tree_.find(req.path);
  if (node != nullptr && !permitted(node->acl(), zk::wire::perms::kRead, caller)) {
    return error(Error::kNoAuth);
  }
  if (req.watch) watches_.watch_data(req.path, watcher);
  if (node == nullptr) return error(Error::kNoNode);
  return ok(client_stat(*node));
}

Response ReadProcessor::get_data(WatcherId watcher, const zk::wire::PathWatchRequest& req,
                                 const AuthIds& caller) const {
  const Node* node = tree_.find(req.path);
  if (node == nullptr) return error(Error::kNoNode);
  if (!permitted(node->acl(), zk::wire::perms::kRead, caller)) return error(Error::kNoAuth);
  if (req.watch) watches_.watch_data(req.path, watcher);
  // GetDataResponse's layout, written from the node's bytes (no copy of the
  // data besides the one into the reply).
  Response r;
  zk::wire::Writer w(r.body);
  r.body.reserve(static_cast<size_t>(node->data_length()) + 4 + 68);
  if (DataView data = node->data()) {
    w.buffer(*data);
  } else {
    w.int32(-1);
  }
  client_stat(*node).write(w);
  return r;
}

Response ReadProcessor::get_acl(std::string_view body, const AuthIds& caller) const {
  zk::wire::PathRecord req;
  if (!zk::wire::decode(body, req)) return error(Error::kMarshallingError);
  const Node* node = tree_.find(req.path);
  if (node == nullptr) return error(Error::kNoNode);
  if (!permitted(node->acl(), zk::wire::perms::kRead | zk::wire::perms::kAdmin, caller)) {
    return error(Error::kNoAuth);
  }
  if (!permitted(node->acl(), zk::wire::perms::kAdmin, caller)) {
    return ok(zk::wire::GetACLResponse{digests_masked(node->acl()), client_stat(*node)});
  }
  return ok(zk::wire::GetACLResponse{node->acl(), client_stat(*node)});
}

Response ReadProcessor::get_children(WatcherId watcher, const zk::wire::PathWatchRequest& req,
                                     bool with_stat, const AuthIds& caller) const {
  const Node* node = tree_.find(req.path);
  if (node == nullptr) return error(Error::kNoNode);
  if (!permitted(node->acl(), zk::wire::perms::kRead, caller)) return error(Error::kNoAuth);
  if (req.watch) watches_.watch_children(req.path, watcher);
  std::vector<std::string> children;
  children.reserve(node->children().size());
  for (const Node* child : node->children()) children.emplace_back(child->name());
  if (with_stat) return ok(zk::wire::GetChildren2Response{std::move(children), client_stat(*node)});
  return ok(zk::wire::GetChildrenResponse{std::move(children)});
}

Response ReadProcessor::sync(std::string_view body) const {
  zk::wire::PathRecord req;
  if (!zk::wire::decode(body, req)) return error(Error::kMarshallingError);
  req.path = zk::wire::java_string_round_trip(req.path);  // the echo Apache sends
  return ok(req);
}

// GetAllChildrenNumberResponse is a single int.
Response ReadProcessor::all_children_number(std::string_view body, const AuthIds& caller) const {
  zk::wire::PathRecord req;
  if (!zk::wire::decode(body, req)) return error(Error::kMarshallingError);
  const Node* node = tree_.find(req.path);
  if (node == nullptr) return error(Error::kNoNode);
  if (!permitted(node->acl(), zk::wire::perms::kRead, caller)) return error(Error::kNoAuth);
  Response r;
  zk::wire::Writer w(r.body);
  w.int32(tree_.descendant_count(req.path));
  return r;
}

// Each operation answered on its own, without watches; the result is
// MultiHeader{type, false, 0} + the operation's reply record, or
// MultiHeader{-1, false, err} + ErrorResponse{err} (§7.1).
Response ReadProcessor::multi_read(std::string_view body, const AuthIds& caller) const {
  std::vector<zk::wire::MultiOp> ops;
  if (!zk::wire::decode_multi_request(body, ops)) return error(Error::kMarshallingError);
  auto is_read = [](const zk::wire::MultiOp& op) {
    return op.type == OpCode::kGetData || op.type == OpCode::kGetChildren;
  };
  const auto reads = std::count_if(ops.begin(), ops.end(), is_read);
  Response r;
  zk::wire::Writer w(r.body);
  if (reads != static_cast<std::ptrdiff_t>(ops.size())) {
    // Mixed reads and writes do not decode in Apache (header only); writes
    // alone decode and are refused with an empty result list.
    if (reads > 0) return error(Error::kMarshallingError);
    r.err = Error::kMarshallingError;
    zk::wire::write_multi_end(w);
    return r;
  }
  for (zk::wire::MultiOp& op : ops) {
    auto& req = std::get<zk::wire::PathWatchRequest>(op.request);
    req.watch = false;
    Response sub = op.type == OpCode::kGetData ? get_data(0, req, caller)
                                               : get_children(0, req, false, caller);
    zk::wire::write_multi_result(w, op.type, sub.err, sub.body);
  }
  zk::wire::write_multi_end(w);
  return r;
}

}  // namespace zkd::tree

// SPDX-License-Identifier: Apache-2.0
#include "zkbench/keeper_bench_send.h"

#include <utility>

namespace zk::bench::keeper {

namespace {

using zk::client::Client;
using zk::client::Task;
using zk::wire::Error;

constexpr int64_t kRequestHeader = 8;                         // xid, type
constexpr int64_t kReplyHeader = zk::wire::kReplyHeaderSize;  // xid, zxid, err
constexpr int64_t kStat = zk::wire::kStatSize;
constexpr int64_t kOpenAcl = 4 + 4 + (4 + 5) + (4 + 6);  // [{ALL, world, anyone}]

int64_t text(std::string_view s) { return 4 + static_cast<int64_t>(s.size()); }

std::vector<zk::wire::MultiOp> multi_ops(const Request& r) {
  std::vector<zk::wire::MultiOp> ops;
  ops.reserve(r.ops.size());
  for (const Op& op : r.ops) {
    switch (op.type) {
      case Op::Type::kCreate:
        ops.push_back(zk::wire::multi_create(op.path, op.data));
        break;
      case Op::Type::kRemove:
        ops.push_back(zk::wire::multi_remove(op.path));
        break;
      case Op::Type::kSet:
        ops.push_back(zk::wire::multi_set_data(op.path, op.data));
        break;
      case Op::Type::kGet:
        ops.push_back(zk::wire::multi_get_data(op.path));
        break;
      case Op::Type::kList:
        ops.push_back(zk::wire::multi_get_children(op.path));
        break;
    }
  }
  return ops;
}

int64_t single_request_bytes(const Op& op) {
  switch (op.type) {
    case Op::Type::kCreate:
      return kRequestHeader + text(op.path) + text(op.data) + kOpenAcl + 4;
    case Op::Type::kRemove:
      return kRequestHeader + text(op.path) + 4;
    case Op::Type::kSet:
      return kRequestHeader + text(op.path) + text(op.data) + 4;
    case Op::Type::kGet:
    case Op::Type::kList:
      return kRequestHeader + text(op.path) + 1;
  }
  return 0;
}

Task<Answer> send_single(Client& client, const Op& op) {
  Answer a;
  const int64_t sent = single_request_bytes(op);
  switch (op.type) {
    case Op::Type::kCreate: {
      auto r = co_await client.create(op.path, op.data);
      a.error = r.error();
      if (r.ok()) a.bytes = sent + kReplyHeader + text(*r);
      break;
    }
    case Op::Type::kRemove: {
      auto r = co_await client.remove(op.path);
      a.error = r.error();
      a.tolerated = a.error == Error::kNoNode;
      a.bytes = sent + kReplyHeader;
      break;
    }
    case Op::Type::kSet: {
      auto r = co_await client.set_data(op.path, op.data);
      a.error = r.error();
      a.bytes = sent + kReplyHeader + kStat;
      break;
    }
    case Op::Type::kGet: {
      auto r = co_await client.get_data(op.path);
      a.error = r.error();
      if (r.ok()) a.bytes = sent + kReplyHeader + text(r->data.value_or("")) + kStat;
      break;
    }
    case Op::Type::kList: {
      auto r = co_await client.get_children(op.path);
      a.error = r.error();
      if (r.ok()) {
        a.bytes = sent + kReplyHeader + 4;
        for (const std::string& name : *r) a.bytes += text(name);
      }
      break;
    }
  }
  if (!a.counted()) a.bytes = 0;
  co_return a;
}

Task<Answer> send_multi(Client& client, const Request& request) {
  std::vector<zk::wire::MultiOp> ops = multi_ops(request);
  const int64_t sent =
      kRequestHeader + static_cast<int64_t>(zk::wire::encode_multi_request(ops).size());
  // if/else, not a conditional expression: g++ 12 miscompiles co_await in
  // one (docs/design.md, "Known gaps").
  zk::client::Result<std::vector<zk::wire::MultiResult>> r;
  if (request.kind == StatKind::kMultiRead) {
    r = co_await client.multi_read(std::move(ops));
  } else {
    r = co_await client.multi(std::move(ops));
  }
  Answer a;
  if (!r.ok()) {
    a.error = r.error();
    co_return a;
  }
  // A multiRead answers each operation on its own; a multi fails as a whole
  // at its first failing operation (the others then carry kOk or
  // RUNTIMEINCONSISTENCY).
  for (size_t i = 0; i < r->size(); ++i) {
    const zk::wire::MultiResult& result = (*r)[i];
    if (result.type != zk::wire::OpCode::kError || result.err == Error::kOk ||
        result.err == Error::kRuntimeInconsistency) {
      continue;
    }
    a.error = result.err;
    a.tolerated = request.kind == StatKind::kMulti && result.err == Error::kNoNode &&
                  i < request.ops.size() && request.ops[i].type == Op::Type::kRemove;
    break;
  }
  if (a.counted()) {
    a.bytes =
        sent + kReplyHeader + static_cast<int64_t>(zk::wire::encode_multi_response(*r).size());
  }
  co_return a;
}

}  // namespace

int64_t request_bytes(const Request& request) {
  if (request.kind == StatKind::kMulti || request.kind == StatKind::kMultiRead) {
    return kRequestHeader +
           static_cast<int64_t>(zk::wire::encode_multi_request(multi_ops(request)).size());
  }
  return request.ops.empty() ? 0 : single_request_bytes(request.ops.front());
}

Task<Answer> send(Client& client, const Request& request) {
  if (request.kind == StatKind::kMulti || request.kind == StatKind::kMultiRead) {
    co_return co_await send_multi(client, request);
  }
  co_return co_await send_single(client, request.ops.front());
}

}  // namespace zk::bench::keeper

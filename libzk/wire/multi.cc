// SPDX-License-Identifier: Apache-2.0
#include "libzk/wire/multi.h"

#include <utility>

namespace zk::wire {
namespace {

constexpr MultiHeader kTerminator{-1, true, -1};

template <typename Record>
MultiOp::Request read_record(Reader& r) {
  Record record;
  record.read(r);
  return record;
}

}  // namespace

void MultiHeader::write(Writer& w) const {
  w.int32(type);
  w.boolean(done);
  w.int32(err);
}

void MultiHeader::read(Reader& r) {
  type = r.int32();
  done = r.boolean();
  err = r.int32();
}

MultiOp multi_create(std::string path, Buffer data, CreateMode mode, ACLs acl) {
  return {OpCode::kCreate, CreateRequest{std::move(path), std::move(data), std::move(acl),
                                         static_cast<int32_t>(mode)}};
}
MultiOp multi_remove(std::string path, int32_t version) {
  return {OpCode::kDelete, DeleteRequest{std::move(path), version}};
}
MultiOp multi_set_data(std::string path, Buffer data, int32_t version) {
  return {OpCode::kSetData, SetDataRequest{std::move(path), std::move(data), version}};
}
MultiOp multi_check(std::string path, int32_t version) {
  return {OpCode::kCheck, CheckVersionRequest{std::move(path), version}};
}
MultiOp multi_get_data(std::string path) {
  return {OpCode::kGetData, PathWatchRequest{std::move(path), false}};
}
MultiOp multi_get_children(std::string path) {
  return {OpCode::kGetChildren, PathWatchRequest{std::move(path), false}};
}

std::string encode_multi_request(const std::vector<MultiOp>& ops) {
  std::string out;
  Writer w(out);
  for (const MultiOp& op : ops) {
    MultiHeader{static_cast<int32_t>(op.type), false, -1}.write(w);
    std::visit([&w](const auto& record) { record.write(w); }, op.request);
  }
  kTerminator.write(w);
  return out;
}

bool decode_multi_request(std::string_view body, std::vector<MultiOp>& out) {
  out.clear();
  Reader r(body);
  MultiHeader h;
  h.read(r);
  while (r.ok() && !h.done) {
    MultiOp op;
    op.type = static_cast<OpCode>(h.type);
    switch (op.type) {
      case OpCode::kCreate:
      case OpCode::kCreate2:
      case OpCode::kCreateContainer:
        op.request = read_record<CreateRequest>(r);
        break;
      case OpCode::kCreateTTL:
        op.request = read_record<CreateTTLRequest>(r);
        break;
      case OpCode::kDelete:
        op.request = read_record<DeleteRequest>(r);
        break;
      case OpCode::kSetData:
        op.request = read_record<SetDataRequest>(r);
        break;
      case OpCode::kCheck:
        op.request = read_record<CheckVersionRequest>(r);
        break;
      case OpCode::kGetData:
      case OpCode::kGetChildren:
        op.request = read_record<PathWatchRequest>(r);
        break;
      default:
        return false;
    }
    out.push_back(std::move(op));
    h.read(r);
  }
  return r.ok();
}

void write_multi_result(Writer& w, OpCode type, Error err, std::string_view record) {
  if (err == Error::kOk && type != OpCode::kError) {
    MultiHeader{static_cast<int32_t>(type), false, 0}.write(w);
    w.bytes().append(record);
    return;
  }
  const auto code = static_cast<int32_t>(err);
  MultiHeader{static_cast<int32_t>(OpCode::kError), false, code}.write(w);
  w.int32(code);
}

void write_multi_end(Writer& w) { kTerminator.write(w); }

std::string encode_multi_response(const std::vector<MultiResult>& results) {
  std::string out;
  Writer w(out);
  for (const MultiResult& result : results) {
    int32_t err = result.type == OpCode::kError ? static_cast<int32_t>(result.err) : 0;
    MultiHeader{static_cast<int32_t>(result.type), false, err}.write(w);
    switch (result.type) {
      case OpCode::kCreate:
        PathRecord{result.path}.write(w);
        break;
      case OpCode::kCreate2:
        Create2Response{result.path, result.stat}.write(w);
        break;
      case OpCode::kSetData:
        result.stat.write(w);
        break;
      case OpCode::kGetChildren:
        GetChildrenResponse{result.children}.write(w);
        break;
      case OpCode::kGetData:
        GetDataResponse{result.data, result.stat}.write(w);
        break;
      case OpCode::kError:
        w.int32(err);
        break;
      default:  // delete, check: no record
        break;
    }
  }
  kTerminator.write(w);
  return out;
}

bool decode_multi_response(std::string_view body, std::vector<MultiResult>& out) {
  out.clear();
  Reader r(body);
  MultiHeader h;
  h.read(r);
  while (r.ok() && !h.done) {
    MultiResult result;
    result.type = static_cast<OpCode>(h.type);
    switch (result.type) {
      case OpCode::kCreate:
        result.path = r.ustring();
        break;
      case OpCode::kCreate2: {
        Create2Response record;
        record.read(r);
        result.path = std::move(record.path);
        result.stat = record.stat;
        break;
      }
      case OpCode::kDelete:
      case OpCode::kCheck:
        break;
      case OpCode::kSetData:
        result.stat.read(r);
        break;
      case OpCode::kGetChildren:
        result.children = r.strings();
        break;
      case OpCode::kGetData: {
        GetDataResponse record;
        record.read(r);
        result.data = std::move(record.data);
        result.stat = record.stat;
        break;
      }
      case OpCode::kError:
        result.err = static_cast<Error>(r.int32());
        break;
      default:
        return false;
    }
    out.push_back(std::move(result));
    h.read(r);
  }
  return r.ok();
}

}  // namespace zk::wire

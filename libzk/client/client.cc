// SPDX-License-Identifier: Apache-2.0
#include "libzk/client/client.h"

#include <utility>
#include <variant>

#include <boost/asio/post.hpp>

#include "libzk/client/session.h"
#include "libzk/wire/path.h"

namespace zk::client {

namespace asio = boost::asio;
using zk::wire::CreateMode;
using zk::wire::encode;
using zk::wire::OpCode;

namespace {

bool valid(const std::string& path) { return zk::wire::path_error(path).empty(); }

WatchRegistration registration(const std::string& path, WatchCallback watch, WatchKind kind,
                               bool exist_on_no_node) {
  return WatchRegistration{path, std::move(watch), kind, exist_on_no_node};
}

}  // namespace

Client::Client(asio::any_io_executor executor, ClientOptions options)
    : session_(std::make_shared<ClientSession>(std::move(executor), std::move(options))) {}

Client::~Client() {
  if (!session_) return;
  // shutdown() must run on the session's executor.
  asio::any_io_executor executor = session_->executor();
  asio::post(executor, [session = std::move(session_)] { session->shutdown(); });
}

Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&& other) noexcept {
  if (this != &other) {
    Client doomed(std::move(*this));  // shuts down our current session, if any
    session_ = std::move(other.session_);
  }
  return *this;
}

Task<Status> Client::connect(std::string connect_string, std::chrono::milliseconds deadline) {
  co_return co_await session_->connect(std::move(connect_string), deadline);
}

namespace {

// create / create2 / createContainer share the request and (for 15, 19) the reply.
bool is_ttl(CreateMode mode) {
  return mode == CreateMode::kPersistentWithTTL || mode == CreateMode::kPersistentSequentialWithTTL;
}

// create / create2 / createContainer / createTTL share the request's first
// fields and (for 15, 19, 21) the reply. `ttl` is set exactly for the TTL modes.
Task<Result<Created>> create_any(ClientSession& session, std::string path, zk::wire::Buffer data,
                                 CreateMode mode, zk::wire::ACLs acl, bool want_stat,
                                 std::optional<int64_t> ttl = std::nullopt) {
  if (is_ttl(mode) != ttl.has_value()) co_return Error::kBadArguments;
  if (!zk::wire::path_error(path, zk::wire::is_sequential(mode)).empty()) {
    co_return Error::kBadArguments;
  }
  OpCode op = ttl                              ? OpCode::kCreateTTL
              : mode == CreateMode::kContainer ? OpCode::kCreateContainer
              : want_stat                      ? OpCode::kCreate2
                                               : OpCode::kCreate;
  std::string body;
  if (ttl) {
    zk::wire::CreateTTLRequest request{session.chroot().prefix(path), std::move(data),
                                       std::move(acl), static_cast<int32_t>(mode), *ttl};
    body = encode(request);
  } else {
    zk::wire::CreateRequest request{session.chroot().prefix(path), std::move(data), std::move(acl),
                                    static_cast<int32_t>(mode)};
    body = encode(request);
  }
  auto reply = co_await session.call(op, std::move(body));
  if (!reply) co_return reply.error();
  if (reply->header.err != Error::kOk) co_return reply->header.err;
  Created created;
  if (op == OpCode::kCreate) {
    zk::wire::PathRecord response;
    if (!zk::wire::decode(reply->body, response)) co_return Error::kMarshallingError;
    created.path = session.chroot().strip(response.path);
  } else {
    zk::wire::Create2Response response;
    if (!zk::wire::decode(reply->body, response)) co_return Error::kMarshallingError;
    created.path = session.chroot().strip(response.path);
    created.stat = response.stat;
  }
  co_return created;
}

}  // namespace

Task<Result<std::string>> Client::create(std::string path, zk::wire::Buffer data, CreateMode mode,
                                         zk::wire::ACLs acl) {
  auto created = co_await create_any(*session_, std::move(path), std::move(data), mode,
                                     std::move(acl), /*want_stat=*/false);
  if (!created) co_return created.error();
  co_return std::move(created->path);
}

Task<Result<Created>> Client::create2(std::string path, zk::wire::Buffer data, CreateMode mode,
                                      zk::wire::ACLs acl) {
  co_return co_await create_any(*session_, std::move(path), std::move(data), mode, std::move(acl),
                                /*want_stat=*/true);
}

Task<Result<Created>> Client::create_ttl(std::string path, zk::wire::Buffer data, CreateMode mode,
                                         int64_t ttl_ms, zk::wire::ACLs acl) {
  if (!is_ttl(mode)) co_return Error::kBadArguments;
  co_return co_await create_any(*session_, std::move(path), std::move(data), mode, std::move(acl),
                                /*want_stat=*/true, ttl_ms);
}

Task<Status> Client::remove(std::string path, int32_t version) {
  if (!valid(path)) co_return Error::kBadArguments;
  zk::wire::DeleteRequest request{session_->chroot().prefix(path), version};
  auto reply = co_await session_->call(OpCode::kDelete, encode(request));
  if (!reply) co_return reply.error();
  co_return reply->header.err;
}

Task<Result<std::optional<zk::wire::Stat>>> Client::exists(std::string path, WatchCallback watch) {
  if (!valid(path)) co_return Error::kBadArguments;
  std::optional<WatchRegistration> reg;
  if (watch) reg = registration(path, std::move(watch), WatchKind::kData, true);
  zk::wire::PathWatchRequest request{session_->chroot().prefix(path), reg.has_value()};
  auto reply = co_await session_->call(OpCode::kExists, encode(request), std::move(reg));
  if (!reply) co_return reply.error();
  if (reply->header.err == Error::kNoNode) co_return std::optional<zk::wire::Stat>{};
  if (reply->header.err != Error::kOk) co_return reply->header.err;
  zk::wire::Stat stat;
  if (!zk::wire::decode(reply->body, stat)) co_return Error::kMarshallingError;
  co_return std::optional<zk::wire::Stat>(stat);
}

Task<Result<NodeData>> Client::get_data(std::string path, WatchCallback watch) {
  if (!valid(path)) co_return Error::kBadArguments;
  std::optional<WatchRegistration> reg;
  if (watch) reg = registration(path, std::move(watch), WatchKind::kData, false);
  zk::wire::PathWatchRequest request{session_->chroot().prefix(path), reg.has_value()};
  auto reply = co_await session_->call(OpCode::kGetData, encode(request), std::move(reg));
  if (!reply) co_return reply.error();
  if (reply->header.err != Error::kOk) co_return reply->header.err;
  zk::wire::GetDataResponse response;
  if (!zk::wire::decode(reply->body, response)) co_return Error::kMarshallingError;
  co_return NodeData{std::move(response.data), response.stat};
}

Task<Result<zk::wire::Stat>> Client::set_data(std::string path, zk::wire::Buffer data,
                                              int32_t version) {
  if (!valid(path)) co_return Error::kBadArguments;
  zk::wire::SetDataRequest request{session_->chroot().prefix(path), std::move(data), version};
  auto reply = co_await session_->call(OpCode::kSetData, encode(request));
  if (!reply) co_return reply.error();
  if (reply->header.err != Error::kOk) co_return reply->header.err;
  zk::wire::Stat stat;
  if (!zk::wire::decode(reply->body, stat)) co_return Error::kMarshallingError;
  co_return stat;
}

Task<Result<NodeData>> Client::reconfig(zk::wire::ReconfigRequest request) {
  auto reply = co_await session_->call(OpCode::kReconfig, encode(request));
  if (!reply) co_return reply.error();
  if (reply->header.err != Error::kOk) co_return reply->header.err;
  zk::wire::GetDataResponse response;
  if (!zk::wire::decode(reply->body, response)) co_return Error::kMarshallingError;
  co_return NodeData{std::move(response.data), response.stat};
}

Task<Result<std::vector<std::string>>> Client::get_children(std::string path, WatchCallback watch) {
  if (!valid(path)) co_return Error::kBadArguments;
  std::optional<WatchRegistration> reg;
  if (watch) reg = registration(path, std::move(watch), WatchKind::kChild, false);
  zk::wire::PathWatchRequest request{session_->chroot().prefix(path), reg.has_value()};
  auto reply = co_await session_->call(OpCode::kGetChildren, encode(request), std::move(reg));
  if (!reply) co_return reply.error();
  if (reply->header.err != Error::kOk) co_return reply->header.err;
  zk::wire::GetChildrenResponse response;
  if (!zk::wire::decode(reply->body, response)) co_return Error::kMarshallingError;
  co_return std::move(response.children);
}

Task<Result<Children>> Client::get_children2(std::string path, WatchCallback watch) {
  if (!valid(path)) co_return Error::kBadArguments;
  std::optional<WatchRegistration> reg;
  if (watch) reg = registration(path, std::move(watch), WatchKind::kChild, false);
  zk::wire::PathWatchRequest request{session_->chroot().prefix(path), reg.has_value()};
  auto reply = co_await session_->call(OpCode::kGetChildren2, encode(request), std::move(reg));
  if (!reply) co_return reply.error();
  if (reply->header.err != Error::kOk) co_return reply->header.err;
  zk::wire::GetChildren2Response response;
  if (!zk::wire::decode(reply->body, response)) co_return Error::kMarshallingError;
  co_return Children{std::move(response.children), response.stat};
}

Task<Status> Client::add_watch(std::string path, zk::wire::AddWatchMode mode, WatchCallback watch) {
  if (!valid(path)) co_return Error::kBadArguments;
  if (!watch) co_return Error::kInvalidCallback;
  const WatchKind kind = mode == zk::wire::AddWatchMode::kPersistentRecursive
                             ? WatchKind::kPersistentRecursive
                             : WatchKind::kPersistent;
  zk::wire::AddWatchRequest request{session_->chroot().prefix(path), static_cast<int32_t>(mode)};
  std::optional<WatchRegistration> reg = registration(path, std::move(watch), kind, false);
  auto reply = co_await session_->call(OpCode::kAddWatch, encode(request), std::move(reg));
  if (!reply) co_return reply.error();
  co_return reply->header.err;
}

Task<Status> Client::remove_watches(std::string path, zk::wire::WatcherType type, bool local) {
  if (!valid(path)) co_return Error::kBadArguments;
  if (!session_->watches().contains(path, type)) co_return Error::kNoWatcher;
  zk::wire::WatchesRequest request{session_->chroot().prefix(path), static_cast<int32_t>(type)};
  auto reply = co_await session_->call(OpCode::kRemoveWatches, encode(request));
  const Error err = reply ? reply->header.err : reply.error();
  if (err != Error::kOk && !local) co_return err;
  auto removed = session_->watches().remove(path, type);
  for (auto& [event, callback] : removed) {
    if (callback) callback(WatchedEvent{event, zk::wire::KeeperState::kSyncConnected, path});
  }
  co_return removed.empty() ? Error::kNoWatcher : Error::kOk;
}

Task<Status> Client::check_watches(std::string path, zk::wire::WatcherType type) {
  if (!valid(path)) co_return Error::kBadArguments;
  zk::wire::WatchesRequest request{session_->chroot().prefix(path), static_cast<int32_t>(type)};
  auto reply = co_await session_->call(OpCode::kCheckWatches, encode(request));
  if (!reply) co_return reply.error();
  co_return reply->header.err;
}

Task<Result<NodeAcl>> Client::get_acl(std::string path) {
  if (!valid(path)) co_return Error::kBadArguments;
  zk::wire::PathRecord request{session_->chroot().prefix(path)};
  auto reply = co_await session_->call(OpCode::kGetACL, encode(request));
  if (!reply) co_return reply.error();
  if (reply->header.err != Error::kOk) co_return reply->header.err;
  zk::wire::GetACLResponse response;
  if (!zk::wire::decode(reply->body, response)) co_return Error::kMarshallingError;
  co_return NodeAcl{std::move(response.acl), response.stat};
}

Task<Result<zk::wire::Stat>> Client::set_acl(std::string path, zk::wire::ACLs acl,
                                             int32_t version) {
  if (!valid(path)) co_return Error::kBadArguments;
  zk::wire::SetACLRequest request{session_->chroot().prefix(path), std::move(acl), version};
  auto reply = co_await session_->call(OpCode::kSetACL, encode(request));
  if (!reply) co_return reply.error();
  if (reply->header.err != Error::kOk) co_return reply->header.err;
  zk::wire::Stat stat;
  if (!zk::wire::decode(reply->body, stat)) co_return Error::kMarshallingError;
  co_return stat;
}

namespace {

// Checks the path of every operation (kBadArguments for the first invalid
// one; sequential creates with a "1" appended, as create does) and prefixes
// the chroot to each.
Status prepare_multi_ops(const Chroot& chroot, std::vector<zk::wire::MultiOp>& ops) {
  for (zk::wire::MultiOp& op : ops) {
    const bool ok = std::visit(
        [&chroot](auto& record) {
          bool sequential = false;
          if constexpr (requires { record.flags; }) {
            sequential = zk::wire::is_sequential(static_cast<CreateMode>(record.flags));
          }
          if (!zk::wire::path_error(record.path, sequential).empty()) return false;
          record.path = chroot.prefix(record.path);
          return true;
        },
        op.request);
    if (!ok) return Error::kBadArguments;
  }
  return Error::kOk;
}

// multi (14) and multiRead (22) share the framing and the reply handling.
Task<Result<std::vector<zk::wire::MultiResult>>> multi_any(ClientSession& session, OpCode op,
                                                           std::vector<zk::wire::MultiOp> ops) {
  if (Status s = prepare_multi_ops(session.chroot(), ops); !s.ok()) co_return s.error();
  auto reply = co_await session.call(op, zk::wire::encode_multi_request(ops));
  if (!reply) co_return reply.error();
  if (reply->header.err != Error::kOk) co_return reply->header.err;
  std::vector<zk::wire::MultiResult> results;
  if (!zk::wire::decode_multi_response(reply->body, results) || results.size() != ops.size()) {
    co_return Error::kMarshallingError;
  }
  for (zk::wire::MultiResult& result : results) {
    if (result.type == OpCode::kCreate || result.type == OpCode::kCreate2) {
      result.path = session.chroot().strip(result.path);
    }
  }
  co_return results;
}

}  // namespace

Task<Result<std::vector<zk::wire::MultiResult>>> Client::multi(std::vector<zk::wire::MultiOp> ops) {
  co_return co_await multi_any(*session_, OpCode::kMulti, std::move(ops));
}

Task<Result<std::vector<zk::wire::MultiResult>>> Client::multi_read(
    std::vector<zk::wire::MultiOp> ops) {
  co_return co_await multi_any(*session_, OpCode::kMultiRead, std::move(ops));
}

Task<Status> Client::sync(std::string path) {
  if (!valid(path)) co_return Error::kBadArguments;
  zk::wire::PathRecord request{session_->chroot().prefix(path)};
  auto reply = co_await session_->call(OpCode::kSync, encode(request));
  if (!reply) co_return reply.error();
  co_return reply->header.err;
}

Task<Result<std::vector<std::string>>> Client::get_ephemerals(std::string prefix) {
  zk::wire::PathRecord request{session_->chroot().prefix(prefix)};
  auto reply = co_await session_->call(OpCode::kGetEphemerals, encode(request));
  if (!reply) co_return reply.error();
  if (reply->header.err != Error::kOk) co_return reply->header.err;
  zk::wire::GetChildrenResponse response;  // the same shape: a vector of strings
  if (!zk::wire::decode(reply->body, response)) co_return Error::kMarshallingError;
  for (std::string& path : response.children) path = session_->chroot().strip(path);
  co_return std::move(response.children);
}

Task<Result<int32_t>> Client::get_all_children_number(std::string path) {
  if (!valid(path)) co_return Error::kBadArguments;
  zk::wire::PathRecord request{session_->chroot().prefix(path)};
  auto reply = co_await session_->call(OpCode::kGetAllChildrenNumber, encode(request));
  if (!reply) co_return reply.error();
  if (reply->header.err != Error::kOk) co_return reply->header.err;
  zk::wire::Reader reader(reply->body);
  const int32_t total = reader.int32();
  if (!reader.ok()) co_return Error::kMarshallingError;
  co_return total;
}

Task<Result<std::vector<zk::wire::ClientInfo>>> Client::who_am_i() {
  auto reply = co_await session_->call(OpCode::kWhoAmI, std::string());
  if (!reply) co_return reply.error();
  if (reply->header.err != Error::kOk) co_return reply->header.err;
  zk::wire::WhoAmIResponse response;
  if (!zk::wire::decode(reply->body, response)) co_return Error::kMarshallingError;
  co_return std::move(response.client_info);
}

Task<Status> Client::add_auth(std::string scheme, zk::wire::Buffer auth) {
  co_return co_await session_->add_auth(std::move(scheme), std::move(auth));
}

Task<Status> Client::close() { co_return co_await session_->close(); }

SessionState Client::state() const { return session_->state(); }
int64_t Client::session_id() const { return session_->session_id(); }
SessionCredentials Client::credentials() const { return session_->credentials(); }
std::string Client::auth_failure() const { return session_->auth_failure(); }

int64_t Client::refused_reply_bytes() const { return session_->refused_reply_bytes(); }
std::chrono::milliseconds Client::negotiated_timeout() const {
  return session_->negotiated_timeout();
}
int64_t Client::last_zxid_seen() const { return session_->last_zxid_seen(); }
const std::string& Client::chroot() const { return session_->chroot().root(); }

}  // namespace zk::client

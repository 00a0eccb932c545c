// SPDX-License-Identifier: Apache-2.0
#include "zkd/tree/watch_requests.h"

#include <optional>

#include "libzk/wire/jute.h"
#include "libzk/wire/records.h"

namespace zkd::tree {
namespace {

using zk::wire::AddWatchMode;
using zk::wire::Error;
using zk::wire::WatcherType;

Response error(Error err) { return Response{err, 0, {}}; }

std::optional<WatcherType> watcher_type(int32_t raw) {
  switch (raw) {
    case static_cast<int32_t>(WatcherType::kChildren):
    case static_cast<int32_t>(WatcherType::kData):
    case static_cast<int32_t>(WatcherType::kAny):
      return static_cast<WatcherType>(raw);
    default:
      return std::nullopt;
  }
}

}  // namespace

Response add_watch(WatchManager& watches, WatcherId watcher, std::string_view body) {
  zk::wire::AddWatchRequest req;
  if (!zk::wire::decode(body, req)) return error(Error::kMarshallingError);
  const auto mode = static_cast<AddWatchMode>(req.mode);
  if (mode != AddWatchMode::kPersistent && mode != AddWatchMode::kPersistentRecursive) {
    return error(Error::kMarshallingError);
  }
  watches.watch_persistent(req.path, watcher, mode);
  Response r;
  zk::wire::Writer(r.body).int32(0);  // ErrorResponse{0}: Java clients need the body
  return r;
}

Response check_watches(const WatchManager& watches, WatcherId watcher, std::string_view body) {
  zk::wire::WatchesRequest req;
  if (!zk::wire::decode(body, req)) return error(Error::kMarshallingError);
  const std::optional<WatcherType> type = watcher_type(req.type);
  if (!type) return error(Error::kMarshallingError);
  return error(watches.contains(req.path, watcher, *type) ? Error::kOk : Error::kNoWatcher);
}

Response remove_watches(WatchManager& watches, WatcherId watcher, std::string_view body) {
  zk::wire::WatchesRequest req;
  if (!zk::wire::decode(body, req)) return error(Error::kMarshallingError);
  const std::optional<WatcherType> type = watcher_type(req.type);
  if (!type) return error(Error::kMarshallingError);
  return error(watches.remove(req.path, watcher, *type) ? Error::kOk : Error::kNoWatcher);
}

}  // namespace zkd::tree

// SPDX-License-Identifier: Apache-2.0
// The watch requests answered from the watch tables, in request order like
// reads (§4.1, §9.4 of docs/wire-protocol.md; Apache's FinalRequestProcessor):
//   addWatch (106)      AddWatchRequest; reply ErrorResponse{0}. No ACL is
//                       checked when the watch is set; delivery checks READ.
//   checkWatches (17)   WatchesRequest; header only; NOWATCHER when the
//                       connection holds no watch of that type on the path
//   removeWatches (18)  WatchesRequest; header only; NOWATCHER when nothing
//                       was removed
// An undecodable body, an unknown mode or type gives MARSHALLINGERROR, as in
// Apache. The reply's zxid is left 0 for the caller to set.
#pragma once

#include <string_view>

#include "zkd/tree/ids.h"
#include "zkd/tree/results.h"
#include "zkd/tree/watch_manager.h"

namespace zkd::tree {

Response add_watch(WatchManager& watches, WatcherId watcher, std::string_view body);
Response check_watches(const WatchManager& watches, WatcherId watcher, std::string_view body);
Response remove_watches(WatchManager& watches, WatcherId watcher, std::string_view body);

}  // namespace zkd::tree

// SPDX-License-Identifier: Apache-2.0
// check_watches of check_verdict.h.
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "zklab/checker/check_verdict.h"

namespace zk::lab::check {

std::vector<Violation> check_watches(const std::vector<WatchEventRecord>& events,
                                     const std::vector<RegisterOp>& ops) {
  // The acknowledged writes and cas of each register, by zxid.
  std::map<std::string, std::map<int64_t, const RegisterOp*>> acknowledged;
  for (const RegisterOp& op : ops) {
    if (op.kind != RegisterOpKind::kRead && op.outcome == Outcome::kOk && op.zxid > 0) {
      acknowledged[op.key].emplace(op.zxid, &op);
    }
  }
  int order_cases = 0, gap_cases = 0;
  Violation order{"watch", {}, {}}, gap{"watch", {}, {}};
  using Connection = std::pair<int, int>;  // watcher, connection
  std::map<Connection, const WatchEventRecord*> last;
  std::map<std::pair<Connection, std::string>, const WatchEventRecord*> last_of_path;
  for (const WatchEventRecord& e : events) {
    // Apache before 3.9 sends -1: no order to check, nothing to place.
    if (e.zxid < 0) continue;
    const Connection c{e.watcher, e.connection};
    const std::string watcher =
        "watcher " + std::to_string(e.watcher) + ", connection " + std::to_string(e.connection);
    // In zxid order, once each (a multi may fire several paths at one zxid).
    if (const WatchEventRecord* before = std::exchange(last[c], &e);
        before != nullptr &&
        (e.zxid < before->zxid || (e.zxid == before->zxid && e.path == before->path))) {
      if (order_cases++ == 0) {
        order.what = watcher + ": the event of " + e.path + " at zxid " + std::to_string(e.zxid) +
                     " came after the event of " + before->path + " at zxid " +
                     std::to_string(before->zxid);
      }
      continue;
    }
    // No gap: between two events of a path, every acknowledged change of it
    // fired one (the watch was registered before the first of them).
    const WatchEventRecord* before = std::exchange(last_of_path[{c, e.path}], &e);
    if (before == nullptr) continue;
    const auto& changes = acknowledged[e.path];
    auto missed = changes.upper_bound(before->zxid);
    if (missed != changes.end() && missed->first < e.zxid && gap_cases++ == 0) {
      gap.what = watcher + ": no event for " + describe(*missed->second) + " (zxid " +
                 std::to_string(missed->first) +
                 "), between its events of that register at zxids " + std::to_string(before->zxid) +
                 " and " + std::to_string(e.zxid);
    }
  }
  std::vector<Violation> found;
  for (auto [v, cases] : {std::pair{&order, order_cases}, std::pair{&gap, gap_cases}}) {
    if (cases == 0) continue;
    if (cases > 1) v->what += " (and " + std::to_string(cases - 1) + " more like it)";
    found.push_back(std::move(*v));
  }
  return found;
}

}  // namespace zk::lab::check

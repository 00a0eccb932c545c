// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/check_nemesis.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <sstream>
#include <thread>

#include "zklab/tool/check_call.h"
#include "zklab/tool/clock_skew.h"
#include "zklab/tool/lab_membership.h"
#include "zklab/tool/lab_network.h"
#include "zklab/tool/lab_status.h"
#include "zklab/tool/node_faults.h"

namespace zk::lab::check {

namespace {

using Clock = std::chrono::steady_clock;

// The first line of `text`, without its newline.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string group_text(const std::vector<int>& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return "{" + out + "}";
}

}  // namespace

CheckNemesis::CheckNemesis(const LabContext& ctx, std::vector<LabNode> nodes,
                           std::vector<Nemesis> kinds, uint64_t seed)
    : ctx_(ctx), nodes_(std::move(nodes)), kinds_(std::move(kinds)), rng_(seed) {
  if (std::find(kinds_.begin(), kinds_.end(), Nemesis::kCrashpoint) != kinds_.end()) {
    std::string error;
    failpoints_ = zkd_failpoint_names(ctx_.zkd, error);
    if (failpoints_.empty()) fail("crashpoint: " + error);
  }
  if (std::find(kinds_.begin(), kinds_.end(), Nemesis::kSkew) != kinds_.end()) {
    std::string error;
    faketime_ = faketime_library(error);
    if (faketime_.empty()) fail(error);
  }
}

void CheckNemesis::run(Clock::time_point until) {
  if (kinds_.empty()) return;
  while (true) {
    const auto fault_at = Clock::now() + draw(kMinGap, kMaxGap);
    if (fault_at + kMinHold > until) return;
    std::this_thread::sleep_until(fault_at);
    const Nemesis kind = kinds_[std::uniform_int_distribution<size_t>(0, kinds_.size() - 1)(rng_)];
    auto undo = inject(kind);
    if (!undo) continue;
    ++faults_;
    ++counts_[kind];
    std::this_thread::sleep_until(std::min(Clock::now() + draw(kMinHold, kMaxHold), until));
    undo();
  }
}

std::function<void()> CheckNemesis::inject(Nemesis kind) {
  const int n = static_cast<int>(nodes_.size());
  switch (kind) {
    case Nemesis::kKill: {
      const int id = pick_target();
      if (!node_action(NodeAction::kKill, id)) return {};
      return [this, id] { node_action(NodeAction::kStart, id); };
    }
    case Nemesis::kPause: {
      const int id = pick_target();
      if (!node_action(NodeAction::kPause, id)) return {};
      return [this, id] { node_action(NodeAction::kResume, id); };
    }
    case Nemesis::kPartition: {
      if (n < 2) {
        fail("partition: a lab of one node has no link to cut");
        return {};
      }
      std::vector<int> minority;
      if (std::uniform_int_distribution<int>(0, 1)(rng_) == 0) {
        minority = {pick_target()};  // isolate one node
      } else {
        std::vector<int> ids(static_cast<size_t>(n));
        std::iota(ids.begin(), ids.end(), 1);
        std::shuffle(ids.begin(), ids.end(), rng_);
        const int size = std::uniform_int_distribution<int>(1, std::max(1, (n - 1) / 2))(rng_);
        minority.assign(ids.begin(), ids.begin() + size);
        std::sort(minority.begin(), minority.end());
      }
      std::vector<int> rest;
      for (int id = 1; id <= n; ++id) {
        if (std::find(minority.begin(), minority.end(), id) == minority.end()) rest.push_back(id);
      }
      std::string error;
      auto links = partition_links({minority}, n, error);
      if (!links) {
        fail("partition " + group_text(minority) + ": " + error);
        return {};
      }
      if (!cut(*links, "partition " + group_text(minority) + " | " + group_text(rest))) return {};
      return [this] { cut({}, "healed the network"); };
    }
    case Nemesis::kWipe: {
      // The node loses its data and rejoins empty, as after a disk
      // replacement: the quorum that acknowledged a write without it still
      // holds that write.
      const int id = pick_target();
      if (!node_action(NodeAction::kKill, id)) return {};
      wipe(id);
      return [this, id] { node_action(NodeAction::kStart, id); };
    }
    case Nemesis::kCorrupt: {
      // Bytes of the stopped node's newest log segment or snapshot flip; it
      // must recover what the quorum holds or refuse to start, naming the
      // file and offset (then, as an operator would, it is wiped).
      const int id = pick_target();
      if (!node_action(NodeAction::kKill, id)) return {};
      std::string error;
      const auto what =
          corrupt_newest_file(nodes_[static_cast<size_t>(id - 1)].version2_dir(), rng_, error);
      if (!what) {
        fail("corrupt node " + std::to_string(id) + ": " + error);
        node_action(NodeAction::kStart, id);
        return {};
      }
      note("corrupted node " + std::to_string(id) + ": " + *what);
      if (!node_action(NodeAction::kStart, id)) return {};
      return [this, id] { end_corrupt(id); };
    }
    case Nemesis::kCrashpoint: {
      // The node restarts with one failpoint armed to crash at a hit drawn
      // from the first 20: where it dies, nothing acknowledged may be lost.
      if (failpoints_.empty()) return {};
      const int id = pick_target();
      const std::string point =
          failpoints_[std::uniform_int_distribution<size_t>(0, failpoints_.size() - 1)(rng_)];
      const std::string spec =
          point + "=crash@" + std::to_string(std::uniform_int_distribution<int>(1, 20)(rng_));
      if (!node_action(NodeAction::kKill, id)) return {};
      if (!node_action(NodeAction::kStart, id, {"ZKD_FAILPOINTS=" + spec})) return {};
      note("node " + std::to_string(id) + " runs with failpoint " + spec);
      return [this, id, point] { end_crashpoint(id, point); };
    }
    case Nemesis::kSkew: {
      // Jepsen's clock nemesis, without root: the node restarts with its
      // wall clock 30 s to 5 min ahead or behind (its monotonic clock true,
      // clock_skew.h). The wall clock stamps the txns it prepares as leader
      // (ctime, mtime) and its log; timeouts and expiry must not follow it.
      if (faketime_.empty()) return {};
      const int id = pick_target();
      const int64_t magnitude = std::uniform_int_distribution<int64_t>(30, 300)(rng_);
      const int64_t offset =
          std::uniform_int_distribution<int>(0, 1)(rng_) == 0 ? magnitude : -magnitude;
      if (!node_action(NodeAction::kKill, id)) return {};
      if (!node_action(NodeAction::kStart, id, skewed_clock_environment(faketime_, offset))) {
        return {};
      }
      note("node " + std::to_string(id) + " runs with its wall clock " + std::to_string(offset) +
           " s off");
      return [this, id, offset] { end_skew(id, offset); };
    }
    case Nemesis::kReconfig: {
      // The membership changes under the clients: the node (the leader at
      // times: it hands leadership over) is removed by reconfig, as an
      // operator retires a server, and added back when this is undone.
      const int id = pick_target();
      zk::wire::ReconfigRequest request;
      request.leaving = std::to_string(id);
      const ReconfigOutcome done = reconfigure(ctx_, nodes_, request);
      // Removing the leader, the answer may be lost with its epoch.
      if (!done.ok && members().contains(id)) {
        fail("reconfig removing node " + std::to_string(id) + ": " + done.text);
        return {};
      }
      note("removed node " + std::to_string(id) + " by reconfig" +
           (done.ok ? "" : " (the answer was lost: " + done.text + ")"));
      return [this, id] { add_back(id); };
    }
    case Nemesis::kBridge: {
      // Jepsen's bridge: two halves that each reach one node, the bridge,
      // and not each other; with 3 nodes, the bridge alone sees a majority.
      if (n < 3) {
        fail("bridge: a lab of fewer than 3 nodes has no two halves to bridge");
        return {};
      }
      std::vector<int> ids(static_cast<size_t>(n));
      std::iota(ids.begin(), ids.end(), 1);
      std::shuffle(ids.begin(), ids.end(), rng_);
      const int bridge = ids.front();
      const auto middle = ids.begin() + 1 + (n - 1) / 2;
      std::vector<int> left(ids.begin() + 1, middle), right(middle, ids.end());
      std::sort(left.begin(), left.end());
      std::sort(right.begin(), right.end());
      std::set<std::pair<int, int>> links;
      for (int a : left) {
        for (int b : right) links.emplace(std::min(a, b), std::max(a, b));
      }
      if (!cut(links, "bridge " + group_text(left) + " - " + std::to_string(bridge) + " - " +
                          group_text(right))) {
        return {};
      }
      return [this] { cut({}, "healed the network"); };
    }
  }
  return {};
}

int CheckNemesis::pick_target() {
  if (std::uniform_int_distribution<int>(0, 1)(rng_) == 0) {
    for (const auto& s : lab_status(nodes_)) {
      if (s.serving() && s.mode == ServerMode::kLeader) return s.id;
    }
  }
  return std::uniform_int_distribution<int>(1, static_cast<int>(nodes_.size()))(rng_);
}

void CheckNemesis::wipe(int id) {
  // As an operator resyncs a replica: version-2 goes; myid and the
  // ensemble's session.key beside it stay (without the key the node could not
  // check the passwords of resumed sessions).
  const auto data = nodes_[static_cast<size_t>(id - 1)].version2_dir();
  std::error_code ec;
  std::filesystem::remove_all(data, ec);
  if (ec) {
    fail("wipe node " + std::to_string(id) + ": " + ec.message());
  } else {
    note("wiped node " + std::to_string(id) + "'s data (" + data.string() + ")");
  }
}

void CheckNemesis::end_crashpoint(int id, const std::string& point) {
  const std::string node = "node " + std::to_string(id);
  if (lab_status(nodes_)[static_cast<size_t>(id - 1)].alive()) {
    ++outcomes_["crashpoint not reached"];
    node_action(NodeAction::kKill, id);
  } else {
    // zkd's last words before its SIGKILL (failpoint.h).
    const std::string tail = tail_lines(nodes_[static_cast<size_t>(id - 1)].log(), 5);
    const auto at = tail.find("failpoint " + point + ": crash");
    if (at == std::string::npos) {
      fail(node + " exited, not at failpoint " + point + "; the end of its log:\n" + tail);
    } else {
      ++outcomes_["crashpoint fired"];
      note(node + " crashed at failpoint " + point);
    }
  }
  node_action(NodeAction::kStart, id);
}

void CheckNemesis::end_skew(int id, int64_t offset_s) {
  const std::string node = "node " + std::to_string(id);
  // The newest line was written since the start, at most a hold ago.
  const std::string line = tail_lines(nodes_[static_cast<size_t>(id - 1)].log(), 1);
  const auto stamped = log_line_time_s(line);
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  constexpr int64_t kSlack = 10;  // a hold, and the log line's rounding
  if (!stamped || std::abs(*stamped - now - offset_s) > kSlack) {
    fail(node + "'s clock is not " + std::to_string(offset_s) + " s off: its newest log line is " +
         first_line(line));
  } else {
    ++outcomes_["skew: clock shifted"];
    note(node + "'s log runs " + std::to_string(*stamped - now) + " s off");
  }
  node_action(NodeAction::kKill, id);
  node_action(NodeAction::kStart, id);
}

void CheckNemesis::end_corrupt(int id) {
  const std::string node = "node " + std::to_string(id);
  std::ostringstream out, err;
  const LabContext quiet{ctx_.dir, ctx_.zkd, ctx_.deadline, out, err};
  const std::string error = wait_serving(quiet, nodes_, {id}, false);
  if (error.empty()) {
    ++outcomes_["corrupt: started"];
    note(node + " serves after the corruption");
    return;
  }
  if (lab_status(nodes_)[static_cast<size_t>(id - 1)].alive()) {
    fail(node + " does not serve after the corruption: " + error);
    return;
  }
  // zkd's refusal (main.cc) names the file and the offset.
  const std::string tail = tail_lines(nodes_[static_cast<size_t>(id - 1)].log(), 20);
  const auto at = tail.rfind("cannot recover the data: ");
  if (at == std::string::npos) {
    fail(node + " exited after the corruption without naming it; the end of its log:\n" + tail);
  } else {
    ++outcomes_["corrupt: refused to start"];
    note(node + " refused to start: " + first_line(tail.substr(at)));
  }
  wipe(id);
  node_action(NodeAction::kStart, id);
}

bool CheckNemesis::node_action(NodeAction action, int id, std::vector<std::string> environment) {
  std::ostringstream out, err;
  const LabContext quiet{ctx_.dir, ctx_.zkd, ctx_.deadline, out, err, std::move(environment)};
  if (lab_node(quiet, action, std::to_string(id), /*wait=*/false) == LabExit::kOk) {
    note(first_line(out.str()));
    return true;
  }
  fail("node " + std::to_string(id) + ": " + first_line(err.str()));
  return false;
}

bool CheckNemesis::cut(const std::set<std::pair<int, int>>& links, const std::string& what) {
  NetworkFaults faults;
  faults.cut = links;
  if (auto error = set_network(ctx_.dir, faults, ctx_.deadline); !error.empty()) {
    fail(what + ": " + error);
    return false;
  }
  note(what);
  return true;
}

std::string CheckNemesis::heal() {
  for (const auto& s : lab_status(nodes_)) {
    if (s.state == DaemonState::kStopped) node_action(NodeAction::kResume, s.id);
    if (!s.alive()) node_action(NodeAction::kStart, s.id);
  }
  if (std::find(kinds_.begin(), kinds_.end(), Nemesis::kReconfig) != kinds_.end()) {
    const std::set<int> now = members();
    for (const LabNode& n : nodes_) {
      if (!now.empty() && !now.contains(n.id)) add_back(n.id);
    }
  }
  const auto cuts_links = [](Nemesis k) {
    return k == Nemesis::kPartition || k == Nemesis::kBridge;
  };
  if (std::any_of(kinds_.begin(), kinds_.end(), cuts_links)) cut({}, "healed the network");
  auto error = wait_serving(ctx_, nodes_, node_ids(nodes_), true);
  note(error.empty() ? "every node serves under one leader" : "the lab did not recover: " + error);
  return error;
}

std::set<int> CheckNemesis::members() {
  std::set<int> ids;
  for (const auto& id : lab_member_ids(ctx_, nodes_)) ids.insert(id);
  return ids;
}

bool CheckNemesis::add_back(int id) {
  zk::wire::ReconfigRequest request;
  const LabNode& node = nodes_[static_cast<size_t>(id - 1)];
  request.joining = lab_server_line(node, node.observer);
  const ReconfigOutcome done =
      reconfigure_until(ctx_, nodes_, request, [&] { return members().contains(id); });
  if (!done.ok) {
    fail("reconfig adding node " + std::to_string(id) + " back: " + done.text);
    return false;
  }
  note("added node " + std::to_string(id) + " back by reconfig");
  return true;
}

void CheckNemesis::note(std::string what) { log_.push_back({steady_now_ns(), std::move(what)}); }

void CheckNemesis::fail(std::string what) {
  errors_.push_back(what);
  note("FAILED: " + std::move(what));
}

std::chrono::milliseconds CheckNemesis::draw(std::chrono::milliseconds lo,
                                             std::chrono::milliseconds hi) {
  return std::chrono::milliseconds(
      std::uniform_int_distribution<int64_t>(lo.count(), hi.count())(rng_));
}

}  // namespace zk::lab::check

// SPDX-License-Identifier: Apache-2.0
#include "tests/zab/harness.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "tests/zab/observer_rules.h"

namespace zkd::zab::test {

namespace {

std::vector<std::string> split(const std::string& s, char sep = ' ') {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) {
    if (!cur.empty()) out.push_back(cur);
  }
  return out;
}

Zxid parse_zxid(const std::string& s) {
  const auto colon = s.find(':');
  if (colon == std::string::npos) throw std::runtime_error("bad zxid " + s);
  return make_zxid(std::stoll(s.substr(0, colon)),
                   static_cast<uint32_t>(std::stoul(s.substr(colon + 1))));
}

std::string zxids(const std::vector<Entry>& entries) {
  std::string s;
  for (const Entry& e : entries) s += (s.empty() ? "" : " ") + zxid_string(e.zxid);
  return s;
}

std::string zxid_str(Zxid z) { return zxid_string(z); }

std::vector<ServerId> ids(const std::string& list) {
  std::vector<ServerId> out;
  for (const auto& id : split(list, ',')) out.push_back(std::stoll(id));
  return out;
}

std::string id_list(const std::vector<ServerId>& ids) {
  std::string s;
  for (ServerId id : ids) s += (s.empty() ? "" : ",") + std::to_string(id);
  return s;
}

// "members:1,2,3/5": voters 1, 2, 3 and observer 5.
std::optional<Membership> membership_of(const Entry& e) {
  static constexpr std::string_view kPrefix = "members:";
  if (!e.payload.view().starts_with(kPrefix)) return std::nullopt;
  const std::string text(e.payload.view().substr(kPrefix.size()));
  const auto slash = text.find('/');
  Membership m{ids(text.substr(0, slash))};
  if (slash != std::string::npos) m.observers = ids(text.substr(slash + 1));
  return m;
}

std::string membership_text(const Membership& m) {
  return id_list(m.voters) + (m.observers.empty() ? "" : "/" + id_list(m.observers));
}

// The membership a state machine holds: its last reconfiguration's, and
// that one's zxid.
std::optional<std::pair<Membership, Zxid>> membership_in(const std::vector<Entry>& state) {
  for (auto it = state.rbegin(); it != state.rend(); ++it) {
    if (auto m = membership_of(*it)) return std::make_pair(std::move(*m), it->zxid);
  }
  return std::nullopt;
}

}  // namespace

Harness::Node& Harness::node(const std::string& id) {
  auto it = nodes_.find(std::stoll(id));
  if (it == nodes_.end()) throw std::runtime_error("no replica " + id);
  return it->second;
}

std::string Harness::run(const std::string& line) {
  out_.clear();
  pings_ = dropped_ = 0;
  const auto args = split(line);
  const std::string& cmd = args.at(0);
  try {
    if (cmd == "create") {
      create(args);
    } else if (cmd == "store") {
      Node& n = node(args.at(1));
      if (n.core) throw std::runtime_error("store needs a down replica");
      for (size_t i = 2; i < args.size(); ++i) {
        const auto eq = args[i].find('=');
        const std::string k = args[i].substr(0, eq), v = args[i].substr(eq + 1);
        if (k == "accepted") n.disk.hard.accepted_epoch = std::stoll(v);
        if (k == "current") n.disk.hard.current_epoch = std::stoll(v);
        if (k == "base") n.disk.base = parse_zxid(v);
        if (k == "log") {
          n.disk.log.clear();
          for (const auto& z : split(v, ',')) n.disk.log.push_back({parse_zxid(z), "t" + z});
        }
        if (k == "applied") {
          n.applied.clear();
          for (const Entry& e : n.disk.log) {
            if (e.zxid <= parse_zxid(v)) n.applied.push_back(e);
          }
        }
      }
      n.disk.durable = n.disk.log.empty() ? n.disk.base : n.disk.log.back().zxid;
    } else if (cmd == "start" || cmd == "restart") {
      for (size_t i = 1; i < args.size(); ++i) start(std::stoll(args[i]));
      settle();
    } else if (cmd == "crash") {
      for (size_t i = 1; i < args.size(); ++i) crash(std::stoll(args[i]));
    } else if (cmd == "tick") {
      const int k = args.size() > 1 ? std::stoi(args[1]) : 1;
      for (int i = 0; i < k; ++i) tick_all();
    } else if (cmd == "deliver") {
      deliver(args.size() > 1 ? std::stoi(args[1]) : 1000);
    } else if (cmd == "run") {
      const int k = args.size() > 1 ? std::stoi(args[1]) : 1;
      for (int i = 0; i < k; ++i) {
        tick_all();
        deliver(1000);
      }
    } else if (cmd == "propose") {
      Node& n = node(args.at(1));
      for (size_t i = 2; i < args.size(); ++i) {
        const Proposed p = n.core->propose(args[i]);
        out_.push_back(args[1] + ": propose " + args[i] + " -> " +
                       (p.ok() ? zxid_str(p.zxid) : std::string(to_string(p.error))));
      }
      settle();
    } else if (cmd == "transfer") {
      // transfer N [TO]: node N, leading, hands leadership to TO (0: its pick).
      Node& n = node(args.at(1));
      const ServerId to = args.size() > 2 ? std::stoll(args[2]) : 0;
      out_.push_back(args[1] + ": transfer " + std::to_string(to) + " -> " +
                     to_string(n.core->transfer(to)));
      settle();
    } else if (cmd == "reconfig") {
      // reconfig N V,V[/O,O]: leader N proposes that membership.
      Node& n = node(args.at(1));
      const std::string payload = "members:" + args.at(2);
      const Error check = n.core->reconfigurable(*membership_of(Entry{0, payload}));
      const Proposed p = check == Error::kOk ? n.core->propose(payload) : Proposed{0, check};
      out_.push_back(args[1] + ": reconfig " + args[2] + " -> " +
                     (p.ok() ? zxid_str(p.zxid) : std::string(to_string(p.error))));
      settle();
    } else if (cmd == "forward") {
      const Error e = node(args.at(1)).core->forward(args.at(2));
      out_.push_back(args[1] + ": forward " + args[2] + " -> " + to_string(e));
      settle();
    } else if (cmd == "sync") {
      const Error e = node(args.at(1)).core->sync(std::stoull(args.at(2)));
      out_.push_back(args[1] + ": sync " + args[2] + " -> " + to_string(e));
      settle();
    } else if (cmd == "persist") {
      Node& n = node(args.at(1));
      Zxid upto = n.disk.log.empty() ? n.disk.base : n.disk.log.back().zxid;
      if (args.size() > 2) upto = std::min(upto, parse_zxid(args[2]));
      n.disk.durable = std::max(n.disk.durable, upto);
      out_.push_back(args[1] + ": persisted " + zxid_str(upto));
      n.core->persisted(upto);
      settle();
    } else if (cmd == "linkdown") {
      // linkdown A B: A's host saw its connection to B close.
      node(args.at(1)).core->link_down(std::stoll(args.at(2)));
      out_.push_back(args[1] + ": link to " + args[2] + " down");
      settle();
    } else if (cmd == "autopersist") {
      node(args.at(1)).autopersist = args.at(2) == "on";
    } else if (cmd == "partition") {
      std::vector<std::vector<ServerId>> groups(1);
      for (size_t i = 1; i < args.size(); ++i) {
        if (args[i] == "/") {
          groups.emplace_back();
        } else {
          groups.back().push_back(std::stoll(args[i]));
        }
      }
      for (size_t g = 0; g < groups.size(); ++g) {
        for (size_t h = 0; h < groups.size(); ++h) {
          if (g == h) continue;
          for (ServerId a : groups[g]) {
            for (ServerId b : groups[h]) {
              cut_.insert({a, b});
              dropped_ += static_cast<int>(links_[{a, b}].size());
              links_[{a, b}].clear();
            }
          }
        }
      }
    } else if (cmd == "heal") {
      cut_.clear();
    } else if (cmd == "log") {
      Node& n = node(args.at(1));
      out_.push_back(args[1] + ": base " + zxid_str(n.disk.base) + " log [" + zxids(n.disk.log) +
                     "] durable " + zxid_str(n.disk.durable) + " applied [" + zxids(n.applied) +
                     "]");
    } else {
      throw std::runtime_error("unknown command " + cmd);
    }
  } catch (const std::exception& e) {
    out_.push_back(std::string("error: ") + e.what());
  }
  check_invariants();
  if (pings_ > 0) out_.push_back("(" + std::to_string(pings_) + " pings)");
  if (dropped_ > 0) out_.push_back("(" + std::to_string(dropped_) + " messages dropped)");
  std::string text;
  for (const auto& l : out_) text += l + "\n";
  return text + state();
}

void Harness::create(const std::vector<std::string>& args) {
  const int n = std::stoi(args.at(1));
  bool down = false;
  base_config_.observers.clear();
  base_config_.membership_of = membership_of;
  std::vector<std::pair<ServerId, bool>> spares;  // id, voter
  for (size_t i = 2; i < args.size(); ++i) {
    if (args[i] == "down") {
      down = true;
      continue;
    }
    const auto eq = args[i].find('=');
    const std::string k = args[i].substr(0, eq);
    if (k == "observers") {
      base_config_.observers = ids(args[i].substr(eq + 1));
      continue;
    }
    if (k == "spare" || k == "spare-observer") {
      for (ServerId id : ids(args[i].substr(eq + 1))) spares.emplace_back(id, k == "spare");
      continue;
    }
    const long v = std::stol(args[i].substr(eq + 1));
    if (k == "finalize") base_config_.finalize_ticks = static_cast<int>(v);
    if (k == "resend") base_config_.vote_resend_ticks = static_cast<int>(v);
    if (k == "init") base_config_.init_limit = static_cast<int>(v);
    if (k == "sync") base_config_.sync_limit = static_cast<int>(v);
    if (k == "busy") base_config_.busy_limit = static_cast<int>(v);
    if (k == "quorum-sync") base_config_.quorum_sync = v != 0;
    if (k == "window") base_config_.commit_window = static_cast<size_t>(v);
    if (k == "max-counter") base_config_.max_counter = static_cast<uint32_t>(v);
  }
  base_config_.voters.clear();
  for (int i = 1; i <= n; ++i) base_config_.voters.push_back(i);
  const Membership initial{base_config_.voters, base_config_.observers};
  for (int i = 1; i <= n; ++i) nodes_[i].own = initial;
  for (ServerId o : base_config_.observers) nodes_[o].own = initial;
  Membership with_spares = initial;  // what the operator starting them wrote
  for (const auto& [s, voter] : spares) {
    (voter ? with_spares.voters : with_spares.observers).push_back(s);
  }
  for (const auto& [s, voter] : spares) nodes_[s].own = with_spares;
  if (!down) {
    for (auto& [id, node] : nodes_) {
      if (std::none_of(spares.begin(), spares.end(),
                       [&](const auto& s) { return s.first == id; })) {
        start(id);
      }
    }
    settle();
  }
}

// A committed entry is durable on a quorum of `voters` (observers never
// count).
bool Harness::durable_on_voter_quorum(const Entry& e, const std::vector<ServerId>& voters) const {
  size_t holders = 0;
  for (ServerId v : voters) {
    const auto it = nodes_.find(v);
    if (it == nodes_.end()) continue;
    const Disk& d = it->second.disk;
    const bool has = e.zxid <= d.base ||
                     (e.zxid <= d.durable && std::any_of(d.log.begin(), d.log.end(),
                                                         [&](const Entry& l) { return l == e; }));
    if (has) ++holders;
  }
  return holders >= quorum_size(voters.size());
}

void Harness::start(ServerId id) {
  Node& n = nodes_.at(id);
  if (n.core) throw std::runtime_error("replica " + std::to_string(id) + " is up");
  Config c = base_config_;
  c.id = id;
  // The membership at its snapshot: a reconfiguration's, else its own.
  const auto at_base = membership_in(n.disk.snapshot);
  c.voters = at_base ? at_base->first.voters : n.own.voters;
  c.observers = at_base ? at_base->first.observers : n.own.observers;
  c.membership_version = at_base ? at_base->second : 0;
  if (const std::string err = validate(c); !err.empty()) throw std::runtime_error(err);
  Bootstrap b{.hard_state = n.disk.hard,
              .base = n.disk.base,
              .entries = n.disk.log,
              .applied = n.applied.empty() ? n.disk.base : n.applied.back().zxid,
              .incarnation = ++n.starts};
  n.core = std::make_unique<Zab>(std::move(c), std::move(b));
}

// The replica loses its memory and every log write that was not durable.
void Harness::crash(ServerId id) {
  Node& n = nodes_.at(id);
  n.core.reset();
  std::erase_if(n.disk.log, [&](const Entry& e) { return e.zxid > n.disk.durable; });
  // The state machine comes back from the snapshot and the durable log.
  std::erase_if(n.applied, [&](const Entry& e) { return e.zxid > n.disk.durable; });
  for (auto& [link, q] : links_) {
    if (link.first == id || link.second == id) {
      dropped_ += static_cast<int>(q.size());
      q.clear();
    }
  }
  out_.push_back(std::to_string(id) + ": crashed");
}

void Harness::handle_ready(ServerId id) {
  Node& n = nodes_.at(id);
  Ready r = n.core->ready();
  const std::string who = std::to_string(id) + ": ";
  if (r.status) {
    out_.push_back(who + "status " + to_string(r.status->role) + " leader=" +
                   std::to_string(r.status->leader) + " epoch=" + std::to_string(r.status->epoch) +
                   (r.status->serving ? " serving" : ""));
  }
  if (r.hard_state) {
    n.disk.hard = *r.hard_state;
    out_.push_back(who + "persist accepted=" + std::to_string(r.hard_state->accepted_epoch) +
                   " current=" + std::to_string(r.hard_state->current_epoch));
  }
  if (r.install_snapshot) {
    const Zxid s = *r.install_snapshot;
    const Zxid got = n.incoming_snapshot.empty() ? 0 : n.incoming_snapshot.back().zxid;
    if (got != s) violation(who + "snapshot at " + zxid_str(got) + " != " + zxid_str(s));
    n.applied = n.incoming_snapshot;
    n.disk.snapshot = n.incoming_snapshot;
    n.disk.base = s;
    n.disk.log.clear();
    n.disk.durable = s;
    out_.push_back(who + "install snapshot " + zxid_str(s));
  }
  if (r.truncate_after) {
    const Zxid t = *r.truncate_after;
    std::erase_if(n.disk.log, [&](const Entry& e) { return e.zxid > t; });
    n.disk.durable = std::min(n.disk.durable, t);
    const size_t before = n.applied.size();
    std::erase_if(n.applied, [&](const Entry& e) { return e.zxid > t; });
    out_.push_back(who + "truncate after " + zxid_str(t) +
                   (before != n.applied.size() ? " (state rebuilt)" : ""));
  }
  if (!r.entries.empty()) {
    for (const Entry& e : r.entries) {
      const Zxid last = n.disk.log.empty() ? n.disk.base : n.disk.log.back().zxid;
      if (e.zxid <= last)
        violation(who + "append " + zxid_str(e.zxid) + " after " + zxid_str(last));
      n.disk.log.push_back(e);
    }
    out_.push_back(who + "append " + zxids(r.entries));
  }
  if (!r.committed.empty()) {
    for (const Entry& e : r.committed) {
      if (!n.applied.empty() && e.zxid <= n.applied.back().zxid) {
        violation(who + "apply " + zxid_str(e.zxid) + " out of order");
      }
      if (!durable_on_voter_quorum(e, membership_view(*n.core).voters)) {
        violation(who + "apply " + zxid_str(e.zxid) + " not durable on a quorum of voters");
      }
      n.applied.push_back(e);
    }
    out_.push_back(who + "apply " + zxids(r.committed));
  }
  for (const Message& m : r.messages) {
    if (m.to == id) violation(who + "message to self");
    if (const std::string broken = broken_observer_rule(membership_view(*n.core), id, m);
        !broken.empty()) {
      violation(who + broken);
    }
    if (m.type == MsgType::kPing && !m.busy) {
      ++pings_;
    } else {
      out_.push_back(std::to_string(id) + "->" + std::to_string(m.to) + " " + describe(m));
    }
    InFlight f{m, {}};
    if (m.type == MsgType::kSnap) {
      const Zxid have = n.applied.empty() ? 0 : n.applied.back().zxid;
      if (have != m.zxid) violation(who + "snapshot wanted at " + zxid_str(m.zxid));
      f.snapshot = n.applied;
    }
    auto dest = nodes_.find(m.to);
    if (cut_.contains({id, m.to}) || dest == nodes_.end() || !dest->second.core) {
      ++dropped_;
    } else {
      links_[{id, m.to}].push_back(std::move(f));
    }
  }
  for (const Request& q : r.requests) {
    out_.push_back(who + "request from " + std::to_string(q.from) + ": " + q.payload);
  }
  for (uint64_t s : r.syncs_done) out_.push_back(who + "sync " + std::to_string(s) + " done");
  for (uint64_t s : r.syncs_failed) out_.push_back(who + "sync " + std::to_string(s) + " failed");
  n.core->advance();
  if (r.install_snapshot) {
    auto members = membership_in(n.disk.snapshot);
    n.core->snapshot_installed(*r.install_snapshot,
                               members ? std::optional(members->first) : std::nullopt,
                               members ? members->second : 0);
  }
  if (n.autopersist && !r.entries.empty()) {
    n.disk.durable = n.disk.log.back().zxid;
    n.core->persisted(n.disk.durable);
  }
}

void Harness::settle() {
  for (int guard = 0; guard < 10000; ++guard) {
    bool any = false;
    for (auto& [id, n] : nodes_) {
      if (n.core && n.core->has_ready()) {
        handle_ready(id);
        any = true;
      }
    }
    if (!any) return;
  }
  violation("Ready never settles");
}

void Harness::tick_all() {
  for (auto& [id, n] : nodes_) {
    if (n.core) n.core->tick();
  }
  settle();
}

void Harness::deliver(int max_rounds) {
  for (int round = 0; round < max_rounds; ++round) {
    std::vector<std::pair<ServerId, InFlight>> batch;
    for (auto& [link, q] : links_) {
      for (auto& f : q) batch.emplace_back(link.second, std::move(f));
      q.clear();
    }
    if (batch.empty()) return;
    for (auto& [to, f] : batch) {
      Node& n = nodes_.at(to);
      if (!n.core || cut_.contains({f.m.from, to})) {
        ++dropped_;
        continue;
      }
      if (f.m.type == MsgType::kSnap) n.incoming_snapshot = f.snapshot;
      n.core->step(f.m);
      settle();
    }
    check_invariants();
  }
}

void Harness::violation(const std::string& what) {
  out_.push_back("VIOLATION: " + what);
  violations_.push_back(what);
}

// After every step: every replica (observers too) applied a prefix of one
// sequence; an observer never leads; at most one leader is established per
// epoch; an established leader holds every entry any replica applied. (When
// applied, each entry was durable on a quorum of voters: handle_ready.)
void Harness::check_invariants() {
  for (auto& [id, n] : nodes_) {
    const auto& a = n.applied;
    const size_t common = std::min(a.size(), history_.size());
    if (!std::equal(a.begin(), a.begin() + static_cast<long>(common), history_.begin())) {
      violation(std::to_string(id) + " applied a different sequence");
      continue;
    }
    if (a.size() > history_.size()) history_ = a;
  }
  for (auto& [id, n] : nodes_) {
    if (!n.core) continue;
    const Status s = n.core->status();
    // An observer in its own view: a reconfiguration may change its part.
    if (test::is_observer(membership_view(*n.core), id) && s.role != Role::kLooking &&
        s.role != Role::kObserving) {
      violation("observer " + std::to_string(id) + " is " + to_string(s.role));
    }
    if (s.role != Role::kLeading || !s.serving) continue;
    auto [it, fresh] = leaders_.emplace(s.epoch, id);
    if (!fresh && it->second != id) {
      violation("two leaders in epoch " + std::to_string(s.epoch));
    }
    for (const Entry& e : history_) {
      if (e.zxid <= n.disk.base) continue;
      const bool has =
          std::any_of(n.disk.log.begin(), n.disk.log.end(), [&](const Entry& l) { return l == e; });
      if (!has) violation("leader " + std::to_string(id) + " lacks committed " + zxid_str(e.zxid));
    }
  }
}

std::string Harness::state() const {
  std::string s;
  for (const auto& [id, n] : nodes_) {
    s += std::to_string(id) + " ";
    if (!n.core) {
      s += "down\n";
      continue;
    }
    const Zab& z = *n.core;
    const Status st = z.status();
    s += std::string(to_string(st.role));
    if (st.role != Role::kLooking) s += " leader=" + std::to_string(st.leader);
    s += " epoch=" + std::to_string(z.hard_state().accepted_epoch) + "/" +
         std::to_string(z.hard_state().current_epoch) + " last=" + zxid_str(z.last_zxid()) +
         " durable=" + zxid_str(z.durable_zxid()) + " commit=" + zxid_str(z.committed_zxid()) +
         " applied=" + zxid_str(n.applied.empty() ? n.disk.base : n.applied.back().zxid);
    if (st.serving) s += " serving";
    const Membership committed{z.config().voters, z.config().observers};
    if (committed != n.own) s += " members=" + membership_text(committed);
    if (const auto& next = z.next_membership()) {
      s += " next=" + membership_text(next->members) + "@" + zxid_str(next->zxid);
    }
    if (st.role == Role::kLooking) {
      s += " vote=" + std::to_string(z.vote().leader) + "@" + zxid_str(z.vote().zxid) +
           " round=" + std::to_string(z.round());
    }
    s += "\n";
  }
  size_t flying = 0;
  for (const auto& [link, q] : links_) flying += q.size();
  if (flying > 0) s += "in flight: " + std::to_string(flying) + "\n";
  return s;
}

}  // namespace zkd::zab::test

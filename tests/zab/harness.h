// SPDX-License-Identifier: Apache-2.0
// A test harness for the Zab core: N replicas, each with an in-memory "disk"
// (hard state, log, durable point) and "state machine" (the applied entries),
// connected by FIFO links that can be cut. It runs one script command at a
// time and returns what happened, then the state of every replica, and checks
// the protocol invariants after every step (a violation is printed), for
// observers too, plus the observers' message rules (observer_rules.h).
//
// Commands (one per line in testdata/*.txt):
//   create N [down] [observers=ID,ID...] [finalize=T] [resend=T] [init=T] [sync=T]
//          [busy=T] [quorum-sync=0|1] [window=K] [max-counter=C]
//          [spare=ID,ID...] [spare-observer=ID,...]
//          voters 1..N; observers with ids > N; spares are down, outside the
//          membership, and take themselves (all spares) for voters
//          (observers) of it (servers an operator starts in order to add)
//   store ID accepted=E current=E [base=Z] [log=Z,Z,...] [applied=Z]   (down replicas)
//   start ID... | restart ID... | crash ID...
//   tick [K]                 tick every live replica K times (messages stay queued)
//   deliver [ROUNDS]         deliver queued messages until none are left
//   run K                    K times: tick, deliver
//   propose ID PAYLOAD...    forward ID PAYLOAD    sync ID REQUEST_ID
//   transfer ID [TO]         leader ID hands leadership to TO (0 or none: its pick)
//   reconfig ID V,V,...[/O,O...]  leader ID proposes the membership: voters V,
//                            observers O (an entry "members:V,V/O,O")
//   persist ID [ZXID]        autopersist ID on|off
//   linkdown A B             A's host saw its connection to B close
//   partition A B / C ...    heal
//   log ID
// Zxids are written epoch:counter. Pings are counted, not printed, except
// busy ones (Message::busy).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "zkd/zab/zab.h"

namespace zkd::zab::test {

class Harness {
 public:
  // Runs one command; the text to compare with the transcript.
  std::string run(const std::string& line);
  // Invariant violations seen so far.
  const std::vector<std::string>& violations() const { return violations_; }

 private:
  struct Disk {
    HardState hard;
    Zxid base = 0;
    std::vector<Entry> log;
    Zxid durable = 0;
    std::vector<Entry> snapshot;  // the state machine at `base`
  };
  struct Node {
    std::unique_ptr<Zab> core;  // null while down
    Disk disk;
    std::vector<Entry> applied;  // the state machine
    bool autopersist = true;
    std::vector<Entry> incoming_snapshot;
    uint32_t starts = 0;
    Membership own;  // the membership its configuration names
  };
  struct InFlight {
    Message m;
    std::vector<Entry> snapshot;  // a Snap message's attachment
  };

  void create(const std::vector<std::string>& args);
  void start(ServerId id);
  void crash(ServerId id);
  void handle_ready(ServerId id);
  void settle();
  void deliver(int max_rounds);
  void tick_all();
  void check_invariants();
  bool durable_on_voter_quorum(const Entry& e, const std::vector<ServerId>& voters) const;
  void violation(const std::string& what);
  std::string state() const;
  Node& node(const std::string& id);

  Config base_config_;
  std::map<ServerId, Node> nodes_;
  std::map<std::pair<ServerId, ServerId>, std::vector<InFlight>> links_;
  std::set<std::pair<ServerId, ServerId>> cut_;
  std::vector<std::string> out_;
  int pings_ = 0;
  int dropped_ = 0;
  std::vector<Entry> history_;         // the longest applied sequence seen
  std::map<Epoch, ServerId> leaders_;  // established leader per epoch
  std::vector<std::string> violations_;
};

}  // namespace zkd::zab::test

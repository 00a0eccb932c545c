// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/check_report.h"

#include <array>
#include <ios>
#include <set>

namespace zk::lab::check {

namespace {

using Counts = std::array<int64_t, 3>;  // by Outcome

size_t index(Outcome o) { return static_cast<size_t>(o); }

void print_line(std::ostream& out, std::string_view kind, const Counts& c) {
  out << "ops: " << kind << " ok=" << c[index(Outcome::kOk)]
      << " failed=" << c[index(Outcome::kFailed)] << " unknown=" << c[index(Outcome::kUnknown)]
      << "\n";
}

std::string time_text(int64_t ns, int64_t origin_ns) {
  return ns == kNever ? "never" : std::to_string(ns - origin_ns);
}

}  // namespace

void print_counts(std::ostream& out, const History& history) {
  std::array<Counts, 3> registers{};  // by RegisterOpKind
  for (const auto& op : history.registers) {
    ++registers[static_cast<size_t>(op.kind)][index(op.outcome)];
  }
  Counts creates{};
  for (const auto& c : history.creates) ++creates[index(c.outcome)];
  for (auto kind : {RegisterOpKind::kRead, RegisterOpKind::kWrite, RegisterOpKind::kCas}) {
    print_line(out, kind_name(kind), registers[static_cast<size_t>(kind)]);
  }
  print_line(out, "create", creates);
  int64_t ended = 0;
  for (const auto& e : history.ephemerals) ended += e.session_ended ? 1 : 0;
  out << "ephemerals: " << history.ephemerals.size() << " (" << ended << " sessions ended, "
      << static_cast<int64_t>(history.ephemerals.size()) - ended << " alive)\n";
  std::set<std::pair<int, int>> connections;
  int64_t without_zxid = 0;
  for (const auto& e : history.watch_events) {
    connections.emplace(e.watcher, e.connection);
    if (e.zxid < 0) ++without_zxid;
  }
  out << "watch events: " << history.watch_events.size() << " (" << connections.size()
      << " connections";
  // An Apache 3.8 server's (a mixed lab's) carry no zxid: check_watches skips them.
  if (without_zxid > 0) out << "; " << without_zxid << " without a zxid, not checked";
  out << ")\n";
}

std::string verdict_line(const Verdict& verdict) {
  if (verdict.ok()) return "verdict: ok";
  std::set<std::string> what;  // sorted: the same verdict prints the same line
  for (const auto& v : verdict.violations) {
    if (v.kind == "linearizability") {
      what.insert(v.what.find("inconclusive") != std::string::npos ? "INCONCLUSIVE"
                                                                   : "NOT LINEARIZABLE");
    } else if (v.kind == "sequential") {
      what.insert("SEQUENTIAL NAMES WRONG");
    } else if (v.kind == "ephemeral") {
      what.insert("EPHEMERALS WRONG");
    } else if (v.kind == "watch") {
      what.insert("WATCH EVENTS WRONG");
    } else {
      what.insert(v.kind);
    }
  }
  std::string line = "verdict: ";
  for (const auto& w : what) line += (line.size() > 9 ? ", " : "") + w;
  return line + " (" + std::to_string(verdict.violations.size()) + " violation" +
         (verdict.violations.size() == 1 ? "" : "s") + ")";
}

void print_violations(std::ostream& out, const Verdict& verdict, int64_t origin_ns) {
  int n = 0;
  for (const auto& v : verdict.violations) {
    out << "violation " << ++n << " (" << v.kind << "): " << v.what << "\n";
    if (v.window.empty()) continue;
    out << "  window (" << v.window.size() << " operations):\n";
    for (const auto& op : v.window) out << "    " << describe(op, origin_ns) << "\n";
  }
}

void write_history(std::ostream& out, const History& history, int64_t origin_ns) {
  for (const auto& op : history.registers) {
    out << "register " << op.client << " " << op.key << " " << kind_name(op.kind) << " " << op.value
        << " " << op.version << " " << outcome_name(op.outcome) << " "
        << time_text(op.invoke_ns, origin_ns) << " " << time_text(op.complete_ns, origin_ns) << " "
        << op.zxid << "\n";
  }
  for (const auto& c : history.creates) {
    out << "create " << c.client << " " << c.parent << " " << c.sequence << " "
        << outcome_name(c.outcome) << " " << time_text(c.invoke_ns, origin_ns) << " "
        << time_text(c.complete_ns, origin_ns) << "\n";
  }
  for (const auto& [parent, sequences] : history.final_children) {
    out << "children " << parent;
    for (int64_t s : sequences) out << " " << s;
    out << "\n";
  }
  for (const auto& e : history.ephemerals) {
    out << "ephemeral " << e.path << " " << std::hex << e.session_id << std::dec << " "
        << (e.session_ended ? "ended" : "alive") << " " << (e.present_at_end ? "present" : "absent")
        << "\n";
  }
  for (const auto& w : history.watch_events) {
    out << "watch " << w.watcher << " " << w.connection << " " << w.path << " " << w.zxid << "\n";
  }
}

}  // namespace zk::lab::check

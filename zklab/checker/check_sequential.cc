// SPDX-License-Identifier: Apache-2.0
#include "zklab/checker/check_verdict.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "zklab/checker/check_text.h"

// check_sequential of check_verdict.h: the sequence numbers of the creates
// under each parent, against real time and the final listing.
namespace zk::lab::check {

namespace {

using detail::interval;

std::string sequence_name(int64_t sequence) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%010lld", static_cast<long long>(sequence));
  return buf;
}

std::string describe_create(const SequentialCreate& c, int64_t origin_ns) {
  std::string text = "c" + std::to_string(c.client) + " create " + c.parent;
  if (c.outcome == Outcome::kOk) text += " -> " + sequence_name(c.sequence);
  return text + " " + interval(c.invoke_ns, c.complete_ns, c.outcome, origin_ns);
}

// "first (and N more)" for a kind of finding that may repeat.
struct Findings {
  std::string first;
  size_t count = 0;
  void add(std::string text) {
    if (count++ == 0) first = std::move(text);
  }
  void report(const std::string& parent, std::vector<Violation>& out) const {
    if (count == 0) return;
    std::string what = parent + ": " + first;
    if (count > 1) what += " (and " + std::to_string(count - 1) + " more like it)";
    out.push_back({"sequential", std::move(what), {}});
  }
};

void check_parent(const std::string& parent, const std::vector<const SequentialCreate*>& creates,
                  const std::vector<int64_t>* listing, int64_t origin_ns,
                  std::vector<Violation>& out) {
  std::vector<const SequentialCreate*> ok;
  std::vector<const SequentialCreate*> unknown;
  for (const SequentialCreate* c : creates) {
    if (c->outcome == Outcome::kOk) ok.push_back(c);
    if (c->outcome == Outcome::kUnknown) unknown.push_back(c);
  }
  // Unique numbers.
  Findings duplicates;
  std::map<int64_t, const SequentialCreate*> by_sequence;
  for (const SequentialCreate* c : ok) {
    auto [it, added] = by_sequence.emplace(c->sequence, c);
    if (!added) {
      duplicates.add(sequence_name(c->sequence) +
                     " was given twice: " + describe_create(*it->second, origin_ns) + " and " +
                     describe_create(*c, origin_ns));
    }
  }
  // Real-time order: sweep the creates by invocation, keeping the largest
  // number given to a create that completed before the current invocation.
  Findings order;
  std::vector<const SequentialCreate*> by_invoke = ok;
  std::vector<const SequentialCreate*> by_complete = ok;
  std::stable_sort(by_invoke.begin(), by_invoke.end(),
                   [](auto* a, auto* b) { return a->invoke_ns < b->invoke_ns; });
  std::stable_sort(by_complete.begin(), by_complete.end(),
                   [](auto* a, auto* b) { return a->complete_ns < b->complete_ns; });
  const SequentialCreate* largest = nullptr;
  size_t done = 0;
  for (const SequentialCreate* c : by_invoke) {
    while (done < by_complete.size() && by_complete[done]->complete_ns < c->invoke_ns) {
      const SequentialCreate* d = by_complete[done++];
      if (!largest || d->sequence > largest->sequence) largest = d;
    }
    if (largest && largest->sequence > c->sequence) {
      order.add(describe_create(*c, origin_ns) + " got a smaller number than " +
                describe_create(*largest, origin_ns) + ", which completed before it was invoked");
    }
  }
  duplicates.report(parent, out);
  order.report(parent, out);
  if (!listing) return;
  // The final listing: every acknowledged create in it...
  std::set<int64_t> listed(listing->begin(), listing->end());
  Findings missing;
  for (const SequentialCreate* c : ok) {
    if (!listed.contains(c->sequence)) {
      missing.add(describe_create(*c, origin_ns) + " is missing from the final listing");
    }
  }
  missing.report(parent, out);
  // ...and every other listed child made by a distinct unknown create, which
  // can only have got a number above those of the creates completed before
  // it was invoked. Greedy by ascending number is an optimal matching: a
  // larger number can use every create a smaller one can.
  // An unknown create's floor: the largest number of the creates completed
  // before it was invoked (a running maximum over by_complete, found by
  // binary search: n log n for the whole parent).
  std::vector<int64_t> largest_by_complete;
  largest_by_complete.reserve(by_complete.size());
  for (const SequentialCreate* c : by_complete) {
    largest_by_complete.push_back(
        std::max(largest_by_complete.empty() ? -1 : largest_by_complete.back(), c->sequence));
  }
  std::vector<int64_t> floors;
  for (const SequentialCreate* u : unknown) {
    const auto before = std::partition_point(
        by_complete.begin(), by_complete.end(),
        [&](const SequentialCreate* c) { return c->complete_ns < u->invoke_ns; });
    const auto n = before - by_complete.begin();
    floors.push_back(n == 0 ? -1 : largest_by_complete[static_cast<size_t>(n - 1)]);
  }
  std::sort(floors.begin(), floors.end());
  Findings unexplained;
  size_t available = 0;
  size_t used = 0;
  for (int64_t s : listed) {
    if (by_sequence.contains(s)) continue;
    while (available < floors.size() && floors[available] < s) ++available;
    if (used < available) {
      ++used;
    } else {
      unexplained.add("the final listing has " + sequence_name(s) +
                      ", which no create could have made");
    }
  }
  unexplained.report(parent, out);
}

}  // namespace

std::vector<Violation> check_sequential(
    const std::vector<SequentialCreate>& creates,
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& final_children) {
  int64_t origin_ns = kNever;
  std::map<std::string, std::vector<const SequentialCreate*>> by_parent;
  for (const SequentialCreate& c : creates) {
    by_parent[c.parent].push_back(&c);
    origin_ns = std::min(origin_ns, c.invoke_ns);
  }
  std::map<std::string, const std::vector<int64_t>*> listings;
  for (const auto& [parent, children] : final_children) {
    listings[parent] = &children;
    by_parent[parent];  // a listed parent nobody created under is checked too
  }
  if (origin_ns == kNever) origin_ns = 0;
  std::vector<Violation> out;
  for (const auto& [parent, parent_creates] : by_parent) {
    auto it = listings.find(parent);
    check_parent(parent, parent_creates, it == listings.end() ? nullptr : it->second, origin_ns,
                 out);
  }
  return out;
}

}  // namespace zk::lab::check

// SPDX-License-Identifier: Apache-2.0
#include "zkd/zab/memory_log.h"

#include <algorithm>
#include <utility>

namespace zkd::zab {

namespace {

bool zxid_less(const Entry& e, Zxid z) { return e.zxid < z; }

}  // namespace

MemoryLog::MemoryLog(Zxid base, std::vector<Entry> entries)
    : base_(base),
      entries_(std::make_move_iterator(entries.begin()), std::make_move_iterator(entries.end())) {}

bool MemoryLog::contains(Zxid zxid) const {
  if (zxid == base_) return true;
  auto it = std::lower_bound(entries_.begin(), entries_.end(), zxid, zxid_less);
  return it != entries_.end() && it->zxid == zxid;
}

std::optional<Zxid> MemoryLog::before(Zxid zxid) const {
  if (zxid <= base_) return std::nullopt;
  auto it = std::lower_bound(entries_.begin(), entries_.end(), zxid, zxid_less);
  if (it == entries_.begin()) return base_;
  return std::prev(it)->zxid;
}

std::vector<Entry> MemoryLog::range(Zxid after, Zxid upto) const {
  std::vector<Entry> out;
  append_range(after, upto, out);
  return out;
}

void MemoryLog::append_range(Zxid after, Zxid upto, std::vector<Entry>& out) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), after,
                             [](Zxid z, const Entry& e) { return z < e.zxid; });
  for (; it != entries_.end() && it->zxid <= upto; ++it) out.push_back(*it);
}

bool MemoryLog::append(Entry entry) {
  if (entry.zxid <= last()) return false;
  entries_.push_back(std::move(entry));
  return true;
}

void MemoryLog::truncate_after(Zxid zxid) {
  if (zxid < base_) {
    reset(zxid);
    return;
  }
  while (!entries_.empty() && entries_.back().zxid > zxid) entries_.pop_back();
}

void MemoryLog::reset(Zxid zxid) {
  entries_.clear();
  base_ = zxid;
}

void MemoryLog::trim(Zxid keep_after, size_t window) {
  auto end = std::upper_bound(entries_.begin(), entries_.end(), keep_after,
                              [](Zxid z, const Entry& e) { return z < e.zxid; });
  size_t old = static_cast<size_t>(end - entries_.begin());
  while (old > window) {
    base_ = entries_.front().zxid;
    entries_.pop_front();
    --old;
  }
}

}  // namespace zkd::zab

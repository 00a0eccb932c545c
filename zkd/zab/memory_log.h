// SPDX-License-Identifier: Apache-2.0
// The core's in-memory view of the replica's log: every entry after `base`
// that the core still holds. `base` is a zxid at which the host's state (or
// snapshot) and the log meet: entries at or before it are not held here.
// Zxids strictly increase. Trimming keeps at least the entries after a given
// zxid (the uncommitted and not yet applied ones) plus a window before it.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <vector>

#include "zkd/zab/types.h"

namespace zkd::zab {

class MemoryLog {
 public:
  MemoryLog() = default;
  MemoryLog(Zxid base, std::vector<Entry> entries);

  Zxid base() const { return base_; }
  Zxid last() const { return entries_.empty() ? base_ : entries_.back().zxid; }
  size_t size() const { return entries_.size(); }

  // True if zxid is base() or the zxid of a held entry.
  bool contains(Zxid zxid) const;
  // The largest of base() and held zxids that is < zxid; nullopt if zxid <= base().
  std::optional<Zxid> before(Zxid zxid) const;
  // Held entries with after < zxid <= upto, in order.
  std::vector<Entry> range(Zxid after, Zxid upto) const;
  // The same, appended to `out`.
  void append_range(Zxid after, Zxid upto, std::vector<Entry>& out) const;

  // Appends; false (and nothing changes) unless entry.zxid > last().
  bool append(Entry entry);
  // Drops entries after zxid. If zxid < base(), the log becomes empty at
  // base zxid.
  void truncate_after(Zxid zxid);
  // Forgets everything: the log is empty at base zxid.
  void reset(Zxid zxid);
  // Drops the oldest entries while more than `window` held entries are
  // <= keep_after; never drops an entry > keep_after.
  void trim(Zxid keep_after, size_t window);

 private:
  Zxid base_ = 0;
  std::deque<Entry> entries_;
};

}  // namespace zkd::zab

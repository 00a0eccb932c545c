// SPDX-License-Identifier: Apache-2.0
// A bounded queue that hands items from one producing thread to one consuming
// thread (the snapshot reader's decoder and linker, snapshot_reader.cc). The
// mutex orders them: whatever the producer wrote before push() the consumer
// sees after the pop() that returns the item.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace zkd::tree {

template <typename T>
class Handoff {
 public:
  explicit Handoff(size_t capacity) : capacity_(capacity) {}

  // Producer: queues `item`, waiting while `capacity` items are queued. False
  // once the consumer has cancelled; `item` is then left with the caller.
  bool push(T& item) {
    std::unique_lock lock(mu_);
    space_.wait(lock, [&] { return items_.size() < capacity_ || cancelled_; });
    if (cancelled_) return false;
    items_.push_back(std::move(item));
    ready_.notify_one();
    return true;
  }
  // Producer: no more items.
  void finish() {
    std::lock_guard lock(mu_);
    finished_ = true;
    ready_.notify_one();
  }

  // Consumer: the next item, waiting for one; nullopt once the producer has
  // finished and every item is taken, or after cancel().
  std::optional<T> pop() {
    std::unique_lock lock(mu_);
    ready_.wait(lock, [&] { return !items_.empty() || finished_ || cancelled_; });
    if (items_.empty() || cancelled_) return std::nullopt;
    std::optional<T> item(std::move(items_.front()));
    items_.pop_front();
    space_.notify_one();
    return item;
  }
  // Consumer: takes no more; the producer's pushes fail from now on.
  void cancel() {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    space_.notify_one();
  }
  // The items never popped (after the producer is done, to free them).
  std::deque<T> drain() {
    std::lock_guard lock(mu_);
    return std::exchange(items_, {});
  }

 private:
  const size_t capacity_;
  std::mutex mu_;
  std::condition_variable ready_;  // an item queued, or finished
  std::condition_variable space_;  // an item taken, or cancelled
  std::deque<T> items_;
  bool finished_ = false;
  bool cancelled_ = false;
};

}  // namespace zkd::tree

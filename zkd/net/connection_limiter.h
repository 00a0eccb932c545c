// SPDX-License-Identifier: Apache-2.0
// The connection limits of one client port, as Apache's connection factory
// keeps them: maxClientCnxns, how many connections one client IP address may
// hold at once, and maxCnxns, how many all addresses may hold together (0 =
// unlimited, each). A connection holds a Slot for as long as it is open; the
// slot gives its place back when it is destroyed or reset.
//
// Threading: not thread-safe; use it from the listener's executor only.
// Slots keep the limiter alive (shared ownership), so they may outlive the
// listener that handed them out.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace zkd::net {

class ConnectionLimiter : public std::enable_shared_from_this<ConnectionLimiter> {
 public:
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept;
    Slot& operator=(Slot&& other) noexcept;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() { release(); }
    void release();

   private:
    friend class ConnectionLimiter;
    Slot(std::shared_ptr<ConnectionLimiter> owner, std::string address)
        : owner_(std::move(owner)), address_(std::move(address)) {}
    std::shared_ptr<ConnectionLimiter> owner_;
    std::string address_;
  };

  static std::shared_ptr<ConnectionLimiter> create(int32_t max_per_address, int32_t max_total = 0) {
    return std::shared_ptr<ConnectionLimiter>(new ConnectionLimiter(max_per_address, max_total));
  }

  enum class Refusal { kPerAddress, kTotal };
  // A slot for one more connection from `address`, or nothing when that
  // address already holds its maximum or all of them hold the total; `why`
  // (when given) then says which.
  std::optional<Slot> acquire(const std::string& address, Refusal* why = nullptr);
  int32_t count(const std::string& address) const;
  int32_t total() const { return total_; }

 private:
  ConnectionLimiter(int32_t max_per_address, int32_t max_total)
      : max_per_address_(max_per_address), max_total_(max_total) {}
  void give_back(const std::string& address);

  int32_t max_per_address_;
  int32_t max_total_;
  int32_t total_ = 0;
  std::map<std::string, int32_t> open_;
};

}  // namespace zkd::net

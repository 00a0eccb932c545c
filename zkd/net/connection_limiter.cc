// SPDX-License-Identifier: Apache-2.0
#include "zkd/net/connection_limiter.h"

#include <utility>

namespace zkd::net {

ConnectionLimiter::Slot::Slot(Slot&& other) noexcept
    : owner_(std::move(other.owner_)), address_(std::move(other.address_)) {
  other.owner_.reset();
}

ConnectionLimiter::Slot& ConnectionLimiter::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::move(other.owner_);
    address_ = std::move(other.address_);
    other.owner_.reset();
  }
  return *this;
}

void ConnectionLimiter::Slot::release() {
  if (owner_) {
    owner_->give_back(address_);
    owner_.reset();
  }
}

std::optional<ConnectionLimiter::Slot> ConnectionLimiter::acquire(const std::string& address,
                                                                  Refusal* why) {
  if (max_total_ > 0 && total_ >= max_total_) {
    if (why != nullptr) *why = Refusal::kTotal;
    return std::nullopt;
  }
  int32_t& n = open_[address];
  if (max_per_address_ > 0 && n >= max_per_address_) {
    if (n == 0) open_.erase(address);
    if (why != nullptr) *why = Refusal::kPerAddress;
    return std::nullopt;
  }
  ++n;
  ++total_;
  return Slot(shared_from_this(), address);
}

int32_t ConnectionLimiter::count(const std::string& address) const {
  auto it = open_.find(address);
  return it == open_.end() ? 0 : it->second;
}

void ConnectionLimiter::give_back(const std::string& address) {
  auto it = open_.find(address);
  if (it == open_.end()) return;
  --total_;
  if (--it->second <= 0) open_.erase(it);
}

}  // namespace zkd::net

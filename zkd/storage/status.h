// SPDX-License-Identifier: Apache-2.0
// Errors of the storage layer: a value, cheap on success, with a message that
// names the file and offset where that helps the operator.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace zkd::storage {

class Status {
 public:
  Status() = default;  // ok
  static Status error(std::string message) { return Status(std::move(message)); }
  bool ok() const { return message_.empty(); }
  const std::string& message() const { return message_; }

 private:
  explicit Status(std::string message) : message_(std::move(message)) {
    if (message_.empty()) message_ = "unknown storage error";
  }
  std::string message_;
};

// A value or a Status that is not ok.
template <typename T>
class StatusOr {
 public:
  StatusOr(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  StatusOr(Status status) : v_(std::move(status)) {}  // NOLINT: must not be ok
  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  // On a temporary StatusOr the value is moved out, not referenced, so
  // `for (auto& x : *read())` cannot dangle.
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T value() && { return std::move(std::get<T>(v_)); }
  T* operator->() { return &value(); }
  T& operator*() & { return value(); }
  T operator*() && { return std::move(std::get<T>(v_)); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace zkd::storage

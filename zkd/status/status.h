// SPDX-License-Identifier: Apache-2.0
// zkd's one error type, from the storage layer to the server: a value, cheap
// on success, with a message for the operator (naming the file and offset,
// or the zoo.cfg file, line and key, where that helps) and a kind that says
// what the error comes to. Every part of zkd that can fail returns a Status
// or a StatusOr<T>; exceptions stay inside the part that catches them, and
// boost::system::error_code inside the network code that Asio calls back.
// [[nodiscard]]: an error is never dropped silently.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace zkd {

class [[nodiscard]] Status {
 public:
  // What kind of error, for whoever decides what it comes to (zkd's exit
  // status, zkd(8)): the data cannot be read or written (kIo) or can be read
  // but not used (kCorruption: a damaged log, snapshot or tree); the
  // configuration cannot be carried out (kConfig: zoo.cfg, myid, JAAS,
  // keystores); a value handed in is malformed (kInvalidArgument: a server
  // line, a snapshot streamed by a peer or an operator).
  enum class Kind { kOk, kIo, kCorruption, kConfig, kInvalidArgument };

  Status() = default;  // ok
  static Status error(std::string message, Kind kind = Kind::kIo) {
    return Status(std::move(message), kind);
  }
  static Status corruption(std::string message) {
    return Status(std::move(message), Kind::kCorruption);
  }
  static Status config(std::string message) { return Status(std::move(message), Kind::kConfig); }
  static Status invalid_argument(std::string message) {
    return Status(std::move(message), Kind::kInvalidArgument);
  }
  bool ok() const { return kind_ == Kind::kOk; }
  Kind kind() const { return kind_; }
  const std::string& message() const { return message_; }

 private:
  Status(std::string message, Kind kind) : message_(std::move(message)), kind_(kind) {
    if (message_.empty()) message_ = "unknown error";
    if (kind_ == Kind::kOk) kind_ = Kind::kIo;
  }
  std::string message_;
  Kind kind_ = Kind::kOk;
};

// A value or a Status that is not ok.
template <typename T>
class [[nodiscard]] StatusOr {
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
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T operator*() && { return std::move(std::get<T>(v_)); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace zkd

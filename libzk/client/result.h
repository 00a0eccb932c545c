// SPDX-License-Identifier: Apache-2.0
// Result<T>: the value of a ZooKeeper operation, or the zk::wire::Error that
// prevented it. Errors are values in zk::client; nothing here throws.
//
// A Result never holds Error::kOk as an error: a successful Result<T> holds a
// T, a successful Result<void> holds nothing. Calling value() on a failed
// Result is a programming error and aborts the process.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <variant>

#include "libzk/wire/protocol.h"

namespace zk::client {

using zk::wire::Error;

namespace detail {
[[noreturn]] inline void result_misuse(const char* what) {
  std::fprintf(stderr, "zk::client::Result misuse: %s\n", what);
  std::abort();
}
}  // namespace detail

template <typename T>
class [[nodiscard]] Result {
 public:
  // A failed result holding Error::kSystemError. Exists because some
  // frameworks (boost::asio::co_spawn with a completion token) need default
  // construction; operations never return it.
  Result() : v_(std::in_place_index<1>, Error::kSystemError) {}
  // A successful result.
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  // A failed result; `error` must not be Error::kOk.
  Result(Error error) : v_(std::in_place_index<1>, error) {  // NOLINT: implicit by design
    if (error == Error::kOk) detail::result_misuse("Result<T> constructed from Error::kOk");
  }

  // True when the operation succeeded.
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Error::kOk on success, otherwise the error code.
  Error error() const { return ok() ? Error::kOk : std::get<1>(v_); }

  // The value; aborts when !ok().
  T& value() & { return check(), std::get<0>(v_); }
  const T& value() const& { return check(), std::get<0>(v_); }
  T&& value() && { return check(), std::move(std::get<0>(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  void check() const {
    if (!ok()) detail::result_misuse("value() called on a failed Result");
  }
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  // A successful result.
  Result() = default;
  // Error::kOk also means success here (convenient when forwarding codes).
  Result(Error error) : error_(error) {}  // NOLINT: implicit by design

  bool ok() const { return error_ == Error::kOk; }
  explicit operator bool() const { return ok(); }
  Error error() const { return error_; }

 private:
  Error error_ = Error::kOk;
};

using Status = Result<void>;

}  // namespace zk::client

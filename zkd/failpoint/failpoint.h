// SPDX-License-Identifier: Apache-2.0
// Failpoints: named places in zkd where a test makes the process crash, or
// makes an I/O operation fail, to check that what follows a crash or an error
// there loses nothing. Every point is compiled into every build; a disarmed
// point costs one relaxed atomic load. The points themselves are listed in
// points.h.
//
// Arming. A specification is a list of `NAME=ACTION` separated by ',' or ';':
//   crash      the process dies at the first hit (SIGKILL, as by kill -9)
//   crash@N    ... at the N-th hit (N >= 1), counted from arming
//   error      every hit fails its operation with an injected I/O error
//   error@N    only the N-th hit fails
//   off        disarmed
// zkd arms from the environment variable ZKD_FAILPOINTS at start-up (an
// unknown name or action stops it with exit status 2); tests in the same
// process call arm() and disarm_all().
//
// A crash writes "zkd: failpoint NAME: crash" to stderr first, so that a test
// can tell which point ended the process. A test in the same process (the
// simulator) installs a crash handler instead, which must not return.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace zkd::failpoint {

class Point {
 public:
  // What a point can do: every point can crash; those where an operation
  // returns a status can also fail it.
  enum class Faults : uint8_t { kCrash, kCrashOrError };

  constexpr Point(std::string_view name, std::string_view where, Faults faults)
      : name_(name), where_(where), faults_(faults) {}
  Point(const Point&) = delete;
  Point& operator=(const Point&) = delete;

  // A hit. Disarmed: false. Armed to crash at this hit: does not return.
  // Armed to fail this hit: true, and the caller fails its operation with
  // error_message().
  bool fail() { return armed_.load(std::memory_order_relaxed) && hit_armed(); }
  // A hit where no operation can fail (a point of Faults::kCrash).
  void hit() { (void)fail(); }

  std::string_view name() const { return name_; }
  std::string_view where() const { return where_; }
  bool can_error() const { return faults_ == Faults::kCrashOrError; }
  // "failpoint NAME: injected I/O error".
  std::string error_message() const;
  // Hits since it was last armed (counted only while armed).
  uint64_t hits() const { return hits_.load(); }

 private:
  friend class Arming;
  enum class Action : uint8_t { kOff, kCrash, kError };

  bool hit_armed();

  const std::string_view name_;
  const std::string_view where_;
  const Faults faults_;
  std::atomic<bool> armed_{false};
  std::atomic<Action> action_{Action::kOff};
  std::atomic<uint64_t> at_{0};  // the hit that fires; 0: every hit (error only)
  std::atomic<uint64_t> hits_{0};
};

// Every failpoint, in the order points.h lists them.
std::span<Point* const> all_points();
// The point named `name`, or null.
Point* find_point(std::string_view name);

// Arms the points `spec` names (format above). Returns an empty string, or
// what is wrong with `spec` (then nothing was armed).
std::string arm(std::string_view spec);
// arm() of ZKD_FAILPOINTS when it is set; empty string when it is not.
std::string arm_from_environment();
void disarm_all();

// Called instead of killing the process when a point crashes; must not
// return (the simulator throws). Null restores the default.
using CrashHandler = void (*)(const Point& point);
void set_crash_handler(CrashHandler handler);

}  // namespace zkd::failpoint

// SPDX-License-Identifier: Apache-2.0
#include "zkd/failpoint/failpoint.h"

#include <signal.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <vector>

namespace zkd::failpoint {

namespace {

std::atomic<CrashHandler> crash_handler{nullptr};

// Writes `text` to stderr without stdio (no buffer to lose when the process is killed).
void write_stderr(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

[[noreturn]] void crash(const Point& point) {
  if (CrashHandler handler = crash_handler.load(); handler != nullptr) {
    handler(point);
    std::abort();  // a handler that returns breaks the contract
  }
  write_stderr("zkd: failpoint " + std::string(point.name()) + ": crash\n");
  ::kill(::getpid(), SIGKILL);
  std::_Exit(137);  // not reached
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string Point::error_message() const {
  return "failpoint " + std::string(name_) + ": injected I/O error";
}

bool Point::hit_armed() {
  const uint64_t hit = hits_.fetch_add(1) + 1;
  const uint64_t at = at_.load();
  if (at != 0 && hit != at) return false;
  switch (action_.load()) {
    case Action::kOff:
      return false;
    case Action::kCrash:
      crash(*this);
    case Action::kError:
      return true;
  }
  return false;
}

// Sets a point's arming; the only writer of Point's arming fields.
class Arming {
 public:
  struct Entry {
    Point* point;
    Point::Action action;
    uint64_t at;
  };

  // Parses `spec` into entries; an empty string, or why it cannot.
  static std::string parse(std::string_view spec, std::vector<Entry>& entries) {
    while (!spec.empty()) {
      const size_t end = spec.find_first_of(",;");
      const std::string_view item = trim(spec.substr(0, end));
      spec = end == std::string_view::npos ? std::string_view() : spec.substr(end + 1);
      if (item.empty()) continue;
      const size_t eq = item.find('=');
      if (eq == std::string_view::npos) {
        return "failpoint '" + std::string(item) + "': expected NAME=ACTION";
      }
      const std::string_view name = trim(item.substr(0, eq));
      std::string_view action = trim(item.substr(eq + 1));
      Point* point = find_point(name);
      if (point == nullptr) {
        return "unknown failpoint '" + std::string(name) + "' (zkd failpoints lists them)";
      }
      uint64_t at = 0;
      if (const size_t amp = action.find('@'); amp != std::string_view::npos) {
        const std::string_view count = action.substr(amp + 1);
        const auto [ptr, ec] = std::from_chars(count.data(), count.data() + count.size(), at);
        if (ec != std::errc() || ptr != count.data() + count.size() || at == 0) {
          return "failpoint '" + std::string(name) + "': '" + std::string(count) +
                 "' after @ is not a hit number (1, 2, ...)";
        }
        action = action.substr(0, amp);
      }
      Entry entry{point, Point::Action::kOff, at};
      if (action == "crash") {
        entry.action = Point::Action::kCrash;
        if (at == 0) entry.at = 1;
      } else if (action == "error") {
        if (!point->can_error()) {
          return "failpoint '" + std::string(name) + "' can only crash: no operation fails there";
        }
        entry.action = Point::Action::kError;
      } else if (action == "off" && at == 0) {
        entry.action = Point::Action::kOff;
      } else {
        return "failpoint '" + std::string(name) + "': unknown action '" + std::string(action) +
               "' (crash, crash@N, error, error@N, off)";
      }
      entries.push_back(entry);
    }
    return {};
  }

  static void set(const Entry& e) {
    Point& p = *e.point;
    p.armed_.store(false);
    p.action_.store(e.action);
    p.at_.store(e.at);
    p.hits_.store(0);
    p.armed_.store(e.action != Point::Action::kOff);
  }

  static void disarm(Point& p) { set({&p, Point::Action::kOff, 0}); }
};

Point* find_point(std::string_view name) {
  for (Point* p : all_points()) {
    if (p->name() == name) return p;
  }
  return nullptr;
}

std::string arm(std::string_view spec) {
  std::vector<Arming::Entry> entries;
  if (std::string why = Arming::parse(spec, entries); !why.empty()) return why;
  for (const Arming::Entry& e : entries) Arming::set(e);
  return {};
}

std::string arm_from_environment() {
  const char* spec = std::getenv("ZKD_FAILPOINTS");
  if (spec == nullptr) return {};
  std::string why = arm(spec);
  return why.empty() ? why : "ZKD_FAILPOINTS: " + why;
}

void disarm_all() {
  for (Point* p : all_points()) Arming::disarm(*p);
}

void set_crash_handler(CrashHandler handler) { crash_handler.store(handler); }

}  // namespace zkd::failpoint

// SPDX-License-Identifier: Apache-2.0
#include "zkd/admin/broadcast_command.h"

#include <boost/json.hpp>
#include <charconv>
#include <string>

#include "zkd/admin/root_auth.h"
#include "zkd/log/log.h"

namespace zkd::admin {
namespace {

namespace json = boost::json;

constexpr std::string_view kBroadcast = "broadcast";
constexpr int64_t kMaxCount = 100'000'000;
constexpr int64_t kMaxBytes = 1 << 20;
constexpr int64_t kMaxInFlight = 100'000;

// A whole number: a JSON integer, or a string of decimal digits or "0x" and
// hex digits (a session id as zkctl prints it).
std::optional<int64_t> whole_number(const json::value* value) {
  if (value == nullptr) return std::nullopt;
  if (value->is_int64()) return value->get_int64();
  if (value->is_uint64()) return static_cast<int64_t>(value->get_uint64());
  if (!value->is_string()) return std::nullopt;
  std::string_view text = value->get_string();
  int base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    text.remove_prefix(2);
    base = 16;
  }
  uint64_t parsed = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed, base);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return static_cast<int64_t>(parsed);
}

// The run the body asks for, or why it cannot be run.
std::variant<BroadcastBench::Run, std::string> parse_run(std::string_view body) {
  boost::system::error_code ec;
  const json::value parsed = json::parse(body, ec);
  const json::object* fields = ec ? nullptr : parsed.if_object();
  if (fields == nullptr) return std::string("the body is not a JSON object");
  BroadcastBench::Run run;
  const auto field = [&](const char* name, int64_t low, int64_t high,
                         std::string& error) -> int64_t {
    auto value = whole_number(fields->if_contains(name));
    if (!value || *value < low || *value > high) {
      error = std::string(name) + ": a whole number from " + std::to_string(low) + " to " +
              std::to_string(high) + " is required";
      return 0;
    }
    return *value;
  };
  std::string error;
  run.session = field("session", INT64_MIN, INT64_MAX, error);
  if (!error.empty()) return error;
  const json::value* path = fields->if_contains("path");
  if (path == nullptr || !path->is_string() || !path->get_string().starts_with("/")) {
    return std::string("path: the path of an existing znode is required");
  }
  run.path = path->get_string();
  run.count = field("count", 1, kMaxCount, error);
  if (!error.empty()) return error;
  run.bytes = static_cast<int32_t>(field("bytes", 0, kMaxBytes, error));
  if (!error.empty()) return error;
  run.in_flight = static_cast<int32_t>(field("in_flight", 1, kMaxInFlight, error));
  if (!error.empty()) return error;
  return run;
}

}  // namespace

bool BroadcastCommand::handles(std::string_view name) { return name == kBroadcast; }

std::optional<HttpResponse> BroadcastCommand::admit(const HttpRequest& head) const {
  return refuse_unless_root_all(view_, access_, kBroadcast, head);
}

void BroadcastCommand::run(const HttpRequest& request, HttpRespond respond) {
  if (request.method != HttpRequest::Method::kPost) {
    respond(HttpResponse{405, "text/plain; charset=utf-8", "Method Not Allowed\n", {}});
    return;
  }
  if (auto refused = admit(request)) {
    respond(*std::move(refused));
    return;
  }
  if (!enabled_) {
    respond(command_failure(503, kBroadcast,
                            "the broadcast command is off (admin.broadcast.enabled=false)"));
    return;
  }
  auto parsed = parse_run(request.body);
  if (auto* error = std::get_if<std::string>(&parsed)) {
    respond(command_failure(400, kBroadcast, *error));
    return;
  }
  const BroadcastBench::Run run = std::get<BroadcastBench::Run>(std::move(parsed));
  net::log_info("broadcast: ", run.count, " txns of ", run.bytes, " bytes, ", run.in_flight,
                " in flight, on ", run.path, " (asked by the admin server)");
  bench_.broadcast(run, [run, respond = std::move(respond)](BroadcastBench::Result result) {
    if (!result.error.empty()) {
      net::log_warn("broadcast: ", result.error);
      respond(command_failure(500, kBroadcast, result.error));
      return;
    }
    const double seconds = static_cast<double>(result.elapsed_us) / 1e6;
    const double rate = seconds > 0 ? static_cast<double>(result.count) / seconds : 0;
    net::log_info("broadcast: ", result.count, " txns applied in ", result.elapsed_us / 1000,
                  " ms");
    respond(command_response(200,
                             json::object{{"count", result.count},
                                          {"bytes", run.bytes},
                                          {"in_flight", run.in_flight},
                                          {"elapsed_ms", result.elapsed_us / 1000.0},
                                          {"txns_per_second", rate},
                                          {"last_zxid", result.last_zxid}},
                             kBroadcast, std::nullopt));
  });
}

}  // namespace zkd::admin

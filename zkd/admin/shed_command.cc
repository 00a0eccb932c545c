// SPDX-License-Identifier: Apache-2.0
#include "zkd/admin/shed_command.h"

#include <boost/json.hpp>
#include <charconv>
#include <string>

#include "zkd/admin/root_auth.h"
#include "zkd/log/log.h"

namespace zkd::admin {
namespace {

namespace json = boost::json;

constexpr std::string_view kShed = "shed_connections";

// Jackson's JsonNode.asInt(): a number truncated, a numeric string parsed,
// true 1, anything else 0.
int64_t as_int(const json::value& value) {
  if (value.is_int64()) return value.get_int64();
  if (value.is_uint64()) return static_cast<int64_t>(value.get_uint64());
  if (value.is_double()) return static_cast<int64_t>(value.get_double());
  if (value.is_bool()) return value.get_bool() ? 1 : 0;
  if (value.is_string()) {
    const json::string& text = value.get_string();
    int64_t parsed = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (ec == std::errc{} && end == text.data() + text.size()) return parsed;
  }
  return 0;
}

}  // namespace

bool ShedCommand::handles(std::string_view name) { return name == kShed || name == "shed"; }

std::optional<HttpResponse> ShedCommand::admit(const HttpRequest& head) const {
  return refuse_unless_root_all(view_, access_, kShed, head);
}

HttpResponse ShedCommand::run(const HttpRequest& request) {
  if (request.method != HttpRequest::Method::kPost) {
    return HttpResponse{405, "text/plain; charset=utf-8", "Method Not Allowed\n", {}};
  }
  if (auto refused = admit(request)) return *std::move(refused);
  if (request.body.empty()) return command_failure(400, kShed, "Request body is required");
  boost::system::error_code ec;
  const json::value body = json::parse(request.body, ec);
  if (ec) {
    return command_failure(400, kShed,
                           "Invalid JSON or failed to read request body: " + ec.message());
  }
  const json::object* fields = body.if_object();
  const json::value* percentage_field = fields ? fields->if_contains("percentage") : nullptr;
  if (percentage_field == nullptr) {
    return command_failure(400, kShed, "Missing required field: percentage");
  }
  const int64_t percentage = as_int(*percentage_field);
  if (percentage < 0 || percentage > 100) {
    return command_failure(400, kShed, "Percentage must be between 0 and 100");
  }
  const int shed = percentage > 0 ? shedder_.shed_connections(static_cast<int>(percentage)) : 0;
  net::log_info("shed ", shed, " client connections (", percentage, "% asked by the admin server)");
  return command_response(
      200, json::object{{"connections_shed", shed}, {"percentage_requested", percentage}}, kShed,
      std::nullopt);
}

}  // namespace zkd::admin

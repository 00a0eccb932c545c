// SPDX-License-Identifier: Apache-2.0
#include "zkd/admin/jackson_json.h"

// Boost.JSON is used header-only: its implementation is compiled here, once
// for zkd's admin library.
#include <boost/json/src.hpp>

#include "zkd/view/four_letter_format.h"

namespace zkd::admin {
namespace {

// A JSON string literal (Boost.JSON's escaping: short forms for \b \t \n \f \r,
// \u00XX for the other control characters, as Jackson's).
void quote(std::string_view text, std::string& out) {
  out += boost::json::serialize(boost::json::string_view(text.data(), text.size()));
}

// `depth`: the objects enclosing `value` (arrays do not indent).
void write(const boost::json::value& value, int depth, std::string& out) {
  switch (value.kind()) {
    case boost::json::kind::null:
      out += "null";
      return;
    case boost::json::kind::bool_:
      out += value.get_bool() ? "true" : "false";
      return;
    case boost::json::kind::int64:
      out += std::to_string(value.get_int64());
      return;
    case boost::json::kind::uint64:
      out += std::to_string(value.get_uint64());
      return;
    case boost::json::kind::double_:
      out += server::java_double(value.get_double());
      return;
    case boost::json::kind::string:
      quote(value.get_string(), out);
      return;
    case boost::json::kind::array: {
      const auto& array = value.get_array();
      if (array.empty()) {
        out += "[ ]";
        return;
      }
      out += "[ ";
      bool first = true;
      for (const auto& element : array) {
        if (!first) out += ", ";
        first = false;
        write(element, depth, out);
      }
      out += " ]";
      return;
    }
    case boost::json::kind::object: {
      const auto& object = value.get_object();
      if (object.empty()) {
        out += "{ }";
        return;
      }
      out += "{";
      bool first = true;
      for (const auto& member : object) {
        out += first ? "\n" : ",\n";
        first = false;
        out.append(static_cast<size_t>(2 * (depth + 1)), ' ');
        quote(member.key(), out);
        out += " : ";
        write(member.value(), depth + 1, out);
      }
      out += "\n";
      out.append(static_cast<size_t>(2 * depth), ' ');
      out += "}";
      return;
    }
  }
}

}  // namespace

std::string jackson_pretty(const boost::json::value& value) {
  std::string out;
  write(value, 0, out);
  return out;
}

}  // namespace zkd::admin

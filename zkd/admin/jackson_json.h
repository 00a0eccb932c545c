// SPDX-License-Identifier: Apache-2.0
// JSON text the way Apache's admin server prints it (Jackson's default
// pretty printer): objects one member per line, `"key" : value`, indented by
// two spaces per enclosing object; arrays on one line, `[ a, b ]`; empty
// containers `{ }` and `[ ]`; no newline at the end. Doubles print as
// Apache's rounded figures do (java_double: at most four decimals).
#pragma once

#include <boost/json/value.hpp>
#include <string>

namespace zkd::admin {

std::string jackson_pretty(const boost::json::value& value);

}  // namespace zkd::admin

// SPDX-License-Identifier: Apache-2.0
#include "zkd/admin/prometheus_text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <variant>

namespace zkd::admin {
namespace {

// Java's Double.toString for the values a gauge takes: "5.0", "0.25",
// "1.0E7" from ten million on.
std::string java_double_text(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[64];
  double magnitude = std::fabs(value);
  if (magnitude != 0.0 && (magnitude >= 1e7 || magnitude < 1e-3)) {
    std::snprintf(buf, sizeof buf, "%.16E", value);
    // "1.0000000000000000E+07" -> "1.0E7": trim the mantissa and the exponent.
    std::string s = buf;
    size_t e = s.find('E');
    std::string mantissa = s.substr(0, e);
    while (mantissa.size() > 2 && mantissa.back() == '0' && mantissa[mantissa.size() - 2] != '.') {
      mantissa.pop_back();
    }
    int exponent = std::stoi(s.substr(e + 1));
    return mantissa + "E" + std::to_string(exponent);
  }
  // The shortest text that reads back as the same double.
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*f", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

void family(std::string& out, const std::string& name, const char* type) {
  out += "# HELP " + name + " " + name + "\n";
  out += "# TYPE " + name + " " + type + "\n";
}

void sample(std::string& out, const std::string& name, double value) {
  out += name + " " + java_double_text(value) + "\n";
}

}  // namespace

std::string prometheus_text(const std::vector<server::MonitorEntry>& entries) {
  std::string out;
  for (const auto& [key, value] : entries) {
    if (const auto* i = std::get_if<int64_t>(&value)) {
      family(out, key, "gauge");
      sample(out, key, static_cast<double>(*i));
    } else if (const auto* d = std::get_if<double>(&value)) {
      family(out, key, "gauge");
      sample(out, key, *d);
    } else if (const auto* stats = std::get_if<server::LatencyStats>(&value)) {
      family(out, key, "summary");
      sample(out, key + "_count", static_cast<double>(stats->count()));
      sample(out, key + "_sum", static_cast<double>(stats->total()));
    }
  }
  return out;
}

}  // namespace zkd::admin

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

const char* type_name(const server::MonitorEntry& entry) {
  if (std::holds_alternative<server::SummaryFigures>(entry.value)) return "summary";
  return entry.type == server::MetricType::kCounter ? "counter" : "gauge";
}

void family(std::string& out, const std::string& name, const char* type) {
  out += "# HELP " + name + " " + name + "\n";
  out += "# TYPE " + name + " " + type + "\n";
}

// Labels as simpleclient 0.9 writes them: {a="x",b="y",}; none: nothing.
std::string labels(const std::string& key_label, const char* quantile) {
  std::string inner;
  if (!key_label.empty()) inner += "key=\"" + key_label + "\",";
  if (quantile != nullptr) inner += std::string("quantile=\"") + quantile + "\",";
  return inner.empty() ? inner : "{" + inner + "}";
}

void sample(std::string& out, const std::string& name, const std::string& label_text,
            double value) {
  out += name + label_text + " " + java_double_text(value) + "\n";
}

void summary_samples(std::string& out, const std::string& name, const std::string& key_label,
                     const server::SummaryFigures& f) {
  if (f.has_quantiles) {
    sample(out, name, labels(key_label, "0.5"), static_cast<double>(f.p50));
    if (f.advanced) {
      sample(out, name, labels(key_label, "0.9"), static_cast<double>(f.p90));
      sample(out, name, labels(key_label, "0.99"), static_cast<double>(f.p99));
    }
  }
  sample(out, name + "_count", labels(key_label, nullptr), static_cast<double>(f.count));
  sample(out, name + "_sum", labels(key_label, nullptr), static_cast<double>(f.sum));
}

}  // namespace

std::string prometheus_text(const std::vector<server::MonitorEntry>& entries) {
  std::string out;
  const std::string* previous = nullptr;  // a summary set's members are adjacent: one block
  for (const auto& entry : entries) {
    if (std::holds_alternative<std::string>(entry.value)) continue;
    if (previous == nullptr || *previous != entry.key) family(out, entry.key, type_name(entry));
    previous = &entry.key;
    const std::string label_text = labels(entry.label, nullptr);
    if (const auto* i = std::get_if<int64_t>(&entry.value)) {
      sample(out, entry.key, label_text, static_cast<double>(*i));
    } else if (const auto* d = std::get_if<double>(&entry.value)) {
      sample(out, entry.key, label_text, *d);
    } else {
      summary_samples(out, entry.key, entry.label, std::get<server::SummaryFigures>(entry.value));
    }
  }
  return out;
}

}  // namespace zkd::admin

// SPDX-License-Identifier: Apache-2.0
#include "zkbench/paper_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace zk::bench {

namespace {

size_t columns(const PaperTable& t) {
  size_t n = t.header.size();
  for (const auto& row : t.rows) n = std::max(n, row.size());
  return n;
}

std::string cell(const std::vector<std::string>& row, size_t i) {
  return i < row.size() ? row[i] : "";
}

std::string pad(const std::string& s, size_t width, bool left) {
  if (s.size() >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return left ? s + fill : fill + s;
}

std::string escape_pipes(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string table_text(const PaperTable& t) {
  const size_t n = columns(t);
  std::vector<size_t> width(n, 0);
  for (size_t i = 0; i < n; ++i) {
    width[i] = cell(t.header, i).size();
    for (const auto& row : t.rows) width[i] = std::max(width[i], cell(row, i).size());
  }
  auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (size_t i = 0; i < n; ++i) {
      if (i > 0) out += "  ";
      out += pad(cell(row, i), width[i], i == 0);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = t.title.empty() ? "" : t.title + "\n";
  out += line(t.header);
  for (const auto& row : t.rows) out += line(row);
  for (const auto& note : t.notes) out += note + "\n";
  return out;
}

std::string table_markdown(const PaperTable& t) {
  const size_t n = columns(t);
  auto line = [&](const std::vector<std::string>& row) {
    std::string out = "|";
    for (size_t i = 0; i < n; ++i) out += " " + escape_pipes(cell(row, i)) + " |";
    return out + "\n";
  };
  std::string out = t.title.empty() ? "" : "**" + t.title + "**\n\n";
  out += line(t.header);
  out += "|";
  for (size_t i = 0; i < n; ++i) out += i == 0 ? " :--- |" : " ---: |";
  out += "\n";
  for (const auto& row : t.rows) out += line(row);
  if (!t.notes.empty()) out += "\n";
  for (const auto& note : t.notes) out += note + "\n";
  return out;
}

std::string format_count(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return "-";
  const long long v = std::llround(*value);
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

std::string format_fixed(std::optional<double> value, int decimals) {
  if (!value || !std::isfinite(*value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, *value);
  return buf;
}

std::string format_ratio(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *b <= 0 || !std::isfinite(*a)) return "-";
  return format_fixed(*a / *b, 2) + "x";
}

}  // namespace zk::bench

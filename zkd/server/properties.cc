// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/properties.h"

#include <cctype>

namespace zkd::server {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

void append_utf8(std::string& out, unsigned code) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xe0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  }
}

// Undoes escapes in a key or value.
std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\' || i + 1 == s.size()) {
      out.push_back(c);
      continue;
    }
    char e = s[++i];
    switch (e) {
      case 't':
        out.push_back('\t');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'u': {
        unsigned code = 0;
        size_t digits = 0;
        while (digits < 4 && i + 1 < s.size() &&
               std::isxdigit(static_cast<unsigned char>(s[i + 1]))) {
          char h = s[++i];
          code = code * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(h))
                                                       ? h - '0'
                                                       : (std::tolower(h) - 'a' + 10));
          ++digits;
        }
        append_utf8(out, code);
        break;
      }
      default:
        out.push_back(e);
    }
  }
  return out;
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (is_blank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// True when `line` ends in an odd number of backslashes.
bool continues(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[line.size() - 1 - n] == '\\') ++n;
  return n % 2 == 1;
}

Property split_entry(std::string_view logical, int line) {
  size_t i = 0;
  while (i < logical.size() && is_blank(logical[i])) ++i;
  size_t key_start = i;
  while (i < logical.size()) {
    char c = logical[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == '=' || c == ':' || is_blank(c)) break;
    ++i;
  }
  if (i > logical.size()) i = logical.size();
  std::string_view key = logical.substr(key_start, i - key_start);
  while (i < logical.size() && is_blank(logical[i])) ++i;
  if (i < logical.size() && (logical[i] == '=' || logical[i] == ':')) ++i;
  while (i < logical.size() && is_blank(logical[i])) ++i;
  std::string_view value = trim_right(logical.substr(i));
  return Property{unescape(key), unescape(value), line};
}

}  // namespace

std::vector<Property> parse_properties(std::string_view text) {
  std::vector<Property> out;
  int line_no = 0;
  std::string logical;
  int logical_start = 0;
  bool in_continuation = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_no;
    pos = end + 1;

    size_t first = 0;
    while (first < line.size() && is_blank(line[first])) ++first;
    if (!in_continuation) {
      if (first == line.size() || line[first] == '#' || line[first] == '!') {
        if (end == text.size()) break;
        continue;
      }
      logical.clear();
      logical_start = line_no;
    }
    std::string_view content = in_continuation ? line.substr(first) : line;
    if (continues(content)) {
      content.remove_suffix(1);
      logical.append(content);
      in_continuation = true;
    } else {
      logical.append(content);
      in_continuation = false;
      out.push_back(split_entry(logical, logical_start));
    }
    if (end == text.size()) break;
  }
  if (in_continuation) out.push_back(split_entry(logical, logical_start));
  return out;
}

std::vector<std::string> comma_list(std::string_view value) {
  std::vector<std::string> out;
  while (!value.empty()) {
    const size_t comma = value.find(',');
    std::string_view item = value.substr(0, comma);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) {
      item.remove_prefix(1);
    }
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) {
      item.remove_suffix(1);
    }
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace zkd::server

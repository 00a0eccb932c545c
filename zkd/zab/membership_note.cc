// SPDX-License-Identifier: Apache-2.0
#include "zkd/zab/membership_note.h"

#include <charconv>
#include <sstream>
#include <string_view>
#include <vector>

namespace zkd::zab {

std::string membership_note(const Config& c) {
  std::ostringstream out;
  out << std::hex << c.membership_version << std::dec << ':';
  for (size_t i = 0; i < c.voters.size(); ++i) out << (i ? "," : "") << c.voters[i];
  out << ';';
  for (size_t i = 0; i < c.observers.size(); ++i) out << (i ? "," : "") << c.observers[i];
  return out.str();
}

std::optional<std::pair<Membership, Zxid>> read_membership_note(const std::string& note) {
  const size_t colon = note.find(':');
  const size_t semi = note.find(';');
  if (colon == std::string::npos || semi == std::string::npos || semi < colon) return std::nullopt;
  const auto ids = [](std::string_view s, std::vector<ServerId>& out) {
    while (!s.empty()) {
      const size_t comma = s.find(',');
      const std::string_view item = s.substr(0, comma);
      ServerId id = 0;
      const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), id);
      if (ec != std::errc{} || end != item.data() + item.size() || id <= 0) return false;
      out.push_back(id);
      if (comma == std::string_view::npos) break;
      s.remove_prefix(comma + 1);
    }
    return true;
  };
  Zxid version = 0;
  const auto [end, ec] = std::from_chars(note.data(), note.data() + colon, version, 16);
  if (ec != std::errc{} || end != note.data() + colon) return std::nullopt;
  Membership m;
  const std::string_view text(note);
  if (!ids(text.substr(colon + 1, semi - colon - 1), m.voters) || m.voters.empty() ||
      !ids(text.substr(semi + 1), m.observers)) {
    return std::nullopt;
  }
  return std::make_pair(std::move(m), version);
}

}  // namespace zkd::zab

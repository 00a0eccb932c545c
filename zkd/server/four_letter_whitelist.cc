// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/four_letter_whitelist.h"

#include <cctype>

namespace zkd::server {

FourLetterWhitelist::FourLetterWhitelist(std::string_view list) {
  words_.insert("srvr");
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view item = list.substr(pos, comma - pos);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front())))
      item.remove_prefix(1);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back())))
      item.remove_suffix(1);
    if (item == "*") all_ = true;
    if (!item.empty()) words_.insert(std::string(item));
    pos = comma + 1;
  }
}

bool FourLetterWhitelist::allows(std::string_view word) const {
  return all_ || words_.count(word) != 0;
}

std::string not_whitelisted_message(std::string_view word) {
  return std::string(word) + " is not executed because it is not in the whitelist.\n";
}

}  // namespace zkd::server

// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/four_letter_whitelist.h"

#include <utility>

#include "zkd/server/properties.h"

namespace zkd::server {

FourLetterWhitelist::FourLetterWhitelist(std::string_view list) {
  words_.insert("srvr");
  for (std::string& item : comma_list(list)) {
    if (item == "*") all_ = true;
    words_.insert(std::move(item));
  }
}

bool FourLetterWhitelist::allows(std::string_view word) const {
  return all_ || words_.count(word) != 0;
}

std::string not_whitelisted_message(std::string_view word) {
  return std::string(word) + " is not executed because it is not in the whitelist.\n";
}

}  // namespace zkd::server

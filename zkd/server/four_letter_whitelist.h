// SPDX-License-Identifier: Apache-2.0
// Which four-letter words a server answers (docs/wire-protocol.md §12.1): zoo.cfg's
// 4lw.commands.whitelist, a comma-separated list; `*` allows every word;
// `srvr` is always allowed. Words not on the list get
// not_whitelisted_message().
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace zkd::server {

class FourLetterWhitelist {
 public:
  explicit FourLetterWhitelist(std::string_view list);
  bool allows(std::string_view word) const;

 private:
  bool all_ = false;
  std::set<std::string, std::less<>> words_;
};

// "<word> is not executed because it is not in the whitelist.\n"
std::string not_whitelisted_message(std::string_view word);

}  // namespace zkd::server

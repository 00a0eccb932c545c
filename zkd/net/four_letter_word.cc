// SPDX-License-Identifier: Apache-2.0
#include "zkd/net/four_letter_word.h"

#include <algorithm>
#include <array>

namespace zkd::net {

bool is_four_letter_word(std::string_view first_four_bytes) {
  // Apache 3.8's words, and ClickHouse Keeper's ydld (yield leadership),
  // rqld (request leadership), csnp (snapshot now) and lgif (log information).
  static constexpr std::array<std::string_view, 22> kWords = {
      "conf", "cons", "crst", "dirs", "dump", "envi", "gtmk", "ruok", "stmk", "srvr", "srst",
      "stat", "wchc", "wchp", "wchs", "mntr", "isro", "hash", "ydld", "rqld", "csnp", "lgif"};
  return std::find(kWords.begin(), kWords.end(), first_four_bytes) != kWords.end();
}

bool is_telnet_close(std::string_view first_four_bytes) {
  return first_four_bytes == std::string_view("\xff\xf4\xff\xfd", 4);
}

size_t four_letter_argument_size(std::string_view word) { return word == "stmk" ? 8 : 0; }

}  // namespace zkd::net

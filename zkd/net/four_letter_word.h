// SPDX-License-Identifier: Apache-2.0
// Recognising a four-letter word (§1.1, §12.1 of docs/wire-protocol.md): only the
// first four bytes of a fresh connection are compared with the known words;
// anything else is the length prefix of a ConnectRequest.
#pragma once

#include <cstddef>
#include <string_view>

namespace zkd::net {

// Every word Apache 3.8 knows: conf cons crst dirs dump envi gtmk ruok stmk
// srvr srst stat wchc wchp wchs mntr isro hash, and ClickHouse Keeper's ydld,
// rqld, csnp and lgif.
bool is_four_letter_word(std::string_view first_four_bytes);

// Telnet's "interrupt process" sequence (0xfff4fffd): Apache just closes.
bool is_telnet_close(std::string_view first_four_bytes);

// Bytes a word needs after its four letters before it can run: stmk carries
// an 8-byte big-endian trace mask, the others nothing.
size_t four_letter_argument_size(std::string_view word);

}  // namespace zkd::net

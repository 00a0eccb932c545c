// SPDX-License-Identifier: Apache-2.0
// Byte-string helpers for showing node data: UTF-8 validation, base64 and hex.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace zk::json {

// True iff `bytes` is well-formed UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF). The empty string is valid.
bool is_valid_utf8(std::string_view bytes);

// `bytes` with every byte that is not part of a well-formed UTF-8 sequence
// replaced by U+FFFD; valid input comes back unchanged.
std::string sanitize_utf8(std::string_view bytes);

// Standard base64 (RFC 4648 §4) with '=' padding.
std::string base64_encode(std::string_view bytes);
// The bytes of standard base64 text, padded or not; whitespace is skipped.
// nullopt for any other character or a length no encoding produces.
std::optional<std::string> base64_decode(std::string_view text);

// Lower-case hex, two digits per byte.
std::string hex_encode(std::string_view bytes);
// The bytes of hex text (either case, an even number of digits, optionally
// "0x"-prefixed); nullopt for anything else.
std::optional<std::string> hex_decode(std::string_view text);

}  // namespace zk::json

// SPDX-License-Identifier: Apache-2.0
// Byte-string helpers for showing node data: UTF-8 validation and base64.
#pragma once

#include <string>
#include <string_view>

namespace zk::toolkit {

// True iff `bytes` is well-formed UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF). The empty string is valid.
bool is_valid_utf8(std::string_view bytes);

// `bytes` with every byte that is not part of a well-formed UTF-8 sequence
// replaced by U+FFFD; valid input comes back unchanged.
std::string sanitize_utf8(std::string_view bytes);

// Standard base64 (RFC 4648 §4) with '=' padding.
std::string base64_encode(std::string_view bytes);

}  // namespace zk::toolkit

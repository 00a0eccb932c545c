// SPDX-License-Identifier: Apache-2.0
// What Apache ZooKeeper sends back for a ustring it received and echoes
// (sync's path): Java decodes the UTF-8 bytes into UTF-16, replacing each
// malformed sequence with U+FFFD by the JDK decoder's rules, and jute writes
// every UTF-16 unit on its own, so a supplementary character becomes two
// 3-byte surrogate sequences (CESU-8). Valid BMP text comes back unchanged.
#pragma once

#include <string>
#include <string_view>

namespace zk::wire {

std::string java_string_round_trip(std::string_view utf8);

}  // namespace zk::wire

// SPDX-License-Identifier: Apache-2.0
// The four-letter operation tags cons prints as lop= (Apache's
// FinalRequestProcessor): CREA, DELE, SETD, GETD, EXIS, GETC, SYNC, PING, ...
#pragma once

#include <string_view>

#include "libzk/wire/protocol.h"

namespace zkd::server {

// "NA" for opcodes Apache gives no tag.
std::string_view op_tag(zk::wire::OpCode op);

}  // namespace zkd::server

// SPDX-License-Identifier: Apache-2.0
// Turns a DataArgument (literal or @FILE, maybe base64 or hex) into the bytes to store.
#pragma once

#include <string>
#include <variant>

#include "zkctl/command.h"
#include "zkctl/command_result.h"

namespace zkctl {

// The literal, or the whole content of the file (binary-safe), decoded from
// base64 or hex when so marked. A file that cannot be read gives a DATA_FILE
// failure (exit code 1) naming the file; text that does not decode, BAD_DATA
// (exit code 2).
std::variant<std::string, CommandFailure> resolve_data(const DataArgument& data);

}  // namespace zkctl

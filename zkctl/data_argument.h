// SPDX-License-Identifier: Apache-2.0
// Turns a DataArgument (literal or @FILE) into the bytes to store.
#pragma once

#include <string>
#include <variant>

#include "zkctl/command.h"
#include "zkctl/command_result.h"

namespace zkctl {

// The literal, or the whole content of the file (binary-safe). A file that
// cannot be read gives a DATA_FILE failure (exit code 1) naming the file.
std::variant<std::string, CommandFailure> resolve_data(const DataArgument& data);

}  // namespace zkctl

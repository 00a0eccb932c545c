// SPDX-License-Identifier: Apache-2.0
#include "zkctl/data_argument.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace zkctl {

std::variant<std::string, CommandFailure> resolve_data(const DataArgument& data) {
  if (data.source == DataArgument::Source::kLiteral) return data.value;
  std::ifstream in(data.value, std::ios::binary);
  if (!in) {
    CommandFailure f;
    f.exit_code = ExitCode::kError;
    f.name = "DATA_FILE";
    f.message = "cannot read data file '" + data.value + "': " + std::strerror(errno);
    return f;
  }
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace zkctl

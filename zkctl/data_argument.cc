// SPDX-License-Identifier: Apache-2.0
#include "zkctl/data_argument.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "libzk/json/text_encoding.h"

namespace zkctl {

namespace {

std::variant<std::string, CommandFailure> read_source(const DataArgument& data) {
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

}  // namespace

std::variant<std::string, CommandFailure> resolve_data(const DataArgument& data) {
  auto text = read_source(data);
  if (data.encoding == DataEncoding::kRaw || std::holds_alternative<CommandFailure>(text)) {
    return text;
  }
  const std::string& encoded = std::get<std::string>(text);
  std::optional<std::string> bytes = data.encoding == DataEncoding::kBase64
                                         ? zk::json::base64_decode(encoded)
                                         : zk::json::hex_decode(encoded);
  if (bytes) return *std::move(bytes);
  CommandFailure f;
  f.exit_code = ExitCode::kUsage;
  f.name = "BAD_DATA";
  f.message = std::string("data is not ") +
              (data.encoding == DataEncoding::kBase64 ? "base64" : "hex") + " text";
  return f;
}

}  // namespace zkctl

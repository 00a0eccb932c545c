// SPDX-License-Identifier: Apache-2.0
#include "zkctl/printer.h"

namespace zkctl {

void Printer::print(const CommandResult& result) {
  const std::string text = render_result(result, mode_);
  if (text.empty()) return;
  out_ << text;
  out_.flush();
}

void Printer::print(const CommandFailure& failure, const std::string& context) {
  const RenderedFailure rendered = render_failure(failure, mode_, context);
  std::ostream& stream = rendered.to_stdout ? out_ : err_;
  stream << rendered.text;
  stream.flush();
}

void Printer::print_text(const std::string& text) {
  out_ << text;
  out_.flush();
}

}  // namespace zkctl

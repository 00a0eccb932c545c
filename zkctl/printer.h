// SPDX-License-Identifier: Apache-2.0
// Writes rendered results and failures (output_format.h) to the process's
// streams, flushing after each so that a watch's events appear as they happen
// and a pipe reader sees every line before zkctl exits.
#pragma once

#include <ostream>
#include <string>

#include "zkctl/command_result.h"
#include "zkctl/output_format.h"

namespace zkctl {

class Printer {
 public:
  // The streams are borrowed and must outlive the printer.
  Printer(OutputMode mode, std::ostream& out, std::ostream& err)
      : mode_(mode), out_(out), err_(err) {}

  OutputMode mode() const { return mode_; }
  void print(const CommandResult& result);
  // `context` starts the human error line ("zkctl", "FILE:LINE").
  void print(const CommandFailure& failure, const std::string& context);
  // Free text for people (`help`), on stdout in either mode.
  void print_text(const std::string& text);

 private:
  OutputMode mode_;
  std::ostream& out_;
  std::ostream& err_;
};

}  // namespace zkctl

// SPDX-License-Identifier: Apache-2.0
// Runs a script: one command per line, in one session (so an ephemeral node
// created on line 1 is still there on line 2). Blank lines and lines starting
// with '#' are skipped; `quit`/`exit` ends the script early.
//
// Without keep_going the script stops at the first line whose exit code is
// not 0 and returns that code. With keep_going every line runs and the result
// is the exit code of the first line that failed (0 if none did).
// Error lines are prefixed "NAME:LINE" (NAME is the file name, or "-" for stdin).
#pragma once

#include <istream>
#include <string>

#include "zkctl/exit_code.h"
#include "zkctl/line_interpreter.h"

namespace zkctl {

struct ScriptOptions {
  std::string name = "-";
  bool keep_going = false;
};

ExitCode run_script(std::istream& in, LineInterpreter& interpreter, const ScriptOptions& options);

}  // namespace zkctl

// SPDX-License-Identifier: Apache-2.0
// The interactive mode: a prompt with line editing and history (libedit),
// every line run through the LineInterpreter; failures are printed and the
// shell goes on. Ends on `quit`, `exit` or end of input (Ctrl-D).
// History is kept in ~/.zkctl_history (last 1000 lines) when HOME is set.
// TAB completes commands, options and znode paths (line_completion.h); the
// children of a path are listed through the interpreter's session. One shell
// at a time per process (libedit's completion hooks are global). The prompt
// is the interpreter's (zkCli's: server, state and session id, line number).
// A watch that fires while the shell waits for a line is printed at once,
// below the line being edited, which is then drawn again with its prompt.
#pragma once

#include "zkctl/exit_code.h"
#include "zkctl/line_interpreter.h"

namespace zkctl {

// Returns the exit code of the last command run (0 when none failed last).
ExitCode run_interactive(LineInterpreter& interpreter);

}  // namespace zkctl

// SPDX-License-Identifier: Apache-2.0
#include "zkctl/script_runner.h"

namespace zkctl {

ExitCode run_script(std::istream& in, LineInterpreter& interpreter, const ScriptOptions& options) {
  ExitCode first_failure = ExitCode::kOk;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const LineOutcome outcome =
        interpreter.run_line(line, options.name + ":" + std::to_string(number));
    if (outcome.exit_code != ExitCode::kOk) {
      if (!options.keep_going) return outcome.exit_code;
      if (first_failure == ExitCode::kOk) first_failure = outcome.exit_code;
    }
    if (outcome.quit) break;
  }
  return first_failure;
}

}  // namespace zkctl

// SPDX-License-Identifier: Apache-2.0
// zkctl: the process edge. Parses the command line, connects one session,
// runs a command, a script or the interactive shell, closes the session and
// exits with the code of exit_code.h.
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <exception>
#include <fstream>
#include <iostream>

#include "libzk/client/sync_client.h"
#include "libzk/java/jvm_flags.h"
#include "libzk/version/version.h"
#include "toolkit/client_security_flags.h"
#include "zkctl/backup_verbs.h"
#include "zkctl/command_parser.h"
#include "zkctl/coordination_verbs.h"
#include "zkctl/global_options.h"
#include "zkctl/interactive_shell.h"
#include "zkctl/line_interpreter.h"
#include "zkctl/lock_verbs.h"
#include "zkctl/printer.h"
#include "zkctl/script_runner.h"
#include "zkctl/shell_session.h"
#include "zkctl/zk_command_runner.h"

namespace zkctl {
namespace {

int run(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  auto parsed = parse_global_options(args, std::getenv("ZKCTL_SERVER"));
  if (auto* early = std::get_if<EarlyExit>(&parsed)) {
    std::cout << early->out;
    std::cerr << early->err;
    return to_int(early->code);
  }
  const GlobalOptions& options = std::get<GlobalOptions>(parsed);
  const RunMode mode = run_mode(options, isatty(STDIN_FILENO) == 1);
  Printer printer(options.json ? OutputMode::kJson : OutputMode::kHuman, std::cout, std::cerr);

  // Everything that needs no server is checked before connecting.
  std::optional<Command> one_shot;
  std::optional<LockVerbCommand> lock_verb;      // lock, elect: zkctl/lock_verbs.h
  std::optional<CoordinationVerb> coordination;  // zkctl/coordination_verbs.h
  if (mode == RunMode::kOneShot) {
    if (options.command.size() == 1 && options.command[0] == "help") {
      std::cout << full_help_text();
      return to_int(ExitCode::kOk);
    }
    if (options.command.size() == 1 && options.command[0] == "version") {
      printer.print(VersionResult{zk::version_line("zkctl")});
      return to_int(ExitCode::kOk);
    }
    if (is_backup_verb(options.command)) {
      auto verb = parse_backup_verb(options.command);
      if (auto* usage = std::get_if<UsageError>(&verb)) {
        std::cerr << "zkctl: " << usage->message << "\nRun 'zkctl --help' for usage.\n";
        return to_int(ExitCode::kUsage);
      }
      return run_backup_verb(std::get<BackupVerb>(verb), options.server, options.json, std::cout,
                             std::cerr);
    }
    if (is_lock_verb(options.command)) {
      auto verb = parse_lock_verb(options.command);
      if (auto* usage = std::get_if<UsageError>(&verb)) {
        std::cerr << "zkctl: " << usage->message << "\nRun 'zkctl --help' for usage.\n";
        return to_int(ExitCode::kUsage);
      }
      lock_verb = std::get<LockVerbCommand>(std::move(verb));
    } else if (is_coordination_verb(options.command)) {
      auto verb = parse_coordination_verb(options.command);
      if (auto* usage = std::get_if<UsageError>(&verb)) {
        std::cerr << "zkctl: " << usage->message << "\nRun 'zkctl --help' for usage.\n";
        return to_int(ExitCode::kUsage);
      }
      coordination = std::get<CoordinationVerb>(std::move(verb));
    } else {
      ParseResult command = parse_command(options.command);
      if (auto* usage = std::get_if<UsageError>(&command)) {
        std::cerr << "zkctl: " << usage->message << "\nRun 'zkctl --help' for usage.\n";
        return to_int(ExitCode::kUsage);
      }
      one_shot = std::get<Command>(command);
    }
  }
  std::ifstream script;
  if (mode == RunMode::kScriptFile) {
    script.open(options.script_file);
    if (!script) {
      std::cerr << "zkctl: cannot open script '" << options.script_file << "'\n";
      return to_int(ExitCode::kUsage);
    }
  }

  zk::client::ClientOptions client_options;
  client_options.session_timeout = std::chrono::milliseconds(options.session_timeout_ms);
  auto security = zk::toolkit::client_security(options.tls, options.sasl,
                                               zk::java::environment("CLIENT_JVMFLAGS"));
  if (auto* why = std::get_if<std::string>(&security)) {
    std::cerr << "zkctl: " << *why << "\n";
    return to_int(ExitCode::kUsage);
  }
  zk::toolkit::apply_client_security(std::get<zk::toolkit::ClientSecurity>(security),
                                     client_options);
  // The longest reply read, as zkCli takes it: -Djute.maxbuffer=BYTES.
  const std::string max_reply =
      zk::java::jvm_system_property(zk::java::environment("CLIENT_JVMFLAGS"), "jute.maxbuffer");
  if (!max_reply.empty()) {
    int32_t bytes = 0;
    const auto [end, ec] =
        std::from_chars(max_reply.data(), max_reply.data() + max_reply.size(), bytes);
    if (ec != std::errc() || end != max_reply.data() + max_reply.size() || bytes <= 0) {
      std::cerr << "zkctl: CLIENT_JVMFLAGS: -Djute.maxbuffer=" << max_reply
                << " is not a positive number of bytes\n";
      return to_int(ExitCode::kUsage);
    }
    client_options.max_reply_bytes = bytes;
  }
  // Closed when it goes, so that its ephemeral nodes go at once, not at expiry.
  ShellSession session(client_options, std::chrono::milliseconds(options.session_timeout_ms),
                       std::chrono::milliseconds(options.connect_timeout_ms));
  if (auto failure = session.connect(options.server)) {
    printer.print(*failure, "zkctl");
    // zkCli's shell starts without a server too; `connect` opens one later.
    if (mode != RunMode::kInteractive) return to_int(failure->exit_code);
  }

  if (coordination) return run_coordination_verb(*coordination, *session.client(), printer);
  if (lock_verb) return run_lock_verb(*lock_verb, *session.client(), printer);
  ZkCommandRunner runner(session);
  LineInterpreter interpreter(runner, printer, &session);
  ExitCode code = ExitCode::kOk;
  switch (mode) {
    case RunMode::kOneShot:
      code = interpreter.run_command(*one_shot, "zkctl");
      break;
    case RunMode::kScriptFile:
      code = run_script(script, interpreter, {options.script_file, options.keep_going});
      break;
    case RunMode::kScriptStdin:
      code = run_script(std::cin, interpreter, {"-", options.keep_going});
      break;
    case RunMode::kInteractive:
      if (session.client() != nullptr) std::cerr << "Connected to " << options.server << ". ";
      std::cerr << "Type 'help' for commands, 'quit' to leave.\n";
      code = run_interactive(interpreter);
      break;
  }
  return to_int(code);
}

}  // namespace
}  // namespace zkctl

int main(int argc, char** argv) {
  try {
    return zkctl::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "zkctl: internal error: " << e.what() << "\n";
    return zkctl::to_int(zkctl::ExitCode::kError);
  }
}

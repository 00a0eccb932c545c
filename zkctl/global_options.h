// SPDX-License-Identifier: Apache-2.0
// The process command line: `zkctl [global options] [COMMAND ARGS...]`.
// Global options must come before the command; everything from the first
// non-option word on is the command (parsed by command_parser.h).
//
//   -s, --server HOSTS[/chroot]  connect string (default: $ZKCTL_SERVER, else 127.0.0.1:2181)
//   --timeout MS                 requested session timeout (default 30000)
//   --connect-timeout MS         give up connecting after MS (default 5000)
//   --json                       machine output (see output_format.h)
//   -f, --file FILE              run the commands in FILE
//   -k, --keep-going             scripts: do not stop at the first failure
//   -h, --help                   usage, commands and exit codes
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "toolkit/client_sasl.h"
#include "toolkit/client_tls.h"
#include "zkctl/exit_code.h"

namespace zkctl {

inline constexpr const char* kDefaultServer = "127.0.0.1:2181";

struct GlobalOptions {
  std::string server = kDefaultServer;
  int64_t session_timeout_ms = 30000;
  int64_t connect_timeout_ms = 5000;
  bool json = false;
  std::string script_file;  // empty: none
  bool keep_going = false;
  std::vector<std::string> command;   // the command and its arguments; may be empty
  zk::toolkit::ClientTlsFlags tls;    // --tls, --tls-ca, --tls-cert, --tls-key
  zk::toolkit::ClientSaslFlags sasl;  // --sasl-user, --sasl-password-file, --sasl-mech, --jaas
};

// What to do instead of running: print `out` (stdout) and `err` (stderr),
// exit with `code`. For --help (code 0) and bad global options (code 2).
struct EarlyExit {
  ExitCode code = ExitCode::kOk;
  std::string out;
  std::string err;
};

// `args` excludes argv[0]. `env_server` is $ZKCTL_SERVER (nullptr if unset).
// Never throws.
std::variant<GlobalOptions, EarlyExit> parse_global_options(const std::vector<std::string>& args,
                                                            const char* env_server);

enum class RunMode {
  kOneShot,      // a command was given
  kScriptFile,   // -f FILE
  kScriptStdin,  // the command is "-", or no command and stdin is not a terminal
  kInteractive,  // no command and stdin is a terminal
};

RunMode run_mode(const GlobalOptions& options, bool stdin_is_terminal);

// The full `zkctl --help` text.
std::string full_help_text();

}  // namespace zkctl

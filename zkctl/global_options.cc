// SPDX-License-Identifier: Apache-2.0
#include "zkctl/global_options.h"

#include <CLI/CLI.hpp>

#include "libzk/version/version.h"
#include "zkctl/backup_verbs.h"
#include "zkctl/command_parser.h"
#include "zkctl/coordination_verbs.h"
#include "zkctl/lock_verbs.h"

namespace zkctl {

namespace {

constexpr const char* kModesText =
    "Global options go before the command.\n"
    "\n"
    "Modes:\n"
    "  zkctl [options] COMMAND ARGS...   run one command, exit with its code\n"
    "  zkctl [options] -f FILE           run FILE, one command per line ('#' comments)\n"
    "  zkctl [options] -                 the same, reading commands from stdin\n"
    "  zkctl [options]                   interactive shell if stdin is a terminal,\n"
    "                                    otherwise commands from stdin\n"
    "Interactive: line editing, TAB completion (commands, options, znode paths),\n"
    "history in ~/.zkctl_history, `help`, `quit`.\n"
    "A script or shell is one session: its ephemeral nodes live until it ends.\n"
    "A one-shot `create -e` node is removed when zkctl exits.\n";

constexpr const char* kOutputText =
    "Output:\n"
    "  Human: data, paths, child names one per line, zkCli-style Stat. Errors\n"
    "  go to stderr as 'zkctl: CMD PATH: message (NAME)'.\n"
    "  --json: one JSON object per line on stdout per result (per event for\n"
    "  watch), e.g. {\"path\":\"/a\",\"data\":\"x\",\"stat\":{...}}; data that is not\n"
    "  UTF-8 is given as \"data_base64\" instead of \"data\". Errors are JSON on\n"
    "  stdout too: {\"error\":\"NONODE\",\"code\":-101,\"command\":\"get\",\"path\":\"/x\",\n"
    "  \"message\":\"...\"}. Every object starts with \"format\":2; zxids and\n"
    "  ephemeralOwner are hex strings (\"0x1a\").\n";

struct Parser {
  CLI::App app{"zkctl: shell for ZooKeeper-compatible servers", "zkctl"};
  GlobalOptions options;

  explicit Parser(const char* env_server) {
    if (env_server != nullptr && *env_server != '\0') options.server = env_server;
    app.prefix_command();
    // Usage: zkctl [OPTIONS] [COMMAND [ARGS...]]
    app.get_formatter()->label("OPTIONS", "OPTIONS] [COMMAND [ARGS...]");
    app.add_option("-s,--server", options.server,
                   "connect string HOST:PORT[,HOST:PORT...][/chroot]\n(default: $ZKCTL_SERVER, "
                   "else " +
                       std::string(kDefaultServer) + "); zkCli's -server too")
        ->type_name("HOSTS");
    app.add_option("--timeout", options.session_timeout_ms,
                   "requested session timeout in ms (default 30000); zkCli's\n-timeout too")
        ->type_name("MS")
        ->check(CLI::Range(int64_t{1}, int64_t{86400000}).description(""));
    app.add_option("--connect-timeout", options.connect_timeout_ms,
                   "give up connecting after MS ms (default 5000)")
        ->type_name("MS")
        ->check(CLI::Range(int64_t{1}, int64_t{86400000}).description(""));
    app.set_version_flag("--version", zk::version_line("zkctl"));
    app.add_flag("--json", options.json, "machine output, one JSON object per result");
    app.add_option("-f,--file", options.script_file, "run the commands in FILE")->type_name("FILE");
    app.add_flag("-k,--keep-going", options.keep_going, "scripts: do not stop at a failure");
    zk::toolkit::add_client_tls_options(app, options.tls);
    zk::toolkit::add_client_sasl_options(app, options.sasl);
    app.footer(std::string("\n") + kModesText + "\n" + command_help_text() + "\n" +
               lock_verbs_help_text() + "\n" + coordination_verbs_help_text() + "\n" +
               backup_verbs_help_text() + "\n" + kOutputText + "\n" + exit_code_help_text());
  }
};

// zkCli's spellings of the global options (Java style, one dash) in the
// words before the command, turned into zkctl's.
std::vector<std::string> with_zkcli_spellings(const CLI::App& app, std::vector<std::string> args) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string& word = args[i];
    if (word == "-server" || word == "-timeout") word = "-" + word;
    if (!word.starts_with("-") || word == "-" || word == "--") break;  // the command
    const std::string name = word.substr(0, word.find('='));
    const CLI::Option* option = app.get_option_no_throw(name);
    if (option != nullptr && option->get_expected_min() > 0 && name == word) ++i;  // its value
  }
  return args;
}

}  // namespace

std::string full_help_text() {
  Parser parser(nullptr);
  return parser.app.help();
}

std::variant<GlobalOptions, EarlyExit> parse_global_options(const std::vector<std::string>& args,
                                                            const char* env_server) {
  Parser parser(env_server);
  const std::vector<std::string> words = with_zkcli_spellings(parser.app, args);
  std::vector<std::string> reversed(words.rbegin(), words.rend());
  try {
    parser.app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return EarlyExit{ExitCode::kOk, parser.app.help(), ""};
  } catch (const CLI::CallForVersion&) {
    return EarlyExit{ExitCode::kOk, zk::version_line("zkctl") + "\n", ""};
  } catch (const CLI::ParseError& e) {
    return EarlyExit{ExitCode::kUsage, "",
                     std::string("zkctl: ") + e.what() + "\nRun 'zkctl --help' for usage.\n"};
  }
  GlobalOptions options = parser.options;
  options.command = parser.app.remaining();
  // prefix_command() passes an unknown option through as the command.
  if (!options.command.empty() && options.command[0].size() > 1 && options.command[0][0] == '-') {
    return EarlyExit{
        ExitCode::kUsage, "",
        "zkctl: unknown option '" + options.command[0] + "'\nRun 'zkctl --help' for usage.\n"};
  }
  if (!options.script_file.empty() && !options.command.empty()) {
    return EarlyExit{ExitCode::kUsage, "",
                     "zkctl: give either -f FILE or a command, not both\n"
                     "Run 'zkctl --help' for usage.\n"};
  }
  return options;
}

RunMode run_mode(const GlobalOptions& options, bool stdin_is_terminal) {
  if (!options.script_file.empty()) return RunMode::kScriptFile;
  if (options.command.size() == 1 && options.command[0] == "-") return RunMode::kScriptStdin;
  if (!options.command.empty()) return RunMode::kOneShot;
  return stdin_is_terminal ? RunMode::kInteractive : RunMode::kScriptStdin;
}

}  // namespace zkctl

// SPDX-License-Identifier: Apache-2.0
// zkctl's backup verbs: the admin server's snapshot and restore commands
// (Apache 3.9's; docs/backup-and-restore.md) for scripts. One-shot only;
// they open no ZooKeeper session and speak HTTP to the admin port.
//
//   backup  [--admin HOST[:PORT]] [--auth AUTH | --auth-file FILE] FILE
//       GET /commands/snapshot?streaming=true; the snapshot goes to FILE
//       (written beside it, then renamed: a failed backup leaves no FILE);
//       prints the last zxid and the size.
//   restore [--admin HOST[:PORT]] [--auth AUTH | --auth-file FILE] FILE
//       POST FILE to /commands/restore; prints the restored zxid.
// --admin defaults to the first host of -s and port 8080. AUTH is the
// Authorization header's value ("digest root:root_passwd", "ip"); --auth-file
// reads it from FILE's first line, so that no password shows in `ps`.
// Exit codes: 0 done; 2 usage; 9 (NOAUTH) the server refused the identity
// (401, 403); 7 the admin server did not answer; 1 anything else (429,
// 503, 500), with the server's message.
#pragma once

#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "zkctl/command_parser.h"

namespace zkctl {

struct BackupVerb {
  enum class Kind { kBackup, kRestore };
  Kind kind = Kind::kBackup;
  std::string admin;          // "" : from -s
  std::string authorization;  // the header's value; "" for none
  std::string file;
};

// Whether `words` (the command and its arguments) is a backup verb.
bool is_backup_verb(const std::vector<std::string>& words);
std::variant<BackupVerb, UsageError> parse_backup_verb(const std::vector<std::string>& words);

// Runs it against the admin server `verb.admin` names, or the first host of
// `server` (zkctl -s) on port 8080. Human lines, or one JSON object with
// `json`, to `out`; errors to `err`. Returns the exit code.
int run_backup_verb(const BackupVerb& verb, const std::string& server, bool json, std::ostream& out,
                    std::ostream& err);

std::string backup_verbs_help_text();

}  // namespace zkctl

// SPDX-License-Identifier: Apache-2.0
#include "zkctl/backup_verbs.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "libzk/client/connect_string.h"
#include "libzk/json/json_writer.h"
#include "toolkit/admin_http.h"
#include "zkctl/exit_code.h"

namespace zkctl {
namespace {

constexpr uint16_t kAdminPort = 8080;

std::string first_line(const std::string& path, bool& ok) {
  std::ifstream in(path);
  std::string line;
  ok = static_cast<bool>(in) && static_cast<bool>(std::getline(in, line));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

// The JSON error message of a command's answer, or the body as it is.
std::string server_message(const zk::toolkit::AdminHttpReply& reply) {
  const std::string key = "\"error\" : \"";
  const size_t at = reply.body.find(key);
  if (at == std::string::npos) return reply.body.substr(0, 200);
  const size_t start = at + key.size();
  return reply.body.substr(start, reply.body.find('"', start) - start);
}

int refused(const std::string& verb, const zk::toolkit::AdminHttpReply& reply, std::ostream& err) {
  if (reply.status == 0) {
    err << "zkctl: " << verb << ": " << reply.error << "\n";
    return to_int(ExitCode::kConnectionFailed);
  }
  err << "zkctl: " << verb << ": the admin server answered " << reply.status << ": "
      << server_message(reply) << "\n";
  if (reply.status == 401 || reply.status == 403) return to_int(ExitCode::kNoAuth);
  return to_int(ExitCode::kError);
}

// The number in `"last_zxid" : N` of a restore's answer; -1 when absent.
long long restored_zxid(const std::string& body) {
  const size_t at = body.find("\"last_zxid\" : ");
  if (at == std::string::npos) return -1;
  return std::atoll(body.c_str() + at + 14);
}

}  // namespace

bool is_backup_verb(const std::vector<std::string>& words) {
  return !words.empty() && (words[0] == "backup" || words[0] == "restore");
}

std::variant<BackupVerb, UsageError> parse_backup_verb(const std::vector<std::string>& words) {
  if (!is_backup_verb(words)) return UsageError{"not a backup verb"};
  BackupVerb verb;
  verb.kind = words[0] == "backup" ? BackupVerb::Kind::kBackup : BackupVerb::Kind::kRestore;
  const std::string& name = words[0];
  bool auth_given = false;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& word = words[i];
    const bool has_value = i + 1 < words.size();
    if (word == "--admin" || word == "--auth" || word == "--auth-file") {
      if (!has_value) return UsageError{name + ": " + word + " needs a value"};
      const std::string& value = words[++i];
      if (word == "--admin") {
        verb.admin = value;
        continue;
      }
      if (auth_given) return UsageError{name + ": give --auth or --auth-file once"};
      auth_given = true;
      if (word == "--auth") {
        verb.authorization = value;
      } else {
        bool ok = false;
        verb.authorization = first_line(value, ok);
        if (!ok) return UsageError{name + ": cannot read --auth-file " + value};
      }
    } else if (word.starts_with("-") && word != "-") {
      return UsageError{name + ": unknown option " + word};
    } else if (verb.file.empty()) {
      verb.file = word;
    } else {
      return UsageError{name + ": one FILE only"};
    }
  }
  if (verb.file.empty()) return UsageError{name + ": FILE is required"};
  return verb;
}

int run_backup_verb(const BackupVerb& verb, const std::string& server, bool json, std::ostream& out,
                    std::ostream& err) {
  const bool backup = verb.kind == BackupVerb::Kind::kBackup;
  const std::string name = backup ? "backup" : "restore";
  zk::toolkit::AdminHttpRequest request;
  // -s names the client port: its first host, on the admin port 8080.
  const std::string where =
      verb.admin.empty() ? server.substr(0, server.find_first_of(",/")) : verb.admin;
  zk::client::HostPort admin;
  admin.port = kAdminPort;
  if (!zk::client::parse_host_port(where, admin)) {
    err << "zkctl: " << name << ": " << (verb.admin.empty() ? "-s " : "--admin ") << where
        << " is not HOST[:PORT]\n";
    return to_int(ExitCode::kUsage);
  }
  request.host = admin.host;
  request.port = verb.admin.empty() ? kAdminPort : admin.port;
  request.authorization = verb.authorization;
  if (backup) {
    request.target = "/commands/snapshot?streaming=true";
  } else {
    std::ifstream in(verb.file, std::ios::binary);
    if (!in) {
      err << "zkctl: restore: cannot read " << verb.file << "\n";
      return to_int(ExitCode::kError);
    }
    request.method = "POST";
    request.target = "/commands/restore";
    request.body.assign(std::istreambuf_iterator<char>(in), {});
  }
  const zk::toolkit::AdminHttpReply reply = zk::toolkit::admin_http(request);
  if (reply.status != 200) return refused(name, reply, err);

  zk::json::JsonWriter w;
  if (backup) {
    auto zxid = reply.headers.find("last_zxid");
    if (zxid == reply.headers.end() || reply.body.empty()) {
      err << "zkctl: backup: the answer carries no snapshot (is this a ZooKeeper admin server?)\n";
      return to_int(ExitCode::kError);
    }
    const std::string temporary = verb.file + ".partial";
    {
      std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
      file.write(reply.body.data(), static_cast<std::streamsize>(reply.body.size()));
      file.flush();
      if (!file) {
        err << "zkctl: backup: cannot write " << temporary << "\n";
        std::remove(temporary.c_str());
        return to_int(ExitCode::kError);
      }
    }
    std::error_code ec;
    std::filesystem::rename(temporary, verb.file, ec);
    if (ec) {
      err << "zkctl: backup: cannot rename " << temporary << ": " << ec.message() << "\n";
      return to_int(ExitCode::kError);
    }
    if (json) {
      w.begin_object().key("file").string(verb.file).key("last_zxid").string(zxid->second);
      w.key("bytes").number(static_cast<int64_t>(reply.body.size())).end_object();
      out << w.str() << "\n";
    } else {
      out << "snapshot at zxid " << zxid->second << " (" << reply.body.size()
          << " bytes) written to " << verb.file << "\n";
    }
    return to_int(ExitCode::kOk);
  }
  const long long zxid = restored_zxid(reply.body);
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(zxid));
  if (json) {
    w.begin_object().key("file").string(verb.file).key("last_zxid").string(hex).end_object();
    out << w.str() << "\n";
  } else {
    out << "restored " << verb.file << "; the server's last zxid is now " << hex << "\n";
  }
  return to_int(ExitCode::kOk);
}

std::string backup_verbs_help_text() {
  return "Backup verbs (the admin server's snapshot and restore; one-shot only):\n"
         "  backup [--admin HOST[:PORT]] [--auth AUTH | --auth-file FILE] FILE\n"
         "                                 save a snapshot of the live server to FILE\n"
         "  restore [--admin HOST[:PORT]] [--auth AUTH | --auth-file FILE] FILE\n"
         "                                 replace a standalone server's state with FILE\n"
         "                                 AUTH: the Authorization header, e.g. 'digest\n"
         "                                 root:root_passwd'; --admin default: -s's host,\n"
         "                                 port 8080\n";
}

}  // namespace zkctl

// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/storage_dump.h"

#include <cstdio>
#include <ctime>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "libzk/wire/protocol.h"
#include "zkd/storage/snapshot_file.h"
#include "zkd/storage/txn_log.h"
#include "zkd/tree/database.h"
#include "zkd/tree/txn.h"

namespace zkd::server {
namespace {

std::string hex(int64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// 2024-11-21T14:22:12.123Z
std::string utc(int64_t ms) {
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out + "\"";
}

std::string to_hex_bytes(std::string_view s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

// One output line: `key=value ...` as text, or a flat JSON object.
class Line {
 public:
  explicit Line(bool json) : json_(json) {}
  Line& str(std::string_view key, std::string_view value) {
    return raw(key, json_ ? json_string(value) : std::string(value));
  }
  Line& num(std::string_view key, int64_t value) { return raw(key, std::to_string(value)); }
  Line& boolean(std::string_view key, bool value) { return raw(key, value ? "true" : "false"); }
  Line& raw(std::string_view key, const std::string& value) {
    if (!text_.empty()) text_ += json_ ? "," : " ";
    if (json_) {
      text_ += json_string(key) + ":" + value;
    } else {
      text_ += std::string(key) + "=" + value;
    }
    return *this;
  }
  Line& data(const zk::wire::Buffer& data) {
    if (!data) return raw("data", "null");
    num("data_length", static_cast<int64_t>(data->size()));
    if (json_) return str("data_hex", to_hex_bytes(*data));
    return *this;
  }
  Line& acl(const zk::wire::ACLs& acl) {
    std::string text;
    for (const auto& a : acl) {
      if (json_) {
        text += (text.empty() ? "" : ",") + std::string("{\"perms\":") + std::to_string(a.perms) +
                ",\"scheme\":" + json_string(a.id.scheme) + ",\"id\":" + json_string(a.id.id) + "}";
      } else {
        text +=
            (text.empty() ? "" : ",") + a.id.scheme + ":" + a.id.id + ":" + std::to_string(a.perms);
      }
    }
    return raw("acl", "[" + text + "]");
  }
  std::string done() const { return json_ ? "{" + text_ + "}" : text_; }

 private:
  bool json_;
  std::string text_;
};

void txn_fields(Line& line, const tree::Txn& txn) {
  std::visit(
      [&line](const auto& body) {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, tree::CreateSessionTxn>) {
          line.num("timeout_ms", body.timeout_ms);
        } else if constexpr (std::is_same_v<T, tree::CloseSessionTxn>) {
          std::string paths;
          for (const auto& p : body.paths_to_delete) {
            paths += (paths.empty() ? "" : ",") + p;
          }
          line.str("ephemerals_deleted", paths);
        } else if constexpr (std::is_same_v<T, tree::CreateTxn>) {
          line.str("path", body.path).data(body.data).acl(body.acl);
          line.boolean("ephemeral", body.ephemeral).num("parent_cversion", body.parent_cversion);
        } else if constexpr (std::is_same_v<T, tree::DeleteTxn>) {
          line.str("path", body.path);
        } else if constexpr (std::is_same_v<T, tree::SetDataTxn>) {
          line.str("path", body.path).data(body.data).num("version", body.version);
        } else if constexpr (std::is_same_v<T, tree::SetACLTxn>) {
          line.str("path", body.path).acl(body.acl).num("version", body.version);
        } else if constexpr (std::is_same_v<T, tree::CheckVersionTxn>) {
          line.str("path", body.path).num("version", body.version);
        } else if constexpr (std::is_same_v<T, tree::ErrorTxn>) {
          line.num("err", static_cast<int32_t>(body.err));
        } else if constexpr (std::is_same_v<T, tree::MultiTxn>) {
          line.num("ops", static_cast<int64_t>(body.ops.size()));
        }
      },
      txn.body);
}

class SnapshotPrinter : public tree::Database::SnapshotVisitor {
 public:
  SnapshotPrinter(bool json, std::ostream& out) : json_(json), out_(out) {}
  void session(tree::SessionId id, int32_t timeout_ms) override {
    Line line(json_);
    line.str("kind", "session").str("id", hex(id)).num("timeout_ms", timeout_ms);
    out_ << line.done() << "\n";
    ++sessions_;
  }
  void node(const std::string& path, const zk::wire::Buffer& data, const zk::wire::ACLs& acl,
            const zk::wire::Stat& stat) override {
    Line line(json_);
    line.str("kind", "node").str("path", path).data(data).acl(acl);
    line.str("czxid", hex(stat.czxid)).str("mzxid", hex(stat.mzxid)).str("pzxid", hex(stat.pzxid));
    line.str("ctime", utc(stat.ctime)).str("mtime", utc(stat.mtime));
    line.num("version", stat.version).num("cversion", stat.cversion);
    line.num("aversion", stat.aversion).str("ephemeral_owner", hex(stat.ephemeral_owner));
    line.num("num_children", stat.num_children);
    out_ << line.done() << "\n";
    ++nodes_;
  }
  int64_t sessions_ = 0;
  int64_t nodes_ = 0;

 private:
  bool json_;
  std::ostream& out_;
};

}  // namespace

int dump_log(storage::Env& env, const std::string& path, bool json, std::ostream& out,
             std::ostream& err) {
  auto contents = storage::read_segment_file(env, path);
  if (!contents.ok()) {
    err << path << ": " << contents.status().message() << "\n";
    return 1;
  }
  int status = 0;
  for (const auto& record : contents->records) {
    tree::Txn txn;
    Line line(json);
    if (!tree::read_txn(record.txn, txn)) {
      line.str("zxid", hex(record.zxid)).str("error", "txn does not decode");
      line.num("bytes", static_cast<int64_t>(record.txn.size()));
      out << line.done() << "\n";
      status = 1;
      continue;
    }
    line.str("zxid", hex(record.zxid)).str("time", utc(txn.header.time_ms));
    line.str("session", hex(txn.header.session_id)).str("cxid", hex(txn.header.cxid));
    line.str("type", zk::wire::opcode_name(txn.header.type));
    txn_fields(line, txn);
    out << line.done() << "\n";
  }
  if (!contents->status.ok()) {
    err << contents->status.message() << "\n";
    return 1;
  }
  if (status != 0) err << path << ": some records do not decode as txns\n";
  return status;
}

int dump_snapshot(storage::Env& env, const std::string& path, bool json, std::ostream& out,
                  std::ostream& err) {
  auto snapshot = storage::read_snapshot_file(env, path);
  if (!snapshot.ok()) {
    err << path << ": " << snapshot.status().message() << "\n";
    return 1;
  }
  Line header(json);
  header.str("kind", "snapshot").str("zxid", hex(snapshot->zxid)).str("file", path);
  out << header.done() << "\n";
  SnapshotPrinter printer(json, out);
  std::string why = tree::Database::visit_snapshot(snapshot->payload, printer);
  if (!why.empty()) {
    err << path << ": the payload does not decode: " << why << "\n";
    return 1;
  }
  Line footer(json);
  footer.str("kind", "summary").num("sessions", printer.sessions_).num("nodes", printer.nodes_);
  out << footer.done() << "\n";
  return 0;
}

}  // namespace zkd::server

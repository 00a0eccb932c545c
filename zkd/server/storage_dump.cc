// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/storage_dump.h"

#include <cstdio>
#include <ctime>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "libzk/json/json_writer.h"
#include "libzk/json/text_encoding.h"
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

// The version of the JSON lines' layout, in every line's "format".
constexpr int kJsonFormat = 1;

// One output line: `key=value ...` as text, or a flat JSON object (with
// "format" first) written by the tools' JSON writer.
class Line {
 public:
  explicit Line(bool json) : json_(json) {
    if (json_) json_writer_.begin_object().key("format").number(kJsonFormat);
  }
  Line& str(std::string_view key, std::string_view value) {
    if (json_) {
      json_writer_.key(key).string(value);
      return *this;
    }
    return text(key, std::string(value));
  }
  Line& num(std::string_view key, int64_t value) {
    if (json_) {
      json_writer_.key(key).number(value);
      return *this;
    }
    return text(key, std::to_string(value));
  }
  Line& boolean(std::string_view key, bool value) {
    if (json_) {
      json_writer_.key(key).boolean(value);
      return *this;
    }
    return text(key, value ? "true" : "false");
  }
  Line& data(const zk::wire::Buffer& data) {
    if (!data) {
      if (json_) json_writer_.key("data").null();
      return json_ ? *this : text("data", "null");
    }
    num("data_length", static_cast<int64_t>(data->size()));
    if (json_) return str("data_hex", zk::json::hex_encode(*data));
    return *this;
  }
  Line& acl(const zk::wire::ACLs& acl) {
    if (json_) {
      json_writer_.key("acl").begin_array();
      for (const auto& a : acl) {
        json_writer_.begin_object().key("perms").number(a.perms);
        json_writer_.key("scheme").string(a.id.scheme).key("id").string(a.id.id).end_object();
      }
      json_writer_.end_array();
      return *this;
    }
    std::string entries;
    for (const auto& a : acl) {
      entries += (entries.empty() ? "" : ",") + a.id.scheme + ":" + a.id.id + ":" +
                 std::to_string(a.perms);
    }
    return text("acl", "[" + entries + "]");
  }
  std::string done() {
    if (!json_) return text_;
    json_writer_.end_object();
    return json_writer_.str();
  }

 private:
  Line& text(std::string_view key, const std::string& value) {
    if (!text_.empty()) text_ += " ";
    text_ += std::string(key) + "=" + value;
    return *this;
  }

  bool json_;
  std::string text_;
  zk::json::JsonWriter json_writer_;
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
  if (Status visited = tree::Database::visit_snapshot(snapshot->payload, printer); !visited.ok()) {
    err << path << ": the payload does not decode: " << visited.message() << "\n";
    return 1;
  }
  Line footer(json);
  footer.str("kind", "summary").num("sessions", printer.sessions_).num("nodes", printer.nodes_);
  out << footer.done() << "\n";
  return 0;
}

}  // namespace zkd::server

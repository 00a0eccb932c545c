// SPDX-License-Identifier: Apache-2.0
#include "zklab/tool/lab_backup.h"

#include <cstdio>
#include <fstream>
#include <optional>
#include <vector>

#include "libzk/json/json_writer.h"
#include "toolkit/admin_http.h"
#include "zklab/tool/lab_membership.h"
#include "zklab/tool/lab_status.h"
#include "zklab/tool/node_spec.h"

namespace zk::lab {

namespace {

// The zxid of a srvr answer ("0x1f"); nothing when unknown.
std::optional<uint64_t> zxid_of(const NodeStatus& s) {
  if (s.zxid.empty()) return std::nullopt;
  try {
    return std::stoull(s.zxid, nullptr, 16);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The node to ask: `spec`'s, which must serve and have an admin server, else
// the serving zkd node with an admin server and the highest zxid (the leader
// among equals); nothing,
// with why on ctx.err, when there is none.
std::optional<NodeStatus> pick_node(const LabContext& ctx, const std::vector<NodeStatus>& status,
                                    const std::string& spec) {
  if (!spec.empty()) {
    const auto id = resolve_node(status, spec, RandomAmong::kAlive, ctx.err);
    if (!id) return std::nullopt;
    const NodeStatus& s = status[static_cast<size_t>(*id - 1)];
    if (s.admin_port == 0) {
      ctx.err << "zklab: backup: node " << *id << " has no admin server ("
              << (s.kind == Flavour::kApache ? "an Apache 3.8 node" : "its zoo.cfg names none")
              << ")\n";
      return std::nullopt;
    }
    if (!s.serving()) {
      ctx.err << "zklab: backup: node " << *id << " is " << s.role() << ", not serving\n";
      return std::nullopt;
    }
    return s;
  }
  std::optional<NodeStatus> best;
  for (const auto& s : status) {
    if (s.admin_port == 0 || !s.serving()) continue;
    const uint64_t zxid = zxid_of(s).value_or(0), best_zxid = best ? zxid_of(*best).value_or(0) : 0;
    const bool leads = s.mode == ServerMode::kLeader;
    if (!best || zxid > best_zxid || (zxid == best_zxid && leads)) best = s;
  }
  if (!best) {
    ctx.err << "zklab: backup: no node serves with an admin server (zkd nodes of a lab written "
               "by this zklab have one; see `zklab status`)\n";
  }
  return best;
}

// The "error" of an admin command's JSON answer, else the start of the body.
std::string server_message(const toolkit::AdminHttpReply& reply) {
  const std::string key = "\"error\" : \"";
  const size_t at = reply.body.find(key);
  if (at == std::string::npos) return reply.body.substr(0, 200);
  const size_t start = at + key.size();
  return reply.body.substr(start, reply.body.find('"', start) - start);
}

// Writes `bytes` to `file` through file.partial and a rename; empty or why not.
std::string replace_file(const std::filesystem::path& file, const std::string& bytes) {
  auto temporary = file;
  temporary += ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      return "cannot write " + temporary.string();
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, file, ec);
  if (ec) return "cannot rename " + temporary.string() + ": " + ec.message();
  return {};
}

}  // namespace

std::string lab_admin_authorization() { return std::string("digest ") + kLabSuperUser; }

LabExit lab_backup(const LabContext& ctx, const BackupOptions& options) {
  auto nodes = load_lab(ctx);
  if (!nodes) return LabExit::kError;
  const auto node = pick_node(ctx, lab_status(*nodes), options.node);
  if (!node) return LabExit::kError;
  toolkit::AdminHttpRequest request;
  request.host = "127.0.0.1";
  request.port = node->admin_port;
  request.target = "/commands/snapshot?streaming=true";
  request.authorization = options.authorization;
  request.timeout = ctx.deadline;
  const toolkit::AdminHttpReply reply = toolkit::admin_http(request);
  const std::string where = "node " + std::to_string(node->id) +
                            "'s admin server (127.0.0.1:" + std::to_string(node->admin_port) + ")";
  if (reply.status == 0) {
    ctx.err << "zklab: backup: " << where << ": " << reply.error << "\n";
    return LabExit::kError;
  }
  if (reply.status != 200) {
    ctx.err << "zklab: backup: " << where << " answered " << reply.status << ": "
            << server_message(reply) << "\n";
    if (reply.status == 401 || reply.status == 403) {
      ctx.err << "zklab: backup: pass --auth with an identity that has ALL on \"/\", e.g. --auth "
                 "'digest user:password' (the default, '"
              << lab_admin_authorization() << "', is the lab's superuser)\n";
    }
    return LabExit::kError;
  }
  const auto zxid = reply.headers.find("last_zxid");
  if (zxid == reply.headers.end() || reply.body.empty()) {
    ctx.err << "zklab: backup: " << where << "'s answer carries no snapshot\n";
    return LabExit::kError;
  }
  if (auto error = replace_file(options.file, reply.body); !error.empty()) {
    ctx.err << "zklab: backup: " << error << "\n";
    return LabExit::kError;
  }
  if (options.json) {
    json::JsonWriter w;
    w.begin_object().key("node").number(node->id).key("file").string(options.file.string());
    w.key("last_zxid").string(zxid->second);
    w.key("bytes").number(static_cast<int64_t>(reply.body.size())).end_object();
    ctx.out << w.str() << "\n";
  } else {
    ctx.out << "node " << node->id << " (" << node->role() << "): snapshot at zxid " << zxid->second
            << ", " << reply.body.size() << " bytes, written to " << options.file.string() << "\n";
  }
  return LabExit::kOk;
}

}  // namespace zk::lab

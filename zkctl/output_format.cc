// SPDX-License-Identifier: Apache-2.0
#include "zkctl/output_format.h"

#include <cstdio>
#include <ctime>

#include "toolkit/json_writer.h"
#include "toolkit/text_encoding.h"
#include "zkctl/acl_text.h"

namespace zkctl {

using zk::toolkit::base64_encode;
using zk::toolkit::is_valid_utf8;
using zk::toolkit::JsonWriter;

using zk::wire::Stat;

std::string format_zxid(int64_t zxid) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(zxid));
  return buf;
}

std::string format_time_ms(int64_t ms_since_epoch) {
  // Floor division so that negative times still land on the right second.
  int64_t seconds = ms_since_epoch / 1000;
  if (ms_since_epoch % 1000 < 0) --seconds;
  const auto t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  if (localtime_r(&t, &tm) == nullptr) return std::to_string(ms_since_epoch);
  char buf[64];
  if (std::strftime(buf, sizeof buf, "%a %b %d %H:%M:%S %Z %Y", &tm) == 0) {
    return std::to_string(ms_since_epoch);
  }
  return buf;
}

std::string format_stat_lines(const Stat& s) {
  std::string out;
  auto line = [&out](const char* name, const std::string& value) {
    out += name;
    out += " = ";
    out += value;
    out += '\n';
  };
  line("cZxid", format_zxid(s.czxid));
  line("ctime", format_time_ms(s.ctime));
  line("mZxid", format_zxid(s.mzxid));
  line("mtime", format_time_ms(s.mtime));
  line("pZxid", format_zxid(s.pzxid));
  line("cversion", std::to_string(s.cversion));
  line("dataVersion", std::to_string(s.version));
  line("aclVersion", std::to_string(s.aversion));
  line("ephemeralOwner", format_zxid(s.ephemeral_owner));
  line("dataLength", std::to_string(s.data_length));
  line("numChildren", std::to_string(s.num_children));
  return out;
}

namespace {

void write_stat(JsonWriter& w, const Stat& s) {
  w.begin_object();
  w.key("cZxid").number(s.czxid);
  w.key("ctime").number(s.ctime);
  w.key("mZxid").number(s.mzxid);
  w.key("mtime").number(s.mtime);
  w.key("pZxid").number(s.pzxid);
  w.key("cversion").number(s.cversion);
  w.key("dataVersion").number(s.version);
  w.key("aclVersion").number(s.aversion);
  w.key("ephemeralOwner").number(s.ephemeral_owner);
  w.key("dataLength").number(s.data_length);
  w.key("numChildren").number(s.num_children);
  w.end_object();
}

void write_data(JsonWriter& w, const std::string& data, bool null_data) {
  if (null_data) {
    w.key("data").null();
  } else if (is_valid_utf8(data)) {
    w.key("data").string(data);
  } else {
    w.key("data_base64").string(base64_encode(data));
  }
}

struct HumanRenderer {
  std::string operator()(const CreatedResult& r) const { return r.path + "\n"; }
  std::string operator()(const DataResult& r) const {
    std::string out = r.data + "\n";
    if (r.stat) out += format_stat_lines(*r.stat);
    return out;
  }
  std::string operator()(const SetResult& r) const {
    return r.show_stat ? format_stat_lines(r.stat) : std::string();
  }
  std::string operator()(const ChildrenResult& r) const {
    std::string out;
    for (const auto& c : r.children) out += c + "\n";
    if (r.stat) out += format_stat_lines(*r.stat);
    return out;
  }
  std::string operator()(const StatResult& r) const { return format_stat_lines(r.stat); }
  std::string operator()(const ExistsResult& r) const { return r.exists ? "true\n" : "false\n"; }
  std::string operator()(const DeletedResult&) const { return {}; }
  std::string operator()(const SyncedResult&) const { return {}; }
  std::string operator()(const WatchEventResult& r) const {
    return std::string(zk::wire::event_type_name(r.type)) + " " + r.path + "\n";
  }
  std::string operator()(const AclResult& r) const {
    std::string out;
    for (const auto& entry : r.acl) out += acl_entry_text(entry) + "\n";
    if (r.stat) out += format_stat_lines(*r.stat);
    return out;
  }
  std::string operator()(const AuthAddedResult&) const { return {}; }
  std::string operator()(const WatchesRemovedResult&) const { return {}; }
};

struct JsonRenderer {
  JsonWriter& w;
  void operator()(const CreatedResult& r) const { w.key("path").string(r.path); }
  void operator()(const DataResult& r) const {
    w.key("path").string(r.path);
    write_data(w, r.data, r.null_data);
    if (r.stat) write_stat(w.key("stat"), *r.stat);
  }
  void operator()(const SetResult& r) const {
    w.key("path").string(r.path);
    write_stat(w.key("stat"), r.stat);
  }
  void operator()(const ChildrenResult& r) const {
    w.key("path").string(r.path);
    w.key("children").begin_array();
    for (const auto& c : r.children) w.string(c);
    w.end_array();
    if (r.stat) write_stat(w.key("stat"), *r.stat);
  }
  void operator()(const StatResult& r) const {
    w.key("path").string(r.path);
    write_stat(w.key("stat"), r.stat);
  }
  void operator()(const ExistsResult& r) const {
    w.key("path").string(r.path);
    w.key("exists").boolean(r.exists);
  }
  void operator()(const DeletedResult& r) const {
    w.key("path").string(r.path);
    w.key("deleted").number(r.count);
  }
  void operator()(const SyncedResult& r) const {
    w.key("path").string(r.path);
    w.key("synced").boolean(true);
  }
  void operator()(const WatchesRemovedResult& r) const {
    w.key("path").string(r.path);
    w.key("watches_removed").boolean(true);
  }
  void operator()(const WatchEventResult& r) const {
    w.key("event").string(zk::wire::event_type_name(r.type));
    w.key("path").string(r.path);
  }
  void operator()(const AclResult& r) const {
    w.key("path").string(r.path);
    w.key("acl").begin_array();
    for (const auto& entry : r.acl) {
      w.begin_object();
      w.key("scheme").string(entry.id.scheme);
      w.key("id").string(entry.id.id);
      w.key("perms").string(perms_text(entry.perms));
      w.end_object();
    }
    w.end_array();
    if (r.stat) write_stat(w.key("stat"), *r.stat);
  }
  void operator()(const AuthAddedResult& r) const {
    w.key("scheme").string(r.scheme);
    w.key("added").boolean(true);
  }
};

}  // namespace

std::string render_result(const CommandResult& result, OutputMode mode) {
  if (mode == OutputMode::kHuman) return std::visit(HumanRenderer{}, result);
  JsonWriter w;
  w.begin_object();
  std::visit(JsonRenderer{w}, result);
  w.end_object();
  return w.str() + "\n";
}

RenderedFailure render_failure(const CommandFailure& f, OutputMode mode,
                               const std::string& context) {
  if (mode == OutputMode::kJson) {
    JsonWriter w;
    w.begin_object();
    w.key("error").string(f.name);
    if (f.zk_error) w.key("code").number(static_cast<int32_t>(*f.zk_error));
    if (!f.command.empty()) w.key("command").string(f.command);
    if (!f.path.empty()) w.key("path").string(f.path);
    w.key("message").string(f.message);
    w.end_object();
    return {true, w.str() + "\n"};
  }
  std::string text = context + ": ";
  if (!f.command.empty()) text += f.command + (f.path.empty() ? ": " : " ");
  if (!f.path.empty()) text += f.path + ": ";
  text += f.message + " (" + f.name + ")\n";
  return {false, text};
}

}  // namespace zkctl

// SPDX-License-Identifier: Apache-2.0
#include "zkctl/output_format.h"

#include <cstdio>
#include <ctime>

#include "libzk/json/json_writer.h"
#include "libzk/json/text_encoding.h"
#include "zkctl/acl_text.h"

namespace zkctl {

using zk::json::base64_encode;
using zk::json::is_valid_utf8;
using zk::json::JsonWriter;

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

// zxids and the ephemeral owner (a session id) are 64-bit: as JSON numbers
// they would lose digits in any reader that holds numbers as doubles (jq).
void write_stat(JsonWriter& w, const Stat& s) {
  w.begin_object();
  w.key("cZxid").string(format_zxid(s.czxid));
  w.key("ctime").number(s.ctime);
  w.key("mZxid").string(format_zxid(s.mzxid));
  w.key("mtime").number(s.mtime);
  w.key("pZxid").string(format_zxid(s.pzxid));
  w.key("cversion").number(s.cversion);
  w.key("dataVersion").number(s.version);
  w.key("aclVersion").number(s.aversion);
  w.key("ephemeralOwner").string(format_zxid(s.ephemeral_owner));
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

std::string encoded(const std::string& data, DataEncoding encoding) {
  switch (encoding) {
    case DataEncoding::kBase64:
      return base64_encode(data);
    case DataEncoding::kHex:
      return zk::json::hex_encode(data);
    case DataEncoding::kRaw:
      break;
  }
  return data;
}

std::string lines(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += item + "\n";
  return out;
}

std::string track_text(const std::vector<std::pair<std::string, int64_t>>& values) {
  std::string out;
  for (const auto& [key, value] : values) {
    if (!out.empty()) out += ',';
    out += key + "=" + std::to_string(value);
  }
  return out;
}

void write_track(JsonWriter& w, const std::vector<std::pair<std::string, int64_t>>& values) {
  w.begin_object();
  for (const auto& [key, value] : values) w.key(key).number(value);
  w.end_object();
}

struct HumanRenderer {
  std::string operator()(const CreatedResult& r) const { return r.path + "\n"; }
  std::string operator()(const DataResult& r) const {
    std::string out = encoded(r.data, r.output) + "\n";
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
  std::string operator()(const TreeResult& r) const { return lines(r.paths); }
  std::string operator()(const WhoAmIResult& r) const {
    std::string out;
    for (const auto& id : r.ids) out += id.auth_scheme + ": " + id.user + "\n";
    return out;
  }
  std::string operator()(const EphemeralsResult& r) const { return lines(r.paths); }
  std::string operator()(const ChildCountResult& r) const { return std::to_string(r.count) + "\n"; }
  std::string operator()(const QuotaResult& r) const {
    return "limits " + track_text(r.limits) + "\nusage " + track_text(r.usage) + "\n";
  }
  std::string operator()(const DoneResult&) const { return {}; }
  std::string operator()(const ConfigResult& r) const {
    std::string out = r.text;
    if (out.empty() || out.back() != '\n') out += '\n';
    if (r.stat) out += format_stat_lines(*r.stat);
    return out;
  }
  std::string operator()(const VersionResult& r) const { return r.version + "\n"; }
  std::string operator()(const FiredWatchResult& r) const {
    return "WATCHER:: WatchedEvent state:" + std::string(zk::wire::keeper_state_name(r.state)) +
           " type:" + std::string(zk::wire::event_type_name(r.type)) + " path:" + r.path + "\n";
  }
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
  void operator()(const TreeResult& r) const {
    w.key("path").string(r.path);
    write_strings(w.key("paths"), r.paths);
  }
  void operator()(const WhoAmIResult& r) const {
    w.key("ids").begin_array();
    for (const auto& id : r.ids) {
      w.begin_object().key("scheme").string(id.auth_scheme).key("id").string(id.user).end_object();
    }
    w.end_array();
  }
  void operator()(const EphemeralsResult& r) const {
    w.key("path").string(r.path);
    write_strings(w.key("paths"), r.paths);
  }
  void operator()(const ChildCountResult& r) const {
    w.key("path").string(r.path);
    w.key("count").number(r.count);
  }
  void operator()(const QuotaResult& r) const {
    w.key("path").string(r.path);
    write_track(w.key("limits"), r.limits);
    write_track(w.key("usage"), r.usage);
  }
  void operator()(const DoneResult& r) const {
    w.key("command").string(r.command);
    w.key("path").string(r.path);
    w.key("done").boolean(true);
  }
  void operator()(const ConfigResult& r) const {
    w.key("config").string(r.text);
    if (r.stat) write_stat(w.key("stat"), *r.stat);
  }
  void operator()(const VersionResult& r) const { w.key("version").string(r.version); }
  void operator()(const FiredWatchResult& r) const {
    w.key("watcher").begin_object();
    w.key("event").string(zk::wire::event_type_name(r.type));
    w.key("state").string(zk::wire::keeper_state_name(r.state));
    w.key("path").string(r.path);
    w.end_object();
  }

  static void write_strings(JsonWriter& w, const std::vector<std::string>& items) {
    w.begin_array();
    for (const auto& item : items) w.string(item);
    w.end_array();
  }
};

}  // namespace

std::string render_result(const CommandResult& result, OutputMode mode) {
  if (mode == OutputMode::kHuman) return std::visit(HumanRenderer{}, result);
  JsonWriter w;
  w.begin_object();
  w.key("format").number(kJsonFormat);
  std::visit(JsonRenderer{w}, result);
  w.end_object();
  return w.str() + "\n";
}

RenderedFailure render_failure(const CommandFailure& f, OutputMode mode,
                               const std::string& context) {
  if (mode == OutputMode::kJson) {
    JsonWriter w;
    w.begin_object();
    w.key("format").number(kJsonFormat);
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

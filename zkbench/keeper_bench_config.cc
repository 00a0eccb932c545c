// SPDX-License-Identifier: Apache-2.0
#include "zkbench/keeper_bench_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "libzk/client/connect_string.h"
#include "libzk/wire/path.h"

namespace zk::bench::keeper {

namespace {

// Refusals are thrown inside this file only; parse_config() returns them.
struct Refusal {
  std::string message;
};

constexpr uint64_t kMaxValueBytes = 16u << 20;    // data of a znode
constexpr uint64_t kMaxSetupZnodes = 10'000'000;  // the setup tree, repeats expanded
constexpr uint64_t kMaxLanes = 100'000;           // concurrency x pipeline_depth

// One occurrence of a key in a map: of a key given twice, the second is
// NAME[1] (keeper-bench's configuration numbers repeats so), and an element
// of a list value is an occurrence of its own where lists are allowed.
struct Entry {
  std::string name;     // the key as written
  std::string key;      // the full name: PARENT.NAME or PARENT.NAME[N]
  int occurrence = 0;   // N (0 for the first)
  YAML::Node key_node;  // for its line
  YAML::Node value;
};

using Repeatable = std::function<bool(const std::string& name)>;

bool starts_with(const std::string& s, std::string_view prefix) { return s.starts_with(prefix); }

bool none(const std::string&) { return false; }

[[noreturn]] void refuse(const std::string& key, const YAML::Node& at, const std::string& why) {
  std::string where;
  if (at.IsDefined() && !at.Mark().is_null()) {
    where = " (line " + std::to_string(at.Mark().line + 1) + ")";
  }
  throw Refusal{(key.empty() ? std::string("the file") : key) + ": " + why + where};
}

[[noreturn]] void refuse(const Entry& e, const std::string& why) { refuse(e.key, e.key_node, why); }

[[noreturn]] void unknown(const Entry& e) {
  refuse(e, "not a key zkbench knows here (see KEEPER-BENCH in zkbench(1))");
}

// The entries of map `node`, named `where`, in their order. A list under a
// key `repeatable` accepts is one entry per element.
std::vector<Entry> entries(const YAML::Node& node, const std::string& where,
                           const YAML::Node& where_node, const Repeatable& repeatable) {
  if (!node.IsMap()) refuse(where, where_node, "must be a map of keys");
  std::map<std::string, int> seen;
  std::vector<Entry> out;
  for (const auto& pair : node) {
    const YAML::Node key = pair.first;
    const YAML::Node value = pair.second;
    if (!key.IsScalar()) refuse(where, key, "a key must be a plain name");
    const std::string name = key.Scalar();
    auto add = [&](const YAML::Node& v) {
      const int n = seen[name]++;
      const std::string full = (where.empty() ? name : where + "." + name) +
                               (n == 0 ? "" : "[" + std::to_string(n) + "]");
      out.push_back({name, full, n, key, v});
    };
    if (value.IsSequence() && repeatable(name)) {
      for (const YAML::Node& element : value) add(element);
    } else {
      add(value);
    }
  }
  return out;
}

std::vector<Entry> entries(const Entry& e, const Repeatable& repeatable) {
  return entries(e.value, e.key, e.key_node, repeatable);
}

// A key that may be given once only.
void single(const Entry& e) {
  if (e.occurrence > 0) refuse(e, "given more than once");
}

std::string scalar(const Entry& e) {
  if (!e.value.IsDefined() || e.value.IsNull()) refuse(e, "has no value");
  if (!e.value.IsScalar()) refuse(e, "must be a single value");
  return e.value.Scalar();
}

uint64_t whole(const Entry& e, uint64_t lo, uint64_t hi) {
  const std::string s = scalar(e);
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi) {
    refuse(e, "must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                  ", not \"" + s + "\"");
  }
  return v;
}

double real(const Entry& e, double lo, double hi) {
  const std::string s = scalar(e);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) || v < lo ||
      v > hi) {
    std::ostringstream range;
    range << lo << " to " << hi;
    refuse(e, "must be a number from " + range.str() + ", not \"" + s + "\"");
  }
  return v;
}

bool flag(const Entry& e) {
  std::string s = scalar(e);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s == "true" || s == "yes" || s == "on" || s == "1") return true;
  if (s == "false" || s == "no" || s == "off" || s == "0") return false;
  refuse(e, "must be true or false, not \"" + e.value.Scalar() + "\"");
}

std::chrono::milliseconds millis(const Entry& e) {
  return std::chrono::milliseconds(whole(e, 1, 86'400'000));
}

// N, or {min_value: A, max_value: B}, each within [lo, hi].
NumberSpec number_spec(const Entry& e, uint64_t lo, uint64_t hi) {
  if (e.value.IsScalar()) {
    const uint64_t v = whole(e, lo, hi);
    return {v, v};
  }
  if (!e.value.IsMap()) refuse(e, "must be a number or {min_value: A, max_value: B}");
  std::optional<uint64_t> min, max;
  for (const Entry& f : entries(e, none)) {
    single(f);
    if (f.name == "min_value") {
      min = whole(f, lo, hi);
    } else if (f.name == "max_value") {
      max = whole(f, lo, hi);
    } else {
      unknown(f);
    }
  }
  if (!min || !max) refuse(e, "needs both min_value and max_value");
  if (*max < *min) refuse(e, "max_value is below min_value");
  return {*min, *max};
}

// TEXT, or {random_string: {size: N or {min_value, max_value}}} of at least
// `min_size` characters.
StringSpec string_spec(const Entry& e, uint64_t min_size) {
  if (e.value.IsScalar()) return {e.value.Scalar(), {}};
  if (!e.value.IsMap()) refuse(e, "must be text or {random_string: {size: N}}");
  StringSpec out;
  bool random = false;
  for (const Entry& r : entries(e, none)) {
    single(r);
    if (r.name != "random_string") unknown(r);
    random = true;
    bool sized = false;
    for (const Entry& s : entries(r, none)) {
      single(s);
      if (s.name != "size") unknown(s);
      out.random_size = number_spec(s, min_size, kMaxValueBytes);
      sized = true;
    }
    if (!sized) refuse(r, "needs a size");
  }
  if (!random) refuse(e, "must be text or {random_string: {size: N}}");
  return out;
}

void check_path(const Entry& e, const std::string& path) {
  if (std::string why = zk::wire::path_error(path); !why.empty()) {
    refuse(e, "\"" + path + "\" is no znode path: " + why);
  }
}

// path: /znode, or path: {children_of: /parent}.
void path_entry(const Entry& e, PathSpec& out) {
  if (!e.value.IsMap()) {
    const std::string path = scalar(e);
    check_path(e, path);
    out.paths.push_back(path);
    return;
  }
  bool found = false;
  for (const Entry& c : entries(e, none)) {
    single(c);
    if (c.name != "children_of") unknown(c);
    const std::string parent = scalar(c);
    check_path(c, parent);
    out.children_of.push_back(parent);
    found = true;
  }
  if (!found) refuse(e, "needs children_of, or a path");
}

// The request kind a key names by its beginning, in keeper-bench's order.
std::optional<RequestKind> kind_of(const std::string& name) {
  for (RequestKind k : {RequestKind::kCreate, RequestKind::kSet, RequestKind::kGet,
                        RequestKind::kList, RequestKind::kMulti}) {
    if (starts_with(name, kind_name(k))) return k;
  }
  return std::nullopt;
}

bool is_read(RequestKind k) { return k == RequestKind::kGet || k == RequestKind::kList; }

RequestSpec request(const Entry& e, RequestKind kind, bool in_multi) {
  if (kind == RequestKind::kMulti && in_multi) refuse(e, "a multi inside a multi is not allowed");
  RequestSpec r;
  r.kind = kind;
  r.key = e.key;
  const bool multi = kind == RequestKind::kMulti;
  const Repeatable repeatable = [multi](const std::string& name) {
    return multi ? kind_of(name).has_value() : starts_with(name, "path");
  };
  for (const Entry& f : entries(e, repeatable)) {
    if (f.name == "weight") {
      single(f);
      r.weight = whole(f, 1, 1'000'000);
    } else if (multi && f.name == "size") {
      single(f);
      r.size = number_spec(f, 1, 100'000);
    } else if (multi && kind_of(f.name)) {
      r.requests.push_back(request(f, *kind_of(f.name), true));
    } else if (!multi && starts_with(f.name, "path")) {
      path_entry(f, r.path);
    } else if (kind == RequestKind::kCreate && f.name == "name_length") {
      single(f);
      r.name_length = number_spec(f, 1, 1000);
    } else if ((kind == RequestKind::kCreate || kind == RequestKind::kSet) && f.name == "data") {
      single(f);
      r.data = string_spec(f, 0);
    } else if (kind == RequestKind::kCreate && f.name == "remove_factor") {
      single(f);
      r.remove_factor = real(f, 0, 1);
    } else {
      unknown(f);
    }
  }
  if (multi) {
    if (r.requests.empty()) refuse(e, "needs at least one request (create, set, get, list)");
    const bool reads =
        std::ranges::all_of(r.requests, [](const auto& n) { return is_read(n.kind); });
    const bool writes =
        std::ranges::none_of(r.requests, [](const auto& n) { return is_read(n.kind); });
    if (!reads && !writes) {
      refuse(e,
             "mixes reads (get, list) and writes (create, set): a multi is either a "
             "transaction of writes or a multiRead of reads");
    }
    r.read_only = reads;
  } else {
    if (r.path.empty()) refuse(e, "needs a path (path: /znode, or path: {children_of: /parent})");
    if (kind == RequestKind::kSet && !r.data) refuse(e, "needs data");
  }
  return r;
}

std::vector<RequestSpec> requests(const Entry& e) {
  std::vector<RequestSpec> out;
  for (const Entry& r : entries(e, [](const std::string& n) { return kind_of(n).has_value(); })) {
    const auto kind = kind_of(r.name);
    if (!kind) refuse(r, "not a request kind (create, set, get, list, multi)");
    out.push_back(request(r, *kind, false));
  }
  if (out.empty()) refuse(e, "has no request");
  return out;
}

// The number of znodes `node` stands for, its repeats and children included
// (capped, so that it cannot overflow).
uint64_t znodes_of(const SetupNode& node) {
  uint64_t one = 1;
  for (const SetupNode& child : node.children) {
    one = std::min(one + znodes_of(child), kMaxSetupZnodes + 1);
  }
  return std::min(one * node.repeat, kMaxSetupZnodes + 1);
}

SetupNode setup_node(const Entry& e, bool root);

// The node* entries of a setup map or node, as children (or roots).
void add_child(const Entry& f, bool root, std::vector<SetupNode>& children,
               std::map<std::string, std::string>& fixed_names) {
  SetupNode child = setup_node(f, root);
  if (child.name.text) {
    auto [it, fresh] = fixed_names.emplace(*child.name.text, child.key);
    if (!fresh) refuse(f, "the name \"" + *child.name.text + "\" is also " + it->second + "'s");
  }
  children.push_back(std::move(child));
}

SetupNode setup_node(const Entry& e, bool root) {
  SetupNode n;
  n.key = e.key;
  bool named = false;
  std::optional<Entry> repeat;
  std::map<std::string, std::string> fixed_names;
  const Repeatable repeatable = [](const std::string& name) { return starts_with(name, "node"); };
  for (const Entry& f : entries(e, repeatable)) {
    if (f.name == "name") {
      single(f);
      n.name = string_spec(f, 1);
      if (n.name.text) {
        const std::string& t = *n.name.text;
        if (t.empty() || t.find('/') != std::string::npos ||
            !zk::wire::path_error("/" + t).empty()) {
          refuse(f, "\"" + t + "\" is no znode name");
        }
        if (root && t == "zookeeper") refuse(f, "/zookeeper is the server's own");
      }
      named = true;
    } else if (f.name == "data") {
      single(f);
      n.data = string_spec(f, 0);
    } else if (f.name == "repeat") {
      single(f);
      n.repeat = whole(f, 1, kMaxSetupZnodes);
      repeat = f;
    } else if (starts_with(f.name, "node")) {
      add_child(f, false, n.children, fixed_names);
    } else {
      unknown(f);
    }
  }
  if (!named) refuse(e, "needs a name");
  if (repeat && n.repeat > 1 && !n.name.random()) {
    refuse(*repeat, "needs a random name (random_string): every copy needs a name of its own");
  }
  return n;
}

std::vector<SetupNode> setup(const Entry& e) {
  std::vector<SetupNode> roots;
  std::map<std::string, std::string> fixed_names;
  for (const Entry& f : entries(e, [](const std::string& n) { return starts_with(n, "node"); })) {
    if (!starts_with(f.name, "node")) unknown(f);
    add_child(f, true, roots, fixed_names);
  }
  uint64_t total = 0;
  for (const SetupNode& r : roots) total = std::min(total + znodes_of(r), kMaxSetupZnodes + 1);
  if (total > kMaxSetupZnodes) {
    refuse(e, "more than " + std::to_string(kMaxSetupZnodes) + " znodes");
  }
  return roots;
}

// A setting of a connection (or of them all); false for another key.
bool connection_setting(const Entry& f, Connection& c) {
  if (f.name == "secure") {
    c.secure = flag(f);
  } else if (f.name == "session_timeout_ms") {
    c.session_timeout = millis(f);
  } else if (f.name == "connection_timeout_ms") {
    c.connection_timeout = millis(f);
  } else if (f.name == "operation_timeout_ms") {
    c.operation_timeout = millis(f);
  } else if (f.name == "use_compression") {
    if (flag(f)) {
      refuse(f,
             "true asks for ClickHouse Keeper's compressed protocol; zkbench speaks "
             "Apache ZooKeeper's");
    }
  } else if (f.name == "use_xid_64") {
    if (flag(f)) {
      refuse(f,
             "true asks for ClickHouse Keeper's 64-bit xids; zkbench speaks Apache "
             "ZooKeeper's protocol");
    }
  } else {
    return false;
  }
  return true;
}

std::string host(const Entry& e) {
  const std::string h = scalar(e);
  const auto parsed = zk::client::parse_connect_string(h);
  if (!parsed.ok() || parsed->hosts.size() != 1 || !parsed->chroot.empty() ||
      h.find(':') == std::string::npos) {
    refuse(e, "\"" + h + "\" is not one HOST:PORT");
  }
  return h;
}

bool host_key(const std::string& n) { return starts_with(n, "host"); }
bool connection_key(const std::string& n) {
  return starts_with(n, "connection") && n != "connection_timeout_ms";
}

void connections(const Entry& e, Config& c) {
  const Repeatable repeatable = [](const std::string& n) {
    return host_key(n) || connection_key(n);
  };
  const std::vector<Entry> all = entries(e, repeatable);
  for (const Entry& f : all) {  // the defaults first, wherever they are
    if (host_key(f.name) || connection_key(f.name)) continue;
    single(f);
    if (!connection_setting(f, c.connection_defaults)) unknown(f);
  }
  for (const Entry& f : all) {
    Connection conn = c.connection_defaults;
    if (host_key(f.name)) {
      conn.host = host(f);
    } else if (connection_key(f.name)) {
      bool has_host = false;
      for (const Entry& g : entries(f, none)) {
        single(g);
        if (g.name == "host") {
          conn.host = host(g);
          has_host = true;
        } else if (g.name == "sessions") {
          conn.sessions = whole(g, 1, 10'000);
        } else if (!connection_setting(g, conn)) {
          unknown(g);
        }
      }
      if (!has_host) refuse(f, "needs a host");
    } else {
      continue;
    }
    c.connections.push_back(std::move(conn));
  }
}

void output(const Entry& e, Output& o) {
  for (const Entry& f : entries(e, none)) {
    single(f);
    if (f.name == "stdout") {
      o.to_stdout = flag(f);
    } else if (f.name == "file") {
      if (!f.value.IsMap()) {
        o.file = scalar(f);
      } else {
        for (const Entry& g : entries(f, none)) {
          single(g);
          if (g.name == "path") {
            o.file = scalar(g);
          } else if (g.name == "with_timestamp") {
            o.with_timestamp = flag(g);
          } else {
            unknown(g);
          }
        }
      }
      if (!o.file || o.file->empty()) refuse(f, "needs a path");
    } else {
      unknown(f);
    }
  }
}

// Sets `field` from `e`, refusing a second key for the same setting
// (report_delay and delay, continue_on_error and continue_on_errors).
template <typename T>
void set_once(std::optional<std::string>& given_by, const Entry& e, T& field, T value) {
  if (given_by) refuse(e, "the same setting as " + *given_by + "; give one");
  given_by = e.key;
  field = value;
}

Config config(const YAML::Node& root) {
  Config c;
  std::optional<std::string> delay_by, continue_by;
  std::optional<Entry> generator, top_setup, generator_setup;
  for (const Entry& e : entries(root, "", root, none)) {
    single(e);
    if (e.name == "connections") {
      connections(e, c);
    } else if (e.name == "concurrency") {
      c.concurrency = whole(e, 1, 10'000);
    } else if (e.name == "pipeline_depth") {
      c.pipeline_depth = whole(e, 1, 10'000);
    } else if (e.name == "iterations") {
      c.iterations = whole(e, 0, uint64_t{1} << 50);
    } else if (e.name == "report_delay" || e.name == "delay") {
      set_once(delay_by, e, c.report_delay_s, real(e, 0, 86'400));
    } else if (e.name == "timelimit") {
      c.timelimit_s = real(e, 0, 1e7);
    } else if (e.name == "warmup_seconds") {
      c.warmup_s = real(e, 0, 86'400);
    } else if (e.name == "continue_on_error" || e.name == "continue_on_errors") {
      set_once(continue_by, e, c.continue_on_error, flag(e));
    } else if (e.name == "enable_tracing") {
      if (flag(e)) {
        refuse(e,
               "true asks for ClickHouse Keeper's OpenTelemetry tracing, which Apache "
               "ZooKeeper's protocol does not carry");
      }
    } else if (e.name == "setup") {
      top_setup = e;
    } else if (e.name == "generator") {
      generator = e;
    } else if (e.name == "output") {
      output(e, c.output);
    } else {
      unknown(e);
    }
  }
  if (c.concurrency * c.pipeline_depth > kMaxLanes) {
    refuse("pipeline_depth", root,
           "concurrency x pipeline_depth is over " + std::to_string(kMaxLanes));
  }
  if (!generator) {
    refuse("generator", root,
           "missing: zkbench runs keeper-bench's request generator (generator.requests)");
  }
  bool has_requests = false;
  for (const Entry& g : entries(*generator, none)) {
    single(g);
    if (g.name == "requests") {
      c.requests = requests(g);
      has_requests = true;
    } else if (g.name == "setup") {
      generator_setup = g;
    } else {
      unknown(g);
    }
  }
  if (!has_requests) refuse(*generator, "needs requests");
  if (top_setup && generator_setup) {
    refuse(*generator_setup, "the setup is given at the top too; give one");
  }
  if (top_setup) c.setup = setup(*top_setup);
  if (generator_setup) c.setup = setup(*generator_setup);
  return c;
}

}  // namespace

std::string_view kind_name(RequestKind kind) {
  switch (kind) {
    case RequestKind::kCreate:
      return "create";
    case RequestKind::kSet:
      return "set";
    case RequestKind::kGet:
      return "get";
    case RequestKind::kList:
      return "list";
    case RequestKind::kMulti:
      return "multi";
  }
  return "?";
}

ConfigParse parse_config(std::string_view yaml) {
  ConfigParse out;
  try {
    const YAML::Node root = YAML::Load(std::string(yaml));
    if (!root.IsMap()) {
      out.error = "the file is not a YAML map of keeper-bench's keys";
      return out;
    }
    out.config = config(root);
  } catch (const Refusal& r) {
    out.error = r.message;
  } catch (const YAML::Exception& e) {
    out.error = "line " + std::to_string(e.mark.line + 1) + ", column " +
                std::to_string(e.mark.column + 1) + ": " + e.msg;
  }
  return out;
}

ConfigParse load_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  ConfigParse out;
  if (!in) {
    out.error = path + ": cannot be read";
    return out;
  }
  std::ostringstream text;
  text << in.rdbuf();
  out = parse_config(text.str());
  if (!out.error.empty()) out.error = path + ": " + out.error;
  return out;
}

}  // namespace zk::bench::keeper

// SPDX-License-Identifier: Apache-2.0
#include "zkctl/command_parser.h"

#include <CLI/CLI.hpp>
#include <array>
#include <charconv>
#include <fstream>
#include <initializer_list>
#include <optional>

#include "zkctl/acl_text.h"
#include "zkctl/help_layout.h"

namespace zkctl {
namespace {

// A throwaway CLI11 app; the parsed subcommand stores its Command in out_.
// Each subcommand registers a callback that assembles its Command.
class CommandGrammar {
 public:
  CommandGrammar() {
    app_.require_subcommand(1, 1);
    app_.set_help_flag();  // `help` is handled by the shell, not per command
    add_create();
    add_get();
    add_set();
    add_ls();
    add_stat();
    add_path_only<ExistsCommand>("exists", {"PATH", "exit 0 if the node exists, 3 if not"});
    add_delete();
    add_deleteall();
    add_watch();
    add_addwatch();
    add_removewatches();
    add_path_only<SyncCommand>("sync", {"PATH", "sync the connected server with the leader"});
    add_addauth();
    add_getacl();
    add_setacl();
    add_whoami();
    add_getephemerals();
    add_path_only<GetAllChildrenNumberCommand>("getAllChildrenNumber",
                                               {"PATH", "how many descendants PATH has"});
    add_setquota();
    add_path_only<ListQuotaCommand>("listquota", {"PATH", "print the quota's limits and usage"});
    add_delquota();
    add_config();
    add_reconfig();
  }

  const std::vector<CommandUsage>& usages() const { return usages_; }

  std::vector<CommandWords> words() const {
    std::vector<CommandWords> out;
    for (const CLI::App* s : app_.get_subcommands({})) {
      CommandWords command{s->get_name(), {}, false};
      for (const CLI::Option* o : s->get_options()) {
        if (o->get_positional()) {
          if (o->get_name() == "PATH") command.takes_path = true;
          continue;
        }
        for (const std::string& name : o->get_snames()) command.options.push_back("-" + name);
        for (const std::string& name : o->get_lnames()) command.options.push_back("--" + name);
      }
      out.push_back(std::move(command));
    }
    return out;
  }

  ParseResult parse(const std::vector<std::string>& words) {
    if (words.empty()) return UsageError{"no command given"};
    std::vector<std::string> reversed;
    for (auto it = words.rbegin(); it != words.rend(); ++it) reversed.push_back(java_style(*it));
    try {
      app_.parse(reversed);
    } catch (const CLI::ParseError& e) {
      return UsageError{describe(words.front(), e)};
    }
    if (!error_.empty()) return UsageError{words.front() + ": " + error_};
    if (!out_) return UsageError{"unknown command '" + words.front() + "'"};
    return *out_;
  }

 private:
  // zkCli's reconfig takes long options with one dash (-file, -members, -add,
  // -remove); CLI11 wants two.
  static std::string java_style(const std::string& word) {
    for (const char* name : {"-file", "-members", "-add", "-remove"}) {
      if (word == name) return "-" + word;
    }
    return word;
  }

  static std::string describe(const std::string& name, const CLI::ParseError& e) {
    std::string what = e.what();
    if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr &&
        what.find("subcommand") != std::string::npos) {
      return "unknown command '" + name + "'";
    }
    return name + ": " + what;
  }

  struct Usage {
    std::string args;     // CommandUsage::args
    std::string summary;  // CommandUsage::summary
  };

  // Registers command `name` with its usages (several for a command with
  // several forms, as watch); the grammar of its arguments is the caller's.
  // zkCli's names are camelCase (getAcl); any case is accepted.
  CLI::App* sub(const char* name, std::initializer_list<Usage> usages) {
    CLI::App* s = app_.add_subcommand(name, usages.begin()->summary)->ignore_case();
    s->set_help_flag();
    for (const Usage& usage : usages) usages_.push_back({name, usage.args, usage.summary});
    return s;
  }

  void add_path(CLI::App* s) { s->add_option("PATH", path_, "node path")->required(); }

  template <typename T>
  void add_path_only(const char* name, Usage usage) {
    CLI::App* s = sub(name, {std::move(usage)});
    add_path(s);
    s->callback([this] { out_ = T{path_}; });
  }

  // --base64 / --hex: DATA (or the file it names) is encoded text.
  void add_data_encoding(CLI::App* s, const char* what) {
    CLI::Option* base64 = s->add_flag("--base64", flag_f_, std::string(what) + " is base64");
    CLI::Option* hex = s->add_flag("--hex", flag_g_, std::string(what) + " is hex");
    base64->excludes(hex);
  }

  DataEncoding data_encoding() const {
    return flag_f_ ? DataEncoding::kBase64 : flag_g_ ? DataEncoding::kHex : DataEncoding::kRaw;
  }

  DataArgument data_word(const std::string& word) const {
    DataArgument data = data_argument_from_word(word);
    data.encoding = data_encoding();
    return data;
  }

  // ACL text as zkCli writes it; a bad one sets error_.
  std::optional<zk::wire::ACLs> acl_word(const std::string& text) {
    auto acl = parse_acl_text(text);
    if (auto* why = std::get_if<std::string>(&acl)) {
      error_ = *why;
      return std::nullopt;
    }
    return std::get<zk::wire::ACLs>(std::move(acl));
  }

  void add_create() {
    CLI::Option* e;
    CLI::Option* sq;
    CLI::App* s = sub("create", {{"[-e] [-s] [-c] [-t TTL] [--base64|--hex] PATH [DATA] [ACL]",
                                  "create a node, print the created path (-e ephemeral, -s "
                                  "sequential, -c container, -t TTL node of TTL ms; no DATA: "
                                  "null data; a one-shot ephemeral vanishes when zkctl exits)"}});
    e = s->add_flag("-e,--ephemeral", flag_a_, "ephemeral: removed when the session ends");
    sq = s->add_flag("-s,--sequential", flag_b_, "append a sequence number to the name");
    CLI::Option* c = s->add_flag("-c,--container", flag_c_, "container: removed once emptied");
    CLI::Option* t = s->add_option("-t,--ttl", ttl_, "TTL node: removed MS after going unused")
                         ->check(CLI::Range(int64_t{1}, int64_t{0x00FFFFFFFFFF}).description(""));
    c->excludes(e)->excludes(sq)->excludes(t);
    t->excludes(e);
    add_data_encoding(s, "DATA");
    add_path(s);
    CLI::Option* data = s->add_option("DATA", data_, "data (literal, or @FILE)");
    CLI::Option* acl = s->add_option("ACL", acl_, "scheme:id:perms[,...]");
    s->callback([this, data, acl, t] {
      CreateCommand c;
      c.path = path_;
      c.ephemeral = flag_a_;
      c.sequential = flag_b_;
      c.container = flag_c_;
      if (data->count() > 0) c.data = data_word(data_);
      if (t->count() > 0) c.ttl_ms = ttl_;
      if (acl->count() > 0) {
        c.acl = acl_word(acl_);
        if (!c.acl) return;
      }
      out_ = c;
    });
  }

  void add_get() {
    CLI::App* s = sub("get", {{"[-s] [-w] [--base64|--hex] PATH",
                               "print the data (-s: and the Stat; -w: leave a watch; "
                               "--base64/--hex: encoded)"}});
    s->add_flag("-s,-S,--stat", flag_a_, "also print the Stat");
    s->add_flag("-w,--watch", flag_b_, "leave a data watch; its event is printed when it fires");
    CLI::Option* base64 = s->add_flag("--base64", flag_f_, "print the data as base64");
    s->add_flag("--hex", flag_g_, "print the data as hex")->excludes(base64);
    add_path(s);
    s->callback([this] { out_ = GetCommand{path_, flag_a_, flag_b_, data_encoding()}; });
  }

  void add_set() {
    CLI::App* s = sub("set", {{"[-s] [-v VERSION] [--base64|--hex] PATH DATA",
                               "replace the data (-s: print the new Stat)"}});
    s->add_option("-v,--version", version_, "expected data version");
    s->add_flag("-s,-S,--stat", flag_a_, "print the new Stat");
    add_data_encoding(s, "DATA");
    add_path(s);
    s->add_option("DATA", data_, "data (literal, or @FILE)")->required();
    s->callback([this] { out_ = SetCommand{path_, data_word(data_), version_, flag_a_}; });
  }

  void add_ls() {
    CLI::App* s = sub("ls", {{"[-s] [-w] [-R] PATH",
                              "list the children, sorted (-s: and the Stat; "
                              "-R: every path of the subtree)"}});
    s->add_flag("-s,-S,--stat", flag_a_, "also print the node's Stat");
    s->add_flag("-w,--watch", flag_b_, "leave a child watch; its event is printed when it fires");
    s->add_flag("-R,--recursive", flag_c_, "every path of the subtree, breadth first");
    add_path(s);
    s->callback([this] { out_ = LsCommand{path_, flag_a_, flag_b_, flag_c_}; });
  }

  void add_stat() {
    CLI::App* s = sub("stat", {{"[-w] PATH", "print the Stat"}});
    s->add_flag("-w,--watch", flag_a_, "leave a watch; its event is printed when it fires");
    add_path(s);
    s->callback([this] { out_ = StatCommand{path_, flag_a_}; });
  }

  void add_delete() {
    CLI::App* s = sub("delete", {{"[-v VERSION] PATH", "delete a node that has no children"}});
    s->add_option("-v,--version", version_, "expected data version");
    add_path(s);
    s->callback([this] { out_ = DeleteCommand{path_, version_}; });
  }

  void add_deleteall() {
    CLI::App* s = sub("deleteall", {{"[-b N] PATH",
                                     "delete the node and its subtree, depth-first "
                                     "(-b: in multis of up to N deletes)"}});
    s->add_option("-b,--batch", batch_, "delete in multis of up to N nodes")
        ->check(CLI::Range(1, 100000).description(""));
    add_path(s);
    s->callback([this] { out_ = DeleteAllCommand{path_, batch_}; });
  }

  void add_watch() {
    CLI::App* s =
        sub("watch", {{"[--data|--children|--exists] [--count N] [--timeout-watch MS] PATH",
                       "set a watch, print each event as 'NodeDataChanged /path'; re-arm until N"},
                      {"--persistent [--recursive] [--count N] [--timeout-watch MS] PATH",
                       "addWatch: print every event (--recursive: of the subtree too) until N or "
                       "interrupted"}});
    CLI::Option* data = s->add_flag("--data", flag_a_, "data watch (default)");
    CLI::Option* children = s->add_flag("--children", flag_b_, "children watch");
    CLI::Option* exists = s->add_flag("--exists", flag_c_, "exists watch (node may be missing)");
    CLI::Option* persistent =
        s->add_flag("--persistent", flag_d_, "persistent watch (addWatch): every event");
    CLI::Option* recursive =
        s->add_flag("--recursive", flag_e_, "with --persistent: also the descendants");
    data->excludes(children)->excludes(exists)->excludes(persistent);
    children->excludes(exists)->excludes(persistent);
    exists->excludes(persistent);
    recursive->needs(persistent);
    CLI::Option* count = s->add_option("--count", count_, "events to print, re-arming in between")
                             ->check(CLI::Range(1, 1000000000).description(""));
    s->add_option("--timeout-watch", timeout_ms_, "give up after MS without an event")
        ->check(CLI::Range(int64_t{0}, int64_t{86400000}).description(""));
    add_path(s);
    s->callback([this, count] {
      WatchCommand w;
      w.path = path_;
      w.kind = flag_b_ ? WatchKind::kChildren : flag_c_ ? WatchKind::kExists : WatchKind::kData;
      w.count = count_;
      if (flag_d_) {
        w.persistent = flag_e_ ? zk::wire::AddWatchMode::kPersistentRecursive
                               : zk::wire::AddWatchMode::kPersistent;
        if (count->count() == 0) w.count = 0;  // until interrupted
      }
      w.timeout_ms = timeout_ms_;
      out_ = w;
    });
  }

  void add_addwatch() {
    CLI::App* s = sub("addWatch", {{"[-m PERSISTENT|PERSISTENT_RECURSIVE] PATH",
                                    "leave a persistent watch (default recursive); its events "
                                    "print as they fire"}});
    s->add_option("-m,--mode", scheme_, "PERSISTENT or PERSISTENT_RECURSIVE (default)")
        ->check(CLI::IsMember({"PERSISTENT", "PERSISTENT_RECURSIVE"}).description(""));
    add_path(s);
    s->callback([this] {
      out_ = AddWatchCommand{path_, scheme_ == "PERSISTENT"
                                        ? zk::wire::AddWatchMode::kPersistent
                                        : zk::wire::AddWatchMode::kPersistentRecursive};
    });
  }

  void add_removewatches() {
    CLI::App* s = sub("removewatches",
                      {{"[-c|-d|-a] [-l] PATH",
                        "remove this session's watches on PATH (-c children, -d data, -a all, "
                        "default; -l also when the server is unreachable)"}});
    CLI::Option* children = s->add_flag("-c,--children", flag_a_, "children watches only");
    CLI::Option* data = s->add_flag("-d,--data", flag_b_, "data and exists watches only");
    CLI::Option* any = s->add_flag("-a,--any", flag_c_, "every kind, persistent too (default)");
    children->excludes(data)->excludes(any);
    data->excludes(any);
    s->add_flag("-l,--local", flag_d_, "remove locally even if the server is unreachable");
    add_path(s);
    s->callback([this] {
      RemoveWatchesCommand r;
      r.path = path_;
      r.type = flag_a_   ? zk::wire::WatcherType::kChildren
               : flag_b_ ? zk::wire::WatcherType::kData
                         : zk::wire::WatcherType::kAny;
      r.local = flag_d_;
      out_ = r;
    });
  }

  void add_addauth() {
    CLI::App* s = sub("addauth", {{"SCHEME AUTH",
                                   "add a credential to the session (digest "
                                   "user:password); counts for later commands"}});
    s->add_option("SCHEME", scheme_, "digest (or ip)")->required();
    s->add_option("AUTH", data_, "for digest: user:password")->required();
    s->callback([this] { out_ = AddAuthCommand{scheme_, data_}; });
  }

  void add_getacl() {
    CLI::App* s = sub("getAcl", {{"[-s] PATH", "print the ACL, one scheme:id:perms per line"}});
    s->add_flag("-s,-S,--stat", flag_a_, "also print the Stat");
    add_path(s);
    s->callback([this] { out_ = GetAclCommand{path_, flag_a_}; });
  }

  void add_setacl() {
    CLI::App* s = sub("setAcl", {{"[-s] [-v VERSION] [-R] PATH ACL",
                                  "replace the ACL (-R: of the subtree too); ACL as zkCli writes "
                                  "it: scheme:id:perms[,...], perms from cdrwa, e.g. "
                                  "digest:alice:HASH:cdrwa,world:anyone:r"}});
    s->add_option("-v,--version", version_, "expected ACL version (aversion)");
    s->add_flag("-s,-S,--stat", flag_a_, "print the new Stat");
    s->add_flag("-R,--recursive", flag_b_, "also every descendant");
    add_path(s);
    s->add_option("ACL", acl_, "scheme:id:perms[,...]")->required();
    s->callback([this] {
      auto acl = acl_word(acl_);
      if (acl) out_ = SetAclCommand{path_, *std::move(acl), version_, flag_a_, flag_b_};
    });
  }

  void add_whoami() {
    CLI::App* s = sub("whoami", {{"", "the ids the session is authenticated as"}});
    s->callback([this] { out_ = WhoAmICommand{}; });
  }

  void add_getephemerals() {
    CLI::App* s = sub("getEphemerals", {{"[PATH]", "this session's ephemerals (under PATH)"}});
    s->add_option("PATH", path_, "only those under PATH");
    s->callback([this] { out_ = GetEphemeralsCommand{path_}; });
  }

  void add_setquota() {
    CLI::App* s = sub("setquota", {{"-n|-b|-N|-B N PATH",
                                    "set a quota limit: -n nodes, -b bytes (soft, logged), -N, "
                                    "-B (hard, enforced with enforceQuota)"}});
    CLI::Option* n = s->add_option("-n", quota_[0], "soft limit on the number of nodes");
    CLI::Option* b = s->add_option("-b", quota_[1], "soft limit on the bytes of data");
    CLI::Option* hn = s->add_option("-N", quota_[2], "hard limit on the number of nodes");
    CLI::Option* hb = s->add_option("-B", quota_[3], "hard limit on the bytes of data");
    const std::array<CLI::Option*, 4> limits{n, b, hn, hb};
    for (CLI::Option* o : limits) o->type_name("N");
    n->excludes(b)->excludes(hn)->excludes(hb);
    b->excludes(hn)->excludes(hb);
    hn->excludes(hb);
    add_path(s);
    s->callback([this, limits] {
      for (size_t i = 0; i < limits.size(); ++i) {
        if (limits[i]->count() == 0) continue;
        const int64_t minimum = i % 2 == 0 ? 1 : 0;  // counts above zero, bytes at least zero
        if (quota_[i] < minimum) {
          error_ = "the limit must be at least " + std::to_string(minimum);
          return;
        }
        out_ = SetQuotaCommand{path_, static_cast<QuotaLimit>(i), quota_[i]};
        return;
      }
      error_ = "give one of -n, -b, -N, -B";
    });
  }

  void add_delquota() {
    CLI::App* s =
        sub("delquota", {{"[-n|-b|-N|-B] PATH", "remove the quota, or one of its limits"}});
    CLI::Option* n = s->add_flag("-n", flag_a_, "only the node count soft limit");
    CLI::Option* b = s->add_flag("-b", flag_b_, "only the bytes soft limit");
    CLI::Option* hn = s->add_flag("-N", flag_c_, "only the node count hard limit");
    CLI::Option* hb = s->add_flag("-B", flag_d_, "only the bytes hard limit");
    n->excludes(b)->excludes(hn)->excludes(hb);
    b->excludes(hn)->excludes(hb);
    hn->excludes(hb);
    add_path(s);
    s->callback([this] {
      DelQuotaCommand d{path_, std::nullopt};
      if (flag_a_) d.limit = QuotaLimit::kCount;
      if (flag_b_) d.limit = QuotaLimit::kBytes;
      if (flag_c_) d.limit = QuotaLimit::kCountHardLimit;
      if (flag_d_) d.limit = QuotaLimit::kByteHardLimit;
      out_ = d;
    });
  }

  void add_config() {
    CLI::App* s = sub("config", {{"[-c] [-w] [-s]",
                                  "print the ensemble's membership (-c: the "
                                  "version and client addresses only)"}});
    s->add_flag("-c,--client", flag_a_, "only the version and the client addresses");
    s->add_flag("-w,--watch", flag_b_, "leave a watch; its event is printed when it fires");
    s->add_flag("-s,-S,--stat", flag_c_, "also print the Stat");
    s->callback([this] { out_ = ConfigCommand{flag_a_, flag_b_, flag_c_}; });
  }

  void add_reconfig() {
    CLI::App* s = sub("reconfig", {{"[-s] [-v VERSION] -members SERVERS | -file FILE |\n"
                                    "         [-add SERVERS] [-remove IDS]",
                                    "change the membership; SERVERS as "
                                    "server.N=host:port:port[:role];[host:]port comma-separated, "
                                    "VERSION in hex"}});
    s->add_flag("-s,-S,--stat", flag_a_, "also print the Stat");
    s->add_option("-v,--version", text_, "the config version (hex) the change applies to");
    CLI::Option* file = s->add_option("--file", file_, "new membership: FILE's server.N lines");
    CLI::Option* members =
        s->add_option("--members", members_, "new membership: server.N=...[,server.M=...]");
    CLI::Option* add = s->add_option("--add", data_, "joining: server.N=...[,server.M=...]");
    CLI::Option* remove = s->add_option("--remove", scheme_, "leaving: N[,M...]");
    file->excludes(members)->excludes(add)->excludes(remove);
    members->excludes(add)->excludes(remove);
    s->callback([this, file, add, remove] {
      ReconfigCommand r;
      r.with_stat = flag_a_;
      if (!text_.empty()) {
        auto version = parse_hex(text_);
        if (!version) {
          error_ = "-v wants the config version in hex, e.g. 100000000";
          return;
        }
        r.from_config = *version;
      }
      r.joining = add->count() > 0 ? data_ : "";
      r.leaving = remove->count() > 0 ? scheme_ : "";
      r.members = members_;
      if (file->count() > 0) {
        auto lines = read_server_lines(file_);
        if (!lines) return;
        r.members = *lines;
      }
      if (r.joining.empty() && r.leaving.empty() && r.members.empty()) {
        error_ = "give -members, -file, or -add and/or -remove";
        return;
      }
      out_ = r;
    });
  }

  static std::optional<int64_t> parse_hex(std::string text) {
    if (text.starts_with("0x") || text.starts_with("0X")) text.erase(0, 2);
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
  }

  // The server.N=... lines of a dynamic configuration file, comma-joined; a
  // file that cannot be read, or holds none, sets error_.
  std::optional<std::string> read_server_lines(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
      error_ = "cannot read '" + path + "'";
      return std::nullopt;
    }
    std::string joined, line;
    while (std::getline(in, line)) {
      const size_t start = line.find_first_not_of(" \t");
      if (start == std::string::npos || line.compare(start, 7, "server.") != 0) continue;
      const size_t end = line.find_last_not_of(" \t\r");
      if (!joined.empty()) joined += ',';
      joined += line.substr(start, end - start + 1);
    }
    if (joined.empty()) {
      error_ = "'" + path + "' holds no server.N= line";
      return std::nullopt;
    }
    return joined;
  }

  CLI::App app_{"zkctl command", "zkctl"};
  std::vector<CommandUsage> usages_;
  std::optional<Command> out_;
  std::string error_;  // set by a callback whose arguments parse but make no sense
  std::string scheme_;
  std::string path_;
  std::string data_;
  std::string acl_;
  std::string text_;
  std::string file_;
  std::string members_;
  bool flag_a_ = false;
  bool flag_b_ = false;
  bool flag_c_ = false;
  bool flag_d_ = false;
  bool flag_e_ = false;
  bool flag_f_ = false;
  bool flag_g_ = false;
  int32_t version_ = kAnyVersion;
  int count_ = 1;
  int batch_ = 0;
  int64_t ttl_ = 0;
  std::array<int64_t, 4> quota_{};
  std::optional<int64_t> timeout_ms_;
};

}  // namespace

ParseResult parse_command(const std::vector<std::string>& words) {
  CommandGrammar grammar;
  return grammar.parse(words);
}

std::vector<CommandWords> command_words() { return CommandGrammar().words(); }

std::vector<CommandUsage> command_usages() { return CommandGrammar().usages(); }

std::string command_help_text() {
  std::string entries;
  for (const CommandUsage& usage : command_usages()) {
    entries +=
        help_entry(usage.args.empty() ? usage.name : usage.name + " " + usage.args, usage.summary);
  }
  return "Commands (zkCli's, as zkCli spells them; -S/--stat and other long\n"
         "options are zkctl's own spellings beside them):\n" +
         entries +
         "Names are matched in any case (getacl works too). DATA is a literal;\n"
         "@FILE reads FILE, @@x is the literal @x; with --base64 or --hex it is\n"
         "decoded first. Use -- before data that starts with '-'.\n";
}

}  // namespace zkctl

// SPDX-License-Identifier: Apache-2.0
#include "zkctl/command_parser.h"

#include <CLI/CLI.hpp>
#include <optional>

#include "zkctl/acl_text.h"

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
    add_path_only<StatCommand>("stat", "print the node's Stat");
    add_path_only<ExistsCommand>("exists", "exit 0 if the node exists, 3 if not");
    add_delete();
    add_path_only<DeleteAllCommand>("deleteall", "delete the node and all its descendants");
    add_watch();
    add_removewatches();
    add_path_only<SyncCommand>("sync", "sync the server with the leader for PATH");
    add_addauth();
    add_getacl();
    add_setacl();
  }

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
    std::vector<std::string> reversed(words.rbegin(), words.rend());
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
  static std::string describe(const std::string& name, const CLI::ParseError& e) {
    std::string what = e.what();
    if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr &&
        what.find("subcommand") != std::string::npos) {
      return "unknown command '" + name + "'";
    }
    return name + ": " + what;
  }

  CLI::App* sub(const char* name, const char* description) {
    CLI::App* s = app_.add_subcommand(name, description);
    s->set_help_flag();
    return s;
  }

  template <typename T>
  void add_path_only(const char* name, const char* description) {
    CLI::App* s = sub(name, description);
    s->add_option("PATH", path_, "node path")->required();
    s->callback([this] { out_ = T{path_}; });
  }

  void add_create() {
    CLI::App* s = sub("create", "create a node and print its path");
    s->add_flag("-e,--ephemeral", flag_a_, "ephemeral: removed when the session ends");
    s->add_flag("-s,--sequential", flag_b_, "append a sequence number to the name");
    s->add_option("PATH", path_, "node path")->required();
    CLI::Option* data = s->add_option("DATA", data_, "data (literal, or @FILE)");
    s->callback([this, data] {
      std::optional<DataArgument> argument;
      if (data->count() > 0) argument = data_argument_from_word(data_);
      out_ = CreateCommand{path_, argument, flag_a_, flag_b_};
    });
  }

  void add_get() {
    CLI::App* s = sub("get", "print the node's data");
    s->add_flag("-S,--stat", flag_a_, "also print the Stat");
    s->add_option("PATH", path_, "node path")->required();
    s->callback([this] { out_ = GetCommand{path_, flag_a_}; });
  }

  void add_set() {
    CLI::App* s = sub("set", "replace the node's data");
    s->add_option("-v,--version", version_, "expected data version");
    s->add_flag("-S,--stat", flag_a_, "print the new Stat");
    s->add_option("PATH", path_, "node path")->required();
    s->add_option("DATA", data_, "data (literal, or @FILE)")->required();
    s->callback([this] {
      out_ = SetCommand{path_, data_argument_from_word(data_), version_, flag_a_};
    });
  }

  void add_ls() {
    CLI::App* s = sub("ls", "list the children, sorted");
    s->add_flag("-S,--stat", flag_a_, "also print the node's Stat");
    s->add_option("PATH", path_, "node path")->required();
    s->callback([this] { out_ = LsCommand{path_, flag_a_}; });
  }

  void add_delete() {
    CLI::App* s = sub("delete", "delete a node without children");
    s->add_option("-v,--version", version_, "expected data version");
    s->add_option("PATH", path_, "node path")->required();
    s->callback([this] { out_ = DeleteCommand{path_, version_}; });
  }

  void add_watch() {
    CLI::App* s = sub("watch", "wait for events on a node and print them");
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
    s->add_option("PATH", path_, "node path")->required();
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

  void add_removewatches() {
    CLI::App* s = sub("removewatches", "remove this session's watches on a node");
    CLI::Option* children = s->add_flag("-c,--children", flag_a_, "children watches only");
    CLI::Option* data = s->add_flag("-d,--data", flag_b_, "data and exists watches only");
    CLI::Option* any = s->add_flag("-a,--any", flag_c_, "every kind, persistent too (default)");
    children->excludes(data)->excludes(any);
    data->excludes(any);
    s->add_flag("-l,--local", flag_d_, "remove locally even if the server is unreachable");
    s->add_option("PATH", path_, "node path")->required();
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
    CLI::App* s = sub("addauth", "add a credential to the session");
    s->add_option("SCHEME", scheme_, "digest (or ip)")->required();
    s->add_option("AUTH", data_, "for digest: user:password")->required();
    s->callback([this] { out_ = AddAuthCommand{scheme_, data_}; });
  }

  void add_getacl() {
    CLI::App* s = sub("getacl", "print the node's ACL");
    s->add_flag("-S,--stat", flag_a_, "also print the Stat");
    s->add_option("PATH", path_, "node path")->required();
    s->callback([this] { out_ = GetAclCommand{path_, flag_a_}; });
  }

  void add_setacl() {
    CLI::App* s = sub("setacl", "replace the node's ACL");
    s->add_option("-v,--version", version_, "expected ACL version (aversion)");
    s->add_flag("-S,--stat", flag_a_, "print the new Stat");
    s->add_option("PATH", path_, "node path")->required();
    s->add_option("ACL", data_, "scheme:id:perms[,...]")->required();
    s->callback([this] {
      auto acl = parse_acl_text(data_);
      if (auto* why = std::get_if<std::string>(&acl)) {
        error_ = *why;
        return;
      }
      out_ = SetAclCommand{path_, std::get<zk::wire::ACLs>(std::move(acl)), version_, flag_a_};
    });
  }

  CLI::App app_{"zkctl command", "zkctl"};
  std::optional<Command> out_;
  std::string error_;  // set by a callback whose arguments parse but make no sense
  std::string scheme_;
  std::string path_;
  std::string data_;
  bool flag_a_ = false;
  bool flag_b_ = false;
  bool flag_c_ = false;
  bool flag_d_ = false;
  bool flag_e_ = false;
  int32_t version_ = kAnyVersion;
  int count_ = 1;
  std::optional<int64_t> timeout_ms_;
};

}  // namespace

ParseResult parse_command(const std::vector<std::string>& words) {
  CommandGrammar grammar;
  return grammar.parse(words);
}

std::vector<CommandWords> command_words() { return CommandGrammar().words(); }

std::string command_help_text() {
  return "Commands:\n"
         "  create [-e] [-s] PATH [DATA]   create a node, print the created path\n"
         "                                 (-e ephemeral, -s sequential; no DATA:\n"
         "                                 null data; a one-shot ephemeral vanishes\n"
         "                                 when zkctl exits)\n"
         "  get [-S] PATH                  print the data (-S/--stat: and the Stat)\n"
         "  set [-v VERSION] [-S] PATH DATA\n"
         "                                 replace the data (-S: print the new Stat)\n"
         "  ls [-S] PATH                   list the children, sorted (-S: and the Stat)\n"
         "  stat PATH                      print the Stat\n"
         "  exists PATH                    exit 0 if the node exists, 3 if not\n"
         "  delete [-v VERSION] PATH       delete a node that has no children\n"
         "  deleteall PATH                 delete the node and its subtree, depth-first\n"
         "  watch [--data|--children|--exists] [--count N] [--timeout-watch MS] PATH\n"
         "                                 set a watch, print each event as\n"
         "                                 'NodeDataChanged /path'; re-arm until N\n"
         "  watch --persistent [--recursive] [--count N] [--timeout-watch MS] PATH\n"
         "                                 addWatch: print every event (--recursive:\n"
         "                                 of the subtree too) until N or interrupted\n"
         "  removewatches [-c|-d|-a] [-l] PATH\n"
         "                                 remove this session's watches on PATH\n"
         "                                 (-c children, -d data, -a all, default;\n"
         "                                 -l also when the server is unreachable)\n"
         "  sync PATH                      sync the connected server with the leader\n"
         "  addauth SCHEME AUTH            add a credential to the session (digest\n"
         "                                 user:password); counts for later commands\n"
         "  getacl [-S] PATH               print the ACL, one scheme:id:perms per line\n"
         "  setacl [-v VERSION] [-S] PATH ACL\n"
         "                                 replace the ACL; ACL as zkCli writes it:\n"
         "                                 scheme:id:perms[,...], perms from cdrwa,\n"
         "                                 e.g. digest:alice:HASH:cdrwa,world:anyone:r\n"
         "DATA is a literal; @FILE reads FILE, @@x is the literal @x. Use -- before\n"
         "data that starts with '-'.\n";
}

}  // namespace zkctl

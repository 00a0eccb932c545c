// SPDX-License-Identifier: Apache-2.0
#include "zkctl/command.h"

namespace zkctl {

DataArgument data_argument_from_word(const std::string& word) {
  if (word.starts_with("@@")) return {DataArgument::Source::kLiteral, word.substr(1)};
  if (word.starts_with("@") && word.size() > 1)
    return {DataArgument::Source::kFile, word.substr(1)};
  return {DataArgument::Source::kLiteral, word};
}

namespace {
struct NameOf {
  const char* operator()(const CreateCommand&) const { return "create"; }
  const char* operator()(const GetCommand&) const { return "get"; }
  const char* operator()(const SetCommand&) const { return "set"; }
  const char* operator()(const LsCommand&) const { return "ls"; }
  const char* operator()(const StatCommand&) const { return "stat"; }
  const char* operator()(const ExistsCommand&) const { return "exists"; }
  const char* operator()(const DeleteCommand&) const { return "delete"; }
  const char* operator()(const DeleteAllCommand&) const { return "deleteall"; }
  const char* operator()(const WatchCommand&) const { return "watch"; }
  const char* operator()(const RemoveWatchesCommand&) const { return "removewatches"; }
  const char* operator()(const SyncCommand&) const { return "sync"; }
  const char* operator()(const AddAuthCommand&) const { return "addauth"; }
  const char* operator()(const GetAclCommand&) const { return "getAcl"; }
  const char* operator()(const SetAclCommand&) const { return "setAcl"; }
  const char* operator()(const AddWatchCommand&) const { return "addWatch"; }
  const char* operator()(const WhoAmICommand&) const { return "whoami"; }
  const char* operator()(const GetEphemeralsCommand&) const { return "getEphemerals"; }
  const char* operator()(const GetAllChildrenNumberCommand&) const {
    return "getAllChildrenNumber";
  }
  const char* operator()(const SetQuotaCommand&) const { return "setquota"; }
  const char* operator()(const ListQuotaCommand&) const { return "listquota"; }
  const char* operator()(const DelQuotaCommand&) const { return "delquota"; }
  const char* operator()(const ConfigCommand&) const { return "config"; }
  const char* operator()(const ReconfigCommand&) const { return "reconfig"; }
};
}  // namespace

const char* command_name(const Command& c) { return std::visit(NameOf{}, c); }

const std::string& command_path(const Command& c) {
  static const std::string kNone;
  return std::visit(
      [](const auto& cmd) -> const std::string& {
        if constexpr (requires { cmd.path; }) {
          return cmd.path;
        } else {
          return kNone;
        }
      },
      c);
}

}  // namespace zkctl

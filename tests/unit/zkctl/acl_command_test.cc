// SPDX-License-Identifier: Apache-2.0
// addauth, getacl and setacl: zkCli's ACL syntax both ways, the grammar, and
// how getacl's result is printed.
#include <gtest/gtest.h>

#include "zkctl/acl_text.h"
#include "zkctl/command_parser.h"
#include "zkctl/output_format.h"

namespace zkctl {
namespace {

namespace perms = zk::wire::perms;
using zk::wire::ACLs;

ACLs acl_of(const std::string& text) {
  auto r = parse_acl_text(text);
  if (auto* why = std::get_if<std::string>(&r)) {
    ADD_FAILURE() << text << ": " << *why;
    return {};
  }
  return std::get<ACLs>(r);
}

std::string error_of(const std::string& text) {
  auto r = parse_acl_text(text);
  if (auto* why = std::get_if<std::string>(&r)) return *why;
  ADD_FAILURE() << text << " parsed";
  return {};
}

TEST(AclText, ParsesZkClisSyntax) {
  EXPECT_EQ(acl_of("world:anyone:cdrwa"), (ACLs{{perms::kAll, {"world", "anyone"}}}));
  EXPECT_EQ(acl_of("digest:alice:V55/p2T0OpjQ+low3NVAH4aLvm0=:cdrwa,world:anyone:r"),
            (ACLs{{perms::kAll, {"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="}},
                  {perms::kRead, {"world", "anyone"}}}));
  EXPECT_EQ(acl_of("ip:10.0.0.0/8:rw"),
            (ACLs{{perms::kRead | perms::kWrite, {"ip", "10.0.0.0/8"}}}));
  EXPECT_EQ(acl_of("auth::ad"), (ACLs{{perms::kAdmin | perms::kDelete, {"auth", ""}}}));
  EXPECT_EQ(acl_of("world:anyone:"), (ACLs{{0, {"world", "anyone"}}}));
}

TEST(AclText, RefusesWhatZkCliWouldSkip) {
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
  EXPECT_NE(error_of("world:anyone").find("'world:anyone' is not scheme:id:perms"),
            std::string::npos);
  EXPECT_NE(error_of("world:anyone:r,").find("'' is not"), std::string::npos);
  EXPECT_NE(error_of("world:anyone:rx").find("unknown permission 'x'"), std::string::npos);
}

TEST(AclText, PrintsEntriesAsItParsesThem) {
  EXPECT_EQ(perms_text(perms::kAll), "cdrwa");
  EXPECT_EQ(perms_text(perms::kRead | perms::kAdmin), "ra");
  EXPECT_EQ(perms_text(0), "");
  const std::string text = "digest:alice:V55/p2T0OpjQ+low3NVAH4aLvm0=:cdrwa";
  EXPECT_EQ(acl_entry_text(acl_of(text).at(0)), text);
}

template <typename T>
T parse_as(std::vector<std::string> words) {
  ParseResult r = parse_command(words);
  if (const auto* u = std::get_if<UsageError>(&r)) {
    ADD_FAILURE() << "usage error: " << u->message;
    return T{};
  }
  return std::get<T>(std::get<Command>(r));
}

std::string usage(std::vector<std::string> words) {
  ParseResult r = parse_command(words);
  if (const auto* u = std::get_if<UsageError>(&r)) return u->message;
  ADD_FAILURE() << "expected a usage error";
  return {};
}

TEST(AclCommands, Parse) {
  EXPECT_EQ(parse_as<AddAuthCommand>({"addauth", "digest", "alice:pw"}),
            (AddAuthCommand{"digest", "alice:pw"}));
  EXPECT_EQ(parse_as<GetAclCommand>({"getacl", "/a"}), (GetAclCommand{"/a", false}));
  EXPECT_EQ(parse_as<GetAclCommand>({"getacl", "-S", "/a"}), (GetAclCommand{"/a", true}));
  EXPECT_EQ(parse_as<SetAclCommand>({"setacl", "/a", "world:anyone:r"}),
            (SetAclCommand{"/a", {{perms::kRead, {"world", "anyone"}}}, -1, false, false}));
  EXPECT_EQ(parse_as<SetAclCommand>({"setacl", "-v", "3", "-S", "/a", "auth::cdrwa"}),
            (SetAclCommand{"/a", {{perms::kAll, {"auth", ""}}}, 3, true, false}));
  Command c = AddAuthCommand{"digest", "x"};
  EXPECT_STREQ(command_name(c), "addauth");
  EXPECT_EQ(command_path(c), "");
}

TEST(AclCommands, UsageErrors) {
  EXPECT_NE(usage({"addauth", "digest"}).find("addauth: "), std::string::npos);
  EXPECT_NE(usage({"setacl", "/a"}).find("setacl: "), std::string::npos);
  EXPECT_EQ(usage({"setacl", "/a", "world:anyone:q"}),
            "setacl: 'world:anyone:q': unknown permission 'q' (use c, d, r, w, a)");
  EXPECT_NE(command_help_text().find("setAcl [-s] [-v VERSION] [-R] PATH ACL"), std::string::npos);
}

TEST(AclCommands, GetAclPrintsOneEntryPerLineOrJson) {
  AclResult r{"/a",
              {{perms::kAll, {"digest", "alice:x"}}, {perms::kRead, {"world", "anyone"}}},
              std::nullopt};
  EXPECT_EQ(render_result(r, OutputMode::kHuman), "digest:alice:x:cdrwa\nworld:anyone:r\n");
  EXPECT_EQ(
      render_result(r, OutputMode::kJson),
      "{\"format\":2,\"path\":\"/a\",\"acl\":[{\"scheme\":\"digest\",\"id\":\"alice:x\",\"perms\":"
      "\"cdrwa\"},{\"scheme\":\"world\",\"id\":\"anyone\",\"perms\":\"r\"}]}\n");
  EXPECT_EQ(render_result(AuthAddedResult{"digest"}, OutputMode::kHuman), "");
  EXPECT_EQ(render_result(AuthAddedResult{"digest"}, OutputMode::kJson),
            "{\"format\":2,\"scheme\":\"digest\",\"added\":true}\n");
}

}  // namespace
}  // namespace zkctl

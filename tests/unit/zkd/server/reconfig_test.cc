// SPDX-License-Identifier: Apache-2.0
// The reconfig request's plan: Apache's incremental and non-incremental
// forms, the version check and the refusals, and the membership text read
// back (kazoo's TestReconfig and zkCli's reconfig send these shapes).
#include "zkd/server/reconfig.h"

#include <gtest/gtest.h>

#include <string>

#include "libzk/wire/jute.h"
#include "zkd/server/membership.h"

namespace zkd::server {
namespace {

using zk::wire::Error;

QuorumServers three() {
  auto parsed = parse_membership_text(
      "server.1=127.0.0.1:2888:3888:participant;0.0.0.0:2181\n"
      "server.2=127.0.0.1:2889:3889:participant;0.0.0.0:2182\n"
      "server.3=127.0.0.1:2890:3890:participant;0.0.0.0:2183\n"
      "version=0");
  EXPECT_TRUE(parsed);
  return parsed ? parsed->first : QuorumServers{};
}

ReconfigRequest incremental(const char* joining, const char* leaving, int64_t from = -1) {
  ReconfigRequest r;
  if (joining != nullptr) r.joining = joining;
  if (leaving != nullptr) r.leaving = leaving;
  r.from_config = from;
  return r;
}

TEST(Reconfig, AddsAnObserverAsKazooWritesItAndTheTextHoldsItVerbatim) {
  const std::string joining = "server.100=0.0.0.0:30001:30002:observer;0.0.0.0:30003";
  const ReconfigPlan plan = plan_reconfig(three(), 0, incremental(joining.c_str(), nullptr));
  ASSERT_EQ(plan.error, Error::kOk) << plan.why;
  ASSERT_EQ(plan.servers.size(), 4u);
  EXPECT_TRUE(plan.servers.at(100).observer);
  const std::string text = membership_text(plan.servers, 0x100000003);
  EXPECT_NE(text.find(joining + "\n"), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with("\nversion=100000003")) << text;
  // And back.
  const auto back = parse_membership_text(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->second, 0x100000003);
  EXPECT_EQ(membership_text(back->first, back->second), text);
}

TEST(Reconfig, RemovesByIdAndJoinsAndLeavesInOneRequest) {
  const ReconfigPlan plan = plan_reconfig(
      three(), 0, incremental("server.4=127.0.0.1:2891:3891;2184, server.5=h5:1:2", "2 , 3"));
  ASSERT_EQ(plan.error, Error::kOk) << plan.why;
  EXPECT_EQ(plan.servers.size(), 3u);
  EXPECT_TRUE(plan.servers.contains(1));
  EXPECT_TRUE(plan.servers.contains(4));
  EXPECT_TRUE(plan.servers.contains(5));
  EXPECT_FALSE(plan.servers.contains(2));
}

TEST(Reconfig, NewMembersReplaceTheWholeMembership) {
  ReconfigRequest r;
  r.new_members = "server.1=127.0.0.1:2888:3888;2181,server.7=127.0.0.1:2897:3897;2187";
  const ReconfigPlan plan = plan_reconfig(three(), 0, r);
  ASSERT_EQ(plan.error, Error::kOk) << plan.why;
  EXPECT_EQ(plan.servers.size(), 2u);
  EXPECT_TRUE(plan.servers.contains(7));
  r.joining = "server.8=h:1:2";
  EXPECT_EQ(plan_reconfig(three(), 0, r).error, Error::kBadArguments);
}

TEST(Reconfig, AVersionOtherThanTheCurrentOneIsBadVersion) {
  EXPECT_EQ(plan_reconfig(three(), 0x100000002, incremental(nullptr, "3", 0x100000003)).error,
            Error::kBadVersion);
  EXPECT_EQ(plan_reconfig(three(), 0x100000002, incremental(nullptr, "3", 0x100000002)).error,
            Error::kOk);
  EXPECT_EQ(plan_reconfig(three(), 0x100000002, incremental(nullptr, "3", -1)).error, Error::kOk);
}

TEST(Reconfig, BadInputIsBadArguments) {
  for (const char* joining :
       {"some thing", "server.x=h:1:2", "server.4=h:1", "server.0=h:1:2", "server.4=h:1:2:voter"}) {
    const ReconfigPlan plan = plan_reconfig(three(), 0, incremental(joining, nullptr));
    EXPECT_EQ(plan.error, Error::kBadArguments) << joining;
    EXPECT_FALSE(plan.why.empty()) << joining;
  }
  EXPECT_EQ(plan_reconfig(three(), 0, incremental(nullptr, "two")).error, Error::kBadArguments);
  // Nobody left to vote.
  EXPECT_EQ(plan_reconfig(three(), 0, incremental(nullptr, "1,2,3")).error, Error::kBadArguments);
}

TEST(Reconfig, AMemberChangesBetweenParticipantAndObserverInOneStep) {
  const ReconfigPlan demoted =
      plan_reconfig(three(), 0, incremental("server.3=127.0.0.1:2890:3890:observer", nullptr));
  ASSERT_EQ(demoted.error, Error::kOk) << demoted.why;
  EXPECT_TRUE(demoted.servers.at(3).observer);
  const ReconfigPlan promoted = plan_reconfig(
      demoted.servers, 0, incremental("server.3=127.0.0.1:2890:3890:participant", nullptr));
  ASSERT_EQ(promoted.error, Error::kOk) << promoted.why;
  EXPECT_FALSE(promoted.servers.at(3).observer);
}

TEST(Reconfig, DecodesTheRequestNullAndEmptyAlike) {
  std::string body;
  zk::wire::Writer w(body);
  w.ustring("server.4=h:1:2");
  w.null_ustring();
  w.ustring("");
  w.int64(7);
  const auto r = decode_reconfig_request(body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->joining, "server.4=h:1:2");
  EXPECT_FALSE(r->leaving);
  EXPECT_FALSE(r->new_members);
  EXPECT_EQ(r->from_config, 7);
  EXPECT_FALSE(decode_reconfig_request(body.substr(0, body.size() - 1)));
  EXPECT_FALSE(decode_reconfig_request(body + "x"));
}

}  // namespace
}  // namespace zkd::server

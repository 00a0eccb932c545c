// SPDX-License-Identifier: Apache-2.0
// The ACL table (§10.4 of docs/wire-protocol.md): every operation against every
// permission set on its node, as nobody (only an ip id), as the owner (a
// digest id) and as super. The node /t/n carries the ACL under test; the
// operations that act on a child (create, delete) use /t/n as the parent.
// The expectation is Apache's rule, written here on its own: super may do
// anything, getACL needs READ or ADMIN, every other operation its one bit
// (create CREATE, delete DELETE, setData WRITE, setACL ADMIN, reads, exists
// (from 3.8.4, ZOOKEEPER-2590) and check READ), which only the owner's entry
// can grant.
#include <string>
#include <tuple>
#include <vector>

#include "libzk/wire/multi.h"
#include "tree_fixture.h"

namespace zkd::tree::testing {
namespace {

namespace perms = zk::wire::perms;
using zk::wire::ACLs;
using zk::wire::Id;

const Id kOwner{"digest", "alice:V55/p2T0OpjQ+low3NVAH4aLvm0="};    // alice:pw
const Id kOtherUser{"digest", "bob:ikIaKsbtGweaHnb/jKn7OHqbunM="};  // bob:pw

AuthIds nobody() { return AuthIds({{"ip", "127.0.0.1"}}); }
AuthIds owner() { return AuthIds({{"ip", "127.0.0.1"}, kOwner}); }
AuthIds super_user() { return AuthIds({{"ip", "127.0.0.1"}, {"super", ""}, kOwner}); }

enum class Op {
  kCreateChild,
  kDeleteChild,
  kSetData,
  kGetData,
  kGetChildren,
  kGetChildren2,
  kExists,
  kGetACL,
  kSetACL,
  kCheckInMulti,
  kMultiReadGetData,
};
const std::vector<Op> kOps = {Op::kCreateChild,  Op::kDeleteChild,     Op::kSetData,
                              Op::kGetData,      Op::kGetChildren,     Op::kGetChildren2,
                              Op::kExists,       Op::kGetACL,          Op::kSetACL,
                              Op::kCheckInMulti, Op::kMultiReadGetData};

std::string op_name(Op op) {
  switch (op) {
    case Op::kCreateChild:
      return "CreateChild";
    case Op::kDeleteChild:
      return "DeleteChild";
    case Op::kSetData:
      return "SetData";
    case Op::kGetData:
      return "GetData";
    case Op::kGetChildren:
      return "GetChildren";
    case Op::kGetChildren2:
      return "GetChildren2";
    case Op::kExists:
      return "Exists";
    case Op::kGetACL:
      return "GetACL";
    case Op::kSetACL:
      return "SetACL";
    case Op::kCheckInMulti:
      return "CheckInMulti";
    case Op::kMultiReadGetData:
      return "MultiReadGetData";
  }
  return "?";
}

// The bits an operation needs on /t/n (either one will do); 0: none.
int32_t needed(Op op) {
  switch (op) {
    case Op::kCreateChild:
      return perms::kCreate;
    case Op::kDeleteChild:
      return perms::kDelete;
    case Op::kSetData:
      return perms::kWrite;
    case Op::kSetACL:
      return perms::kAdmin;
    case Op::kGetACL:
      return perms::kRead | perms::kAdmin;
    default:
      return perms::kRead;
  }
}

// A permission set on /t/n: `perms` for the owner, or (other_user) ALL for
// somebody else only.
struct PermSet {
  std::string name;
  int32_t owner_perms;
  ACLs acl;
};
std::vector<PermSet> perm_sets() {
  std::vector<PermSet> out;
  for (auto [name, bits] :
       {std::pair{"Read", perms::kRead}, std::pair{"Write", perms::kWrite},
        std::pair{"Create", perms::kCreate}, std::pair{"Delete", perms::kDelete},
        std::pair{"Admin", perms::kAdmin}, std::pair{"All", perms::kAll}}) {
    out.push_back({name, bits, {{bits, kOwner}}});
  }
  out.push_back({"OtherUserOnly", 0, {{perms::kAll, kOtherUser}}});
  return out;
}

enum class Caller { kNobody, kOwner, kSuper };
const std::vector<Caller> kCallers = {Caller::kNobody, Caller::kOwner, Caller::kSuper};
std::string caller_name(Caller c) {
  return c == Caller::kNobody ? "Nobody" : c == Caller::kOwner ? "Owner" : "Super";
}
AuthIds ids_of(Caller c) {
  return c == Caller::kNobody ? nobody() : c == Caller::kOwner ? owner() : super_user();
}

Error expected(Op op, const PermSet& set, Caller caller) {
  if (caller == Caller::kSuper || needed(op) == 0) return Error::kOk;
  if (caller == Caller::kOwner && (set.owner_perms & needed(op)) != 0) return Error::kOk;
  return Error::kNoAuth;
}

using Case = std::tuple<Op, int, Caller>;  // op, index into perm_sets(), caller

class AclTable : public TreeTest, public ::testing::WithParamInterface<Case> {
 protected:
  // /t (open), /t/n (the ACL under test), /t/n/c (open), made by super.
  void SetUp() override {
    TreeTest::SetUp();
    ASSERT_EQ(write_as(super_user(), OpCode::kCreate, create_body("/t", open())), Error::kOk);
    ASSERT_EQ(write_as(super_user(), OpCode::kCreate, create_body("/t/n", set().acl)), Error::kOk);
    ASSERT_EQ(write_as(super_user(), OpCode::kCreate, create_body("/t/n/c", open())), Error::kOk);
  }

  const PermSet& set() const {
    static const std::vector<PermSet> sets = perm_sets();
    return sets[static_cast<size_t>(std::get<1>(GetParam()))];
  }
  static ACLs open() { return zk::wire::open_acl_unsafe(); }
  static std::string create_body(const std::string& path, const ACLs& acl) {
    return encode(zk::wire::CreateRequest{path, std::string(), acl, 0});
  }

  // A write prepared for `ids` and applied; its reply's err.
  Error write_as(const AuthIds& ids, OpCode op, const std::string& body) {
    int64_t z = next_zxid();
    last_txn = db.prepare(kSession, 7, op, body, z, time_of(z), ids);
    last_reply = db.apply(last_txn).response;
    return last_reply.err;
  }
  // The err of the only operation of a multi (14) or multiRead (22) reply.
  static Error only_result(const Response& r) {
    EXPECT_EQ(r.err, Error::kOk);
    std::vector<zk::wire::MultiResult> results;
    EXPECT_TRUE(zk::wire::decode_multi_response(r.body, results));
    EXPECT_EQ(results.size(), 1u);
    return results.empty() ? Error::kSystemError : results[0].err;
  }

  Error run(Op op, const AuthIds& ids) {
    auto path_watch = [](const std::string& path) {
      return encode(zk::wire::PathWatchRequest{path, true});
    };
    switch (op) {
      case Op::kCreateChild:
        return write_as(ids, OpCode::kCreate, create_body("/t/n/new", open()));
      case Op::kDeleteChild:
        return write_as(ids, OpCode::kDelete, encode(zk::wire::DeleteRequest{"/t/n/c", -1}));
      case Op::kSetData:
        return write_as(ids, OpCode::kSetData,
                        encode(zk::wire::SetDataRequest{"/t/n", std::string("x"), -1}));
      case Op::kSetACL:
        return write_as(ids, OpCode::kSetACL,
                        encode(zk::wire::SetACLRequest{"/t/n", set().acl, -1}));
      case Op::kCheckInMulti:
        write_as(ids, OpCode::kMulti,
                 zk::wire::encode_multi_request({zk::wire::multi_check("/t/n", -1)}));
        return only_result(last_reply);
      case Op::kGetData:
        return db.read(1, OpCode::kGetData, path_watch("/t/n"), ids).err;
      case Op::kGetChildren:
        return db.read(1, OpCode::kGetChildren, path_watch("/t/n"), ids).err;
      case Op::kGetChildren2:
        return db.read(1, OpCode::kGetChildren2, path_watch("/t/n"), ids).err;
      case Op::kExists:
        return db.read(1, OpCode::kExists, path_watch("/t/n"), ids).err;
      case Op::kGetACL:
        return db.read(1, OpCode::kGetACL, encode(zk::wire::PathRecord{"/t/n"}), ids).err;
      case Op::kMultiReadGetData:
        return only_result(
            db.read(1, OpCode::kMultiRead,
                    zk::wire::encode_multi_request({zk::wire::multi_get_data("/t/n")}), ids));
    }
    return Error::kSystemError;
  }

  Response last_reply;
};

TEST_P(AclTable, OperationIsAllowedExactlyAsApacheAllows) {
  const Op op = std::get<0>(GetParam());
  const Caller caller = std::get<2>(GetParam());
  EXPECT_EQ(run(op, ids_of(caller)), expected(op, set(), caller))
      << op_name(op) << " on a node granting " << set().name << " to the owner, as "
      << caller_name(caller);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return op_name(std::get<0>(info.param)) + "_" +
         perm_sets()[static_cast<size_t>(std::get<1>(info.param))].name + "_" +
         caller_name(std::get<2>(info.param));
}

INSTANTIATE_TEST_SUITE_P(EveryOpPermAndCaller, AclTable,
                         ::testing::Combine(::testing::ValuesIn(kOps),
                                            ::testing::Range(0,
                                                             static_cast<int>(perm_sets().size())),
                                            ::testing::ValuesIn(kCallers)),
                         case_name);

}  // namespace
}  // namespace zkd::tree::testing

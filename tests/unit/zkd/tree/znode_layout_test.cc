// SPDX-License-Identifier: Apache-2.0
// The compact layout (znode.h, acl_cache.h): a node whose data outgrows its
// allocation, or whose Stat needs a part it does not store, moves, and the
// index, its parent and the digest follow; ACL lists are shared and go when
// their last node does.
#include <gtest/gtest.h>

#include <string>

#include "zkd/tree/data_tree.h"

namespace zkd::tree {
namespace {

using zk::wire::Error;

const zk::wire::ACLs kDigestAcl{{zk::wire::perms::kAll, {"digest", "alice:x"}}};

std::string data_of(const DataTree& tree, std::string_view path) {
  const Node* node = tree.find(path);
  return node != nullptr && node->data() ? std::string(*node->data()) : "<none>";
}

TEST(ZnodeLayout, DataThatOutgrowsTheNodeMovesItAndParentAndChildrenFollow) {
  DataTree tree;
  const auto open = zk::wire::open_acl_unsafe();
  ASSERT_EQ(tree.create("/a", std::string("x"), open, 0, -1, 1, 1), Error::kOk);
  ASSERT_EQ(tree.create("/a/b", std::string("y"), open, 0, -1, 2, 2), Error::kOk);
  const std::string big(10000, 'z');
  ASSERT_EQ(tree.set_data("/a", big, 1, 3, 3), Error::kOk);

  const Node* a = tree.find("/a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(data_of(tree, "/a"), big);
  EXPECT_EQ(a->stat().version, 1);
  EXPECT_EQ(a->stat().mzxid, 3);
  EXPECT_EQ(a->stat().czxid, 1);
  ASSERT_EQ(a->children().size(), 1u);
  EXPECT_EQ((*a->children().begin())->path(), "/a/b");
  const ChildSet& top = tree.find("/")->children();
  ASSERT_TRUE(top.contains("a"));
  EXPECT_EQ(*top.find("a"), a);  // the parent links the moved node

  ASSERT_EQ(tree.set_data("/a", std::nullopt, 2, 4, 4), Error::kOk);
  EXPECT_FALSE(tree.find("/a")->data().has_value());
  EXPECT_EQ(tree.remove("/a/b", 5), Error::kOk);
  EXPECT_EQ(tree.remove("/a", 6), Error::kOk);
  EXPECT_EQ(tree.find("/a"), nullptr);
  EXPECT_FALSE(tree.find("/")->children().contains("a"));
}

// What every change must keep: the node the index finds is the one its
// parent links, and the digest equals one computed afresh.
void expect_linked(const DataTree& tree, std::string_view path) {
  const Node* node = tree.find(path);
  ASSERT_NE(node, nullptr) << path;
  std::string_view parent = path.substr(0, path.rfind('/'));
  const ChildSet& siblings = tree.find(parent.empty() ? "/" : parent)->children();
  auto it = siblings.find(node->name());
  ASSERT_NE(it, siblings.end()) << path;
  EXPECT_EQ(*it, node) << path;
  EXPECT_EQ(tree.digest(), tree.compute_digest());
}

TEST(ZnodeLayout, EveryStatFieldSurvivesTheChangesThatGrowTheNode) {
  DataTree tree;
  const auto open = zk::wire::open_acl_unsafe();
  ASSERT_EQ(tree.create("/p", std::string("data"), open, 0, -1, 10, 100), Error::kOk);
  StoredStat s = tree.find("/p")->stat();
  EXPECT_EQ(s.czxid, 10);
  EXPECT_EQ(s.mzxid, 10);
  EXPECT_EQ(s.pzxid, 10);
  EXPECT_EQ(s.ctime, 100);
  EXPECT_EQ(s.mtime, 100);
  EXPECT_EQ(s.version, 0);
  EXPECT_EQ(s.cversion, 0);
  EXPECT_EQ(s.aversion, 0);
  EXPECT_EQ(s.ephemeral_owner, 0);
  expect_linked(tree, "/p");

  // A leaf becomes a parent: pzxid and cversion.
  ASSERT_EQ(tree.create("/p/c", std::nullopt, open, 0, -1, 11, 110), Error::kOk);
  expect_linked(tree, "/p");
  expect_linked(tree, "/p/c");
  // Then is modified: mzxid, mtime and version, the data kept.
  ASSERT_EQ(tree.set_data("/p", std::string("data"), 1, 12, 120), Error::kOk);
  expect_linked(tree, "/p");
  // Then has its ACL changed: aversion.
  ASSERT_EQ(tree.set_acl("/p", kDigestAcl, 1), Error::kOk);
  expect_linked(tree, "/p");
  ASSERT_EQ(tree.remove("/p/c", 13), Error::kOk);
  expect_linked(tree, "/p");

  const Node* p = tree.find("/p");
  s = p->stat();
  EXPECT_EQ(s.czxid, 10);
  EXPECT_EQ(s.mzxid, 12);
  EXPECT_EQ(s.pzxid, 13);
  EXPECT_EQ(s.ctime, 100);
  EXPECT_EQ(s.mtime, 120);
  EXPECT_EQ(s.version, 1);
  EXPECT_EQ(s.cversion, 1);
  EXPECT_EQ(s.aversion, 1);
  EXPECT_EQ(s.ephemeral_owner, 0);
  EXPECT_EQ(data_of(tree, "/p"), "data");
  EXPECT_EQ(p->acl(), kDigestAcl);
  EXPECT_TRUE(p->children().empty());
}

TEST(ZnodeLayout, AnEphemeralKeepsItsOwnerAndKind) {
  DataTree tree;
  const SessionId owner = 0x1000004c2160000;
  ASSERT_EQ(tree.create("/e", std::string("v"), zk::wire::open_acl_unsafe(), owner, -1, 5, 50),
            Error::kOk);
  ASSERT_EQ(tree.set_data("/e", std::string("w"), 1, 6, 60), Error::kOk);
  const StoredStat s = tree.find("/e")->stat();
  EXPECT_EQ(s.ephemeral_owner, owner);
  EXPECT_EQ(s.kind, NodeKind::kEphemeral);
  EXPECT_EQ(tree.find("/e")->kind(), NodeKind::kEphemeral);
  EXPECT_EQ(s.mzxid, 6);
  expect_linked(tree, "/e");
}

TEST(ZnodeLayout, DataShrinksInPlaceAndGrowsBackWithinTheBlock) {
  DataTree tree;
  ASSERT_EQ(tree.create("/s", std::string(100, 'a'), zk::wire::open_acl_unsafe(), 0, -1, 1, 1),
            Error::kOk);
  ASSERT_EQ(tree.set_data("/s", std::string(100, 'b'), 1, 2, 2), Error::kOk);
  const Node* before = tree.find("/s");
  ASSERT_EQ(tree.set_data("/s", std::string(3, 'c'), 2, 3, 3), Error::kOk);
  EXPECT_EQ(tree.find("/s"), before);  // in place: no part or room missing
  ASSERT_EQ(tree.set_data("/s", std::string(100, 'd'), 3, 4, 4), Error::kOk);
  EXPECT_EQ(tree.find("/s"), before);
  EXPECT_EQ(data_of(tree, "/s"), std::string(100, 'd'));
  ASSERT_EQ(tree.set_data("/s", std::string(101, 'e'), 4, 5, 5), Error::kOk);
  EXPECT_EQ(data_of(tree, "/s"), std::string(101, 'e'));
  EXPECT_EQ(tree.find("/s")->stat().version, 4);
  expect_linked(tree, "/s");
}

TEST(ZnodeLayout, ABigNodeShrinksFarAndStillFreesItsWholeBlock) {
  DataTree tree;
  // 200 KiB of slack does not fit the node's 16-bit count: it moves instead.
  ASSERT_EQ(tree.create("/b", std::string(200000, 'a'), zk::wire::open_acl_unsafe(), 0, -1, 1, 1),
            Error::kOk);
  ASSERT_EQ(tree.set_data("/b", std::string(10, 'b'), 1, 2, 2), Error::kOk);
  EXPECT_EQ(data_of(tree, "/b"), std::string(10, 'b'));
  ASSERT_EQ(tree.set_data("/b", std::string(8000, 'c'), 2, 3, 3), Error::kOk);
  ASSERT_EQ(tree.set_data("/b", std::string(7000, 'd'), 3, 4, 4), Error::kOk);
  EXPECT_EQ(data_of(tree, "/b"), std::string(7000, 'd'));
  expect_linked(tree, "/b");
  EXPECT_EQ(tree.remove("/b", 5), Error::kOk);  // ASan sees a wrong block size
}

TEST(ZnodeLayout, TheRootsDataCanGrow) {
  DataTree tree;
  const std::string big(5000, 'r');
  ASSERT_EQ(tree.set_data("/", big, 1, 1, 1), Error::kOk);
  EXPECT_EQ(data_of(tree, "/"), big);
  EXPECT_EQ(data_of(tree, ""), big);
  EXPECT_TRUE(tree.find("/")->children().contains("zookeeper"));
}

TEST(ZnodeLayout, EqualAclListsAreStoredOnceAndFreedWithTheirLastNode) {
  DataTree tree;
  const size_t fresh = tree.acl_list_count();  // open and read-only
  EXPECT_EQ(fresh, 2u);
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(tree.create("/n" + std::to_string(i), std::string(), zk::wire::open_acl_unsafe(), 0,
                          -1, 1 + i, 1),
              Error::kOk);
  }
  EXPECT_EQ(tree.acl_list_count(), fresh);
  EXPECT_EQ(&tree.find("/n1")->acl(), &tree.find("/n2")->acl());

  ASSERT_EQ(tree.create("/d1", std::string(), kDigestAcl, 0, -1, 200, 1), Error::kOk);
  ASSERT_EQ(tree.create("/d2", std::string(), kDigestAcl, 0, -1, 201, 1), Error::kOk);
  EXPECT_EQ(tree.acl_list_count(), fresh + 1);
  ASSERT_EQ(tree.remove("/d1", 202), Error::kOk);
  EXPECT_EQ(tree.acl_list_count(), fresh + 1);
  EXPECT_EQ(tree.find("/d2")->acl(), kDigestAcl);
  ASSERT_EQ(tree.set_acl("/d2", zk::wire::open_acl_unsafe(), 1), Error::kOk);
  EXPECT_EQ(tree.acl_list_count(), fresh);
  EXPECT_EQ(tree.find("/d2")->acl(), zk::wire::open_acl_unsafe());
}

TEST(ZnodeLayout, MovingTheTreeKeepsNodesAndAcls) {
  DataTree tree;
  ASSERT_EQ(tree.create("/d", std::string("v"), kDigestAcl, 0, -1, 1, 1), Error::kOk);
  DataTree moved(std::move(tree));
  EXPECT_EQ(data_of(moved, "/d"), "v");
  EXPECT_EQ(moved.find("/d")->acl(), kDigestAcl);
  DataTree assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.find("/d")->acl(), kDigestAcl);
  EXPECT_EQ(assigned.node_count(), 6);
}

}  // namespace
}  // namespace zkd::tree

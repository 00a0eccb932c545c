// SPDX-License-Identifier: Apache-2.0
// The compact layout (znode.h, acl_cache.h): a node whose data outgrows its
// allocation moves, and the index and its parent follow; ACL lists are shared
// and go when their last node does.
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

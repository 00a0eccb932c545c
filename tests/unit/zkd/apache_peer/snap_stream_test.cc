// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/snap_stream.h"

#include <gtest/gtest.h>

#include <string>

#include "big_endian.h"

namespace zkd::apache {
namespace {

using testing::be32;
using testing::be64;

std::string ustring(const std::string& s) { return be32(static_cast<int32_t>(s.size())) + s; }

// Two sessions, one ACL list, the nodes "" and /a, the end and the signature.
std::string stream() {
  std::string s = be32(2) + be64(0x100) + be32(4000) + be64(0x200) + be32(6000);
  s += be32(1) + be64(1) + be32(1) + be32(31) + ustring("world") + ustring("anyone");
  const std::string stat(60, '\0');
  s += ustring("") + be32(-1) + be64(-1) + stat;
  s += ustring("/a") + ustring("data") + be64(1) + stat;
  s += ustring("/") + ustring("BenWasHere");
  return s;
}

TEST(SnapStreamScanner, FindsTheEndAfterTheSignature) {
  const std::string bytes = stream() + "the next packet";
  SnapStreamScanner scanner;
  std::string error;
  ASSERT_EQ(scanner.scan(bytes, error), Decode::kOk) << error;
  EXPECT_EQ(scanner.end(), stream().size());
  EXPECT_EQ(scanner.nodes(), 2);
}

TEST(SnapStreamScanner, ResumesAsMoreBytesArrive) {
  const std::string bytes = stream();
  SnapStreamScanner scanner;
  std::string error;
  for (size_t n = 0; n < bytes.size(); ++n) {
    ASSERT_EQ(scanner.scan(std::string_view(bytes).substr(0, n), error), Decode::kNeedMore) << n;
  }
  ASSERT_EQ(scanner.scan(bytes, error), Decode::kOk);
  EXPECT_EQ(scanner.end(), bytes.size());
}

TEST(SnapStreamScanner, RefusesAMissingSignatureAndBadLengths) {
  std::string bytes = stream();
  bytes.replace(bytes.size() - 10, 10, "BenWasHerf");
  SnapStreamScanner scanner;
  std::string error;
  EXPECT_EQ(scanner.scan(bytes, error), Decode::kBad);
  EXPECT_NE(error.find("signature"), std::string::npos) << error;
  SnapStreamScanner negative;
  EXPECT_EQ(negative.scan(be32(-5), error), Decode::kBad);
}

}  // namespace
}  // namespace zkd::apache

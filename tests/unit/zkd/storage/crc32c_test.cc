// SPDX-License-Identifier: Apache-2.0
#include "zkd/storage/crc32c.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace zkd::storage {
namespace {

std::string bytes(std::initializer_list<int> list) {
  std::string s;
  for (int b : list) s.push_back(static_cast<char>(b));
  return s;
}

struct Vector {
  std::string data;
  uint32_t crc;
};

std::vector<Vector> standard_vectors() {
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i));
  for (int i = 31; i >= 0; --i) descending.push_back(static_cast<char>(i));
  return {
      {"", 0x00000000u},
      {"123456789", 0xe3069283u},
      {std::string(32, '\0'), 0x8a9136aau},
      {std::string(32, '\xff'), 0x62a8ab43u},
      {ascending, 0x46dd794eu},
      {descending, 0x113fdb5cu},
      // iSCSI read command PDU (RFC 3720, B.4).
      {bytes({0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
              0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
              0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
              0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}),
       0xd9963a56u},
  };
}

TEST(Crc32cTest, StandardVectors) {
  for (const Vector& v : standard_vectors()) {
    EXPECT_EQ(crc32c::value(v.data), v.crc) << "size " << v.data.size();
    EXPECT_EQ(crc32c::extend_portable(0, v.data.data(), v.data.size()), v.crc);
    if (crc32c::hardware_available()) {
      EXPECT_EQ(crc32c::extend_sse42(0, v.data.data(), v.data.size()), v.crc);
    }
  }
}

TEST(Crc32cTest, ExtendEqualsCrcOfConcatenation) {
  const std::string a = "hello, ", b = "world and more than eight bytes";
  EXPECT_EQ(crc32c::extend(crc32c::value(a), b), crc32c::value(a + b));
}

TEST(Crc32cTest, HardwareAndPortableAgreeOnRandomData) {
  if (!crc32c::hardware_available()) GTEST_SKIP() << "no SSE4.2 on this CPU";
  std::mt19937_64 rng(20240521);
  std::string data(70000, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (int trial = 0; trial < 500; ++trial) {
    size_t offset = rng() % 64;  // also misaligned starts
    size_t n = rng() % (data.size() - offset);
    if (trial < 64) n = static_cast<size_t>(trial);  // every short length
    uint32_t seed = static_cast<uint32_t>(rng());
    ASSERT_EQ(crc32c::extend_portable(seed, data.data() + offset, n),
              crc32c::extend_sse42(seed, data.data() + offset, n))
        << "offset " << offset << " size " << n;
  }
}

TEST(Crc32cTest, MaskRoundTripsAndChangesTheValue) {
  const uint32_t crc = crc32c::value("foo");
  EXPECT_NE(crc32c::mask(crc), crc);
  EXPECT_NE(crc32c::mask(crc32c::mask(crc)), crc);
  EXPECT_EQ(crc32c::unmask(crc32c::mask(crc)), crc);
  EXPECT_EQ(crc32c::unmask(crc32c::unmask(crc32c::mask(crc32c::mask(crc)))), crc);
}

}  // namespace
}  // namespace zkd::storage

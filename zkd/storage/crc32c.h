// SPDX-License-Identifier: Apache-2.0
// CRC32C (Castagnoli): the checksum of every txn log record and snapshot
// file (docs/storage-format.md). Uses the SSE4.2 crc32 instruction when the
// CPU has it, else a table-driven (slicing-by-8) software version; both give
// the same values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace zkd::storage::crc32c {

// The CRC32C of `data` appended to bytes whose CRC32C is `crc` (0 for none):
// extend(extend(0, a), b) == extend(0, a + b). value("123456789") == 0xE3069283.
uint32_t extend(uint32_t crc, const void* data, size_t n);
inline uint32_t extend(uint32_t crc, std::string_view data) {
  return extend(crc, data.data(), data.size());
}
inline uint32_t value(std::string_view data) { return extend(0, data); }

// The two implementations behind extend(), for tests and benchmarks.
uint32_t extend_portable(uint32_t crc, const void* data, size_t n);
// Only callable when hardware_available(); same result as extend_portable.
uint32_t extend_sse42(uint32_t crc, const void* data, size_t n);
bool hardware_available();

// Stored checksums are masked, so that the CRC of bytes that contain CRCs is
// not degenerate: rotate right by 15 bits, add a constant.
inline constexpr uint32_t kMaskDelta = 0xa282ead8u;
inline uint32_t mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }
inline uint32_t unmask(uint32_t masked) {
  uint32_t rotated = masked - kMaskDelta;
  return (rotated >> 17) | (rotated << 15);
}

}  // namespace zkd::storage::crc32c

// SPDX-License-Identifier: Apache-2.0
#include "libzk/wire/jute.h"

#include <cstring>

namespace zk::wire {

void Writer::int32(int32_t v) {
  auto u = static_cast<uint32_t>(v);
  char b[4] = {static_cast<char>(u >> 24), static_cast<char>(u >> 16), static_cast<char>(u >> 8),
               static_cast<char>(u)};
  out_.append(b, 4);
}

void Writer::int64(int64_t v) {
  auto u = static_cast<uint64_t>(v);
  int32(static_cast<int32_t>(u >> 32));
  int32(static_cast<int32_t>(u & 0xffffffffu));
}

void Writer::buffer(const Buffer& v) {
  if (!v) {
    int32(-1);
    return;
  }
  buffer(std::string_view(*v));
}

void Writer::buffer(std::string_view v) {
  int32(static_cast<int32_t>(v.size()));
  out_.append(v);
}

void Writer::ustring(std::string_view v) { buffer(v); }

void Writer::strings(const std::vector<std::string>& v) {
  vector_size(v.size());
  for (const auto& s : v) ustring(s);
}

size_t Writer::begin_frame() {
  size_t start = out_.size();
  int32(0);
  return start;
}

void Writer::end_frame(size_t start) {
  auto len = static_cast<uint32_t>(out_.size() - start - 4);
  out_[start] = static_cast<char>(len >> 24);
  out_[start + 1] = static_cast<char>(len >> 16);
  out_[start + 2] = static_cast<char>(len >> 8);
  out_[start + 3] = static_cast<char>(len);
}

bool Reader::take(size_t n, const char** p) {
  if (!ok_ || data_.size() - pos_ < n) {
    ok_ = false;
    return false;
  }
  *p = data_.data() + pos_;
  pos_ += n;
  return true;
}

bool Reader::boolean() {
  const char* p;
  return take(1, &p) && *p != 0;
}

int32_t Reader::int32() {
  const char* p;
  if (!take(4, &p)) return 0;
  auto b = reinterpret_cast<const uint8_t*>(p);
  return static_cast<int32_t>(uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 |
                              uint32_t{b[3]});
}

int64_t Reader::int64() {
  auto hi = static_cast<uint32_t>(int32());
  auto lo = static_cast<uint32_t>(int32());
  return static_cast<int64_t>(uint64_t{hi} << 32 | lo);
}

Buffer Reader::buffer() {
  int32_t len = int32();
  if (!ok_) return std::nullopt;
  if (len == -1) return std::nullopt;
  if (len < -1 || len > kMaxFieldLength) {
    ok_ = false;
    return std::nullopt;
  }
  const char* p;
  if (!take(static_cast<size_t>(len), &p)) return std::nullopt;
  return std::string(p, static_cast<size_t>(len));
}

std::string Reader::ustring() {
  auto b = buffer();
  return b ? std::move(*b) : std::string{};
}

int32_t Reader::vector_size(int32_t min_element_size) {
  int32_t n = int32();
  if (!ok_) return 0;
  if (n == -1) return 0;
  if (n < -1 || static_cast<uint64_t>(n) * static_cast<uint64_t>(min_element_size) > remaining()) {
    ok_ = false;
    return 0;
  }
  return n;
}

std::vector<std::string> Reader::strings() {
  std::vector<std::string> v;
  int32_t n = vector_size(4);
  v.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n && ok_; ++i) v.push_back(ustring());
  return v;
}

}  // namespace zk::wire

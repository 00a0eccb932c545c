// SPDX-License-Identifier: Apache-2.0
// Jute binary encoding: the primitive types of Apache ZooKeeper's wire format.
// All integers are big-endian. Layouts: docs/wire-protocol.md §1.2.
//
// Writer appends to a byte string it does not own. Reader walks a byte range it
// does not own (the range must outlive the Reader) and has a sticky failure flag:
// once a read runs past the end or meets an invalid length, every later read
// returns a zero value and ok() stays false. Decoders read a whole record and
// check ok() once at the end.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zk::wire {

// A jute `buffer` is nullable: a length of -1 is null, 0 is empty (they differ).
using Buffer = std::optional<std::string>;

// Longest string or buffer a Reader accepts inside a record (Apache's
// jute.maxbuffer plus its default extrasize).
inline constexpr int32_t kMaxFieldLength = 2 * 1048575;

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}

  void boolean(bool v) { out_.push_back(v ? 1 : 0); }
  void int32(int32_t v);
  void int64(int64_t v);
  void buffer(const Buffer& v);
  void buffer(std::string_view v);   // never null
  void ustring(std::string_view v);  // never null
  void null_ustring() { int32(-1); }
  void vector_size(size_t n) { int32(static_cast<int32_t>(n)); }
  void strings(const std::vector<std::string>& v);

  // Frames: begin_frame() reserves the 4-byte length; end_frame() fills it in
  // with the number of bytes written since.
  size_t begin_frame();
  void end_frame(size_t start);

  std::string& bytes() { return out_; }

 private:
  std::string& out_;
};

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  // A Reader only views its bytes: reading a temporary string would dangle.
  explicit Reader(std::string&&) = delete;

  bool boolean();
  int32_t int32();
  int64_t int64();
  Buffer buffer();
  // A null ustring reads as the empty string (kazoo writes "" as null).
  std::string ustring();
  // A vector count; -1 (null) reads as 0. Fails on counts that cannot fit.
  int32_t vector_size(int32_t min_element_size = 1);
  std::vector<std::string> strings();

  bool ok() const { return ok_; }
  void fail() { ok_ = false; }
  size_t remaining() const { return ok_ ? data_.size() - pos_ : 0; }
  bool at_end() const { return ok_ && pos_ == data_.size(); }
  std::string_view rest() const { return ok_ ? data_.substr(pos_) : std::string_view{}; }

 private:
  bool take(size_t n, const char** p);

  std::string_view data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace zk::wire

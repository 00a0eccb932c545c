// SPDX-License-Identifier: Apache-2.0
#include "zkd/apache_peer/snap_stream.h"

#include <optional>

#include "libzk/wire/jute.h"

namespace zkd::apache {
namespace {

constexpr size_t kStatBytes = 4 * 8 + 3 * 4 + 2 * 8;
constexpr int32_t kMaxCount = 1 << 30;

// Reads items at `pos` of `bytes`; each read says whether its bytes are all
// there (nullopt: not yet) and fails `bad` for a length out of bounds.
class Cursor {
 public:
  Cursor(std::string_view bytes, size_t pos) : bytes_(bytes), pos_(pos) {}
  std::optional<int64_t> int64() { return integer(8); }
  std::optional<int64_t> int32() { return integer(4); }
  // A ustring or buffer: its length (-1 allowed where `nullable`), then that
  // many bytes, which it returns.
  std::optional<std::string_view> bytes(bool nullable) {
    auto n = int32();
    if (!n) return std::nullopt;
    if (*n == -1 && nullable) return std::string_view();
    if (*n < 0 || *n > zk::wire::kMaxFieldLength) {
      bad = true;
      return std::nullopt;
    }
    if (bytes_.size() - pos_ < static_cast<size_t>(*n)) return std::nullopt;
    std::string_view out = bytes_.substr(pos_, *n);
    pos_ += *n;
    return out;
  }
  bool skip(size_t n) {
    if (bytes_.size() - pos_ < n) return false;
    pos_ += n;
    return true;
  }
  size_t pos() const { return pos_; }
  bool bad = false;

 private:
  std::optional<int64_t> integer(size_t size) {
    if (bytes_.size() - pos_ < size) return std::nullopt;
    zk::wire::Reader r(bytes_.substr(pos_, size));
    pos_ += size;
    return size == 8 ? r.int64() : r.int32();
  }
  std::string_view bytes_;
  size_t pos_;
};

}  // namespace

Decode SnapStreamScanner::scan(std::string_view bytes, std::string& error) {
  const auto bad = [&](const std::string& what) {
    error = "the leader's snapshot stream at byte " + std::to_string(pos_) + ": " + what;
    return Decode::kBad;
  };
  while (phase_ != Phase::kDone) {
    Cursor c(bytes, pos_);
    switch (phase_) {
      case Phase::kSessionCount:
      case Phase::kAclCount: {
        auto n = c.int32();
        if (!n) return Decode::kNeedMore;
        if (*n < 0 || *n > kMaxCount) return bad("count " + std::to_string(*n) + " out of bounds");
        remaining_ = *n;
        phase_ = phase_ == Phase::kSessionCount ? Phase::kSessions : Phase::kAcls;
        break;
      }
      case Phase::kSessions:
        if (remaining_ == 0) {
          phase_ = Phase::kAclCount;
          continue;
        }
        if (!c.skip(12)) return Decode::kNeedMore;
        --remaining_;
        break;
      case Phase::kAcls: {
        if (remaining_ == 0) {
          phase_ = Phase::kNodes;
          continue;
        }
        if (!c.int64()) return Decode::kNeedMore;
        auto n = c.int32();
        if (!n) return Decode::kNeedMore;
        if (*n < -1 || *n > kMaxCount) return bad("ACL count " + std::to_string(*n));
        for (int64_t i = 0; i < *n; ++i) {
          if (!c.int32()) return Decode::kNeedMore;
          for (int part = 0; part < 2; ++part) {
            if (!c.bytes(false)) return c.bad ? bad("ACL id length") : Decode::kNeedMore;
          }
        }
        --remaining_;
        break;
      }
      case Phase::kNodes: {
        auto path = c.bytes(false);
        if (!path) return c.bad ? bad("path length") : Decode::kNeedMore;
        if (*path == "/") {
          phase_ = Phase::kSignature;
          break;
        }
        if (!c.bytes(true)) return c.bad ? bad("data length") : Decode::kNeedMore;
        if (!c.skip(8 + kStatBytes)) return Decode::kNeedMore;
        ++nodes_;
        break;
      }
      case Phase::kSignature: {
        auto signature = c.bytes(false);
        if (!signature) return c.bad ? bad("signature length") : Decode::kNeedMore;
        if (*signature != kSnapSignature) return bad("no signature after the nodes");
        phase_ = Phase::kDone;
        break;
      }
      case Phase::kDone:
        break;
    }
    pos_ = c.pos();
  }
  return Decode::kOk;
}

}  // namespace zkd::apache

// SPDX-License-Identifier: Apache-2.0
// A deliberately low-level ZooKeeper client for process tests: a blocking
// loopback TCP socket that sends and receives whole frames (zk::wire records)
// with deadlines, so tests can check exact bytes, sizes and when the server
// closes. Every wait has a deadline; nothing sleeps.
//
// Threading: one RawConnection per thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "libzk/wire/records.h"

namespace zk::lab {

class RawConnection {
 public:
  static std::optional<RawConnection> connect(
      const std::string& host, uint16_t port,
      std::chrono::milliseconds deadline = std::chrono::seconds(5));
  RawConnection(RawConnection&& other) noexcept;
  RawConnection& operator=(RawConnection&& other) noexcept;
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  ~RawConnection();

  bool send_bytes(std::string_view bytes);
  // Sends `payload` behind its 4-byte length.
  bool send_frame(std::string_view payload);
  // Sends RequestHeader{xid, op} + body.
  bool send_request(int32_t xid, zk::wire::OpCode op, std::string_view body = {});

  // The next frame's payload; nothing on deadline, EOF or error.
  std::optional<std::string> read_frame(
      std::chrono::milliseconds deadline = std::chrono::seconds(5));
  // True when the server closes the connection before the deadline without
  // sending anything more; false if data arrives or the deadline passes.
  bool closed_without_data(std::chrono::milliseconds deadline = std::chrono::seconds(5));
  // Everything until the server closes (four-letter words); nothing on deadline.
  std::optional<std::string> read_to_end(
      std::chrono::milliseconds deadline = std::chrono::seconds(5));

 private:
  explicit RawConnection(int fd) : fd_(fd) {}
  // Appends at least one byte to buffer_; false on EOF, error or deadline
  // (eof_ tells which).
  bool fill(std::chrono::steady_clock::time_point until);

  int fd_ = -1;
  std::string buffer_;
  bool eof_ = false;
};

// A ConnectRequest for a new session.
zk::wire::ConnectRequest new_session_request(int32_t timeout_ms = 30000);

// A connected session: the connection plus what the server answered.
struct Session {
  RawConnection connection;
  zk::wire::ConnectResponse response;
  size_t response_size = 0;  // payload bytes of the ConnectResponse frame
};
// Connects and performs the handshake; nothing when any step fails.
std::optional<Session> open_session(const std::string& host, uint16_t port,
                                    const zk::wire::ConnectRequest& request);

// Reply frame split into header and body.
struct Reply {
  zk::wire::ReplyHeader header;
  std::string body;
};
std::optional<Reply> parse_reply(std::string_view payload);

}  // namespace zk::lab

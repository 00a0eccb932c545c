// SPDX-License-Identifier: Apache-2.0
// Four-letter words ("ruok", "srvr", "mntr", ...): the monitoring commands a
// ZooKeeper server answers on its client port. The server writes the answer
// and closes the connection, so an answer is complete only once it closed.
// On a secure client port they go over TLS, as zkd and Apache answer them.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace boost::asio::ssl {
class context;
}

namespace zk::lab {

// Connects to host:port (an IPv4 literal such as "127.0.0.1") on a fresh
// connection, sends `word` and reads until the server closes. The deadline
// covers all of it. Nothing when the server cannot be reached, or has not
// closed the connection by the deadline.
// With `tls` (a client context, e.g. zk::client::make_tls_context's) the
// word goes over TLS: the server's certificate must chain to the context's
// CAs and name `host`; the context's client certificate is presented.
std::optional<std::string> four_letter_word(
    const std::string& host, uint16_t port, std::string_view word,
    std::chrono::milliseconds deadline = std::chrono::seconds(5),
    const std::shared_ptr<boost::asio::ssl::context>& tls = nullptr);

}  // namespace zk::lab

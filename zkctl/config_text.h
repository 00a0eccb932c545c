// SPDX-License-Identifier: Apache-2.0
// What zkCli's `config -c` prints from /zookeeper/config's text: the
// version, a space, and the servers' client addresses, comma-separated in
// server id order ("100000000 127.0.0.1:2181,127.0.0.1:2182"). A server.N
// line without a client part gives nothing; a client part without a host
// gives 0.0.0.0, as Apache's parser reads it.
#pragma once

#include <string>
#include <string_view>

namespace zkctl {

std::string client_config_text(std::string_view config);

}  // namespace zkctl

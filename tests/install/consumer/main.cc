// SPDX-License-Identifier: Apache-2.0
// zk_consumer CONNECT_STRING: what a user of the installed package writes.
// Creates /zk-consumer with some data through SyncClient, reads it back, then
// adds 5 to the counter /zk-consumer-counter twice with the counter recipe,
// and prints "read: <data>" and "counter: <value>". Exit 0 when both are
// right, 1 (with the error) otherwise.
#include <chrono>
#include <iostream>
#include <string>

#include "libzk/client/sync_client.h"
#include "recipes/counter.h"

int main(int argc, char** argv) {
  using namespace std::chrono_literals;
  if (argc != 2) {
    std::cerr << "usage: zk_consumer CONNECT_STRING\n";
    return 2;
  }
  zk::client::SyncClient zk;
  if (auto connected = zk.connect(argv[1], 10s, 20s); !connected) {
    std::cerr << "connect: " << zk::wire::error_name(connected.error()) << "\n";
    return 1;
  }
  const std::string data = "installed";
  if (auto created = zk.create("/zk-consumer", data); !created) {
    std::cerr << "create: " << zk::wire::error_name(created.error()) << "\n";
    return 1;
  }
  auto got = zk.get_data("/zk-consumer");
  if (!got || got->data != data) {
    std::cerr << "get_data: " << zk::wire::error_name(got.error()) << "\n";
    return 1;
  }
  std::cout << "read: " << *got->data << "\n";
  zk::recipes::Result<int64_t> counter = 0;
  for (int i = 0; i < 2; ++i) {
    counter = zk::recipes::add_to_counter(zk, "/zk-consumer-counter", 5);
    if (!counter) {
      std::cerr << "add_to_counter: " << zk::wire::error_name(counter.error()) << "\n";
      return 1;
    }
  }
  std::cout << "counter: " << *counter << "\n";
  (void)zk.close();
  return *counter == 10 ? 0 : 1;
}

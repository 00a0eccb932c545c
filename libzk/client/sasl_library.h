// SPDX-License-Identifier: Apache-2.0
// Cyrus SASL (libsasl2) is one library per process, shared by zk::client's
// exchanges and, in zkd, by its SASL server. Its default mutexes do nothing,
// and mechanisms keep state that every connection of the process shares
// (DIGEST-MD5's cache of past authentications), so exchanges on two threads
// at once corrupt the heap unless real mutexes are installed first.
#pragma once

namespace zk::client {

// Installs std::mutex as Cyrus SASL's mutexes, once per process. Call before
// the process's first sasl_client_init or sasl_server_init: mutexes the
// library allocated before would be handed to the wrong functions. Safe to
// call from any thread, any number of times.
void use_sasl_mutexes();

}  // namespace zk::client

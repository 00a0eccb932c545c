// SPDX-License-Identifier: Apache-2.0
#include "libzk/client/sasl_library.h"

#include <sasl/sasl.h>

#include <mutex>

namespace zk::client {

namespace {

void* allocate() { return new std::mutex; }

int lock(void* mutex) {
  static_cast<std::mutex*>(mutex)->lock();
  return SASL_OK;
}

int unlock(void* mutex) {
  static_cast<std::mutex*>(mutex)->unlock();
  return SASL_OK;
}

void release(void* mutex) { delete static_cast<std::mutex*>(mutex); }

}  // namespace

void use_sasl_mutexes() {
  static std::once_flag installed;
  std::call_once(installed, [] { sasl_set_mutex(&allocate, &lock, &unlock, &release); });
}

}  // namespace zk::client

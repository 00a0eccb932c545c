// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/op_tags.h"

#include "libzk/wire/op_table.h"

namespace zkd::server {

std::string_view op_tag(zk::wire::OpCode op) {
  const zk::wire::OpInfo* info = zk::wire::find_op(op);
  return info == nullptr ? "NA" : info->tag;
}

}  // namespace zkd::server

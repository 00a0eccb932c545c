// SPDX-License-Identifier: Apache-2.0
#include "zkd/storage/durable_file.h"

#include "zkd/storage/file_names.h"

namespace zkd::storage {

Status write_file_durably(Env& env, const std::string& dir, std::string_view name,
                          std::string_view bytes) {
  const std::string path = file_names::join(dir, name);
  const std::string temporary = path + ".tmp";
  auto file = env.new_writable_file(temporary, 0);
  if (!file.ok()) return file.status();
  Status s = (*file)->append(bytes);
  if (s.ok()) s = (*file)->sync();
  if (Status closed = (*file)->close(); s.ok()) s = closed;
  if (s.ok()) s = env.rename_file(temporary, path);
  if (s.ok()) s = env.sync_dir(dir);
  return s;
}

}  // namespace zkd::storage

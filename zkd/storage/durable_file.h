// SPDX-License-Identifier: Apache-2.0
// Small files replaced atomically and durably (the session key, the epoch
// files): the whole content is written under a temporary name, synced, and
// renamed over the final name, then the directory is synced.
#pragma once

#include <string>
#include <string_view>

#include "zkd/status/status.h"
#include "zkd/storage/env.h"

namespace zkd::storage {

// Writes `bytes` to `<dir>/<name>.tmp`, syncs and closes it, renames it to
// `<dir>/<name>` and syncs `dir`. When it returns ok the new content is what
// survives a crash; before that a crash leaves the old content (or no file)
// under the final name, never a mix. `dir` must exist. A leftover `.tmp` from
// a crash is overwritten by the next call.
Status write_file_durably(Env& env, const std::string& dir, std::string_view name,
                          std::string_view bytes);

}  // namespace zkd::storage

// SPDX-License-Identifier: Apache-2.0
#include "zkd/server/epoch_files.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "zkd/failpoint/points.h"
#include "zkd/server/config.h"
#include "zkd/storage/durable_file.h"
#include "zkd/zab/types.h"

namespace zkd::server {
namespace {

std::string path_of(const std::string& dir, std::string_view name) {
  return dir + "/" + std::string(name);
}

// The file's epoch; nullopt when it does not exist.
StatusOr<std::optional<int64_t>> read_one(storage::Env& env, const std::string& dir,
                                          std::string_view name) {
  const std::string path = path_of(dir, name);
  if (!env.file_exists(path)) return std::optional<int64_t>();
  auto text = env.read_file(path);
  if (!text.ok()) return text.status();
  auto epoch = parse_number_file(*text);
  if (!epoch || *epoch < 0) {
    std::string shown = text->substr(0, 40);
    return Status::corruption(path +
                              ": expected an epoch (a non-negative decimal number), found '" +
                              shown + (text->size() > shown.size() ? "...'" : "'") +
                              "; restore it from a backup (it must not go back: it records the "
                              "newest epoch this replica took part in)");
  }
  return std::optional<int64_t>(*epoch);
}

bool holds(storage::Env& env, const std::string& dir, std::string_view name, int64_t epoch) {
  const std::string path = path_of(dir, name);
  if (!env.file_exists(path)) return false;
  auto current = env.read_file(path);
  return current.ok() && *current == std::to_string(epoch);
}

}  // namespace

EpochFiles covering(EpochFiles epochs, int64_t zxid) {
  const int64_t epoch = zab::epoch_of(zxid);
  epochs.accepted_epoch = std::max(epochs.accepted_epoch, epoch);
  epochs.current_epoch = std::max(epochs.current_epoch, epoch);
  return epochs;
}

StatusOr<EpochFiles> read_epoch_files(storage::Env& env, const std::string& snap_dir) {
  EpochFiles epochs;
  auto accepted = read_one(env, snap_dir, kAcceptedEpochFile);
  if (!accepted.ok()) return accepted.status();
  auto current = read_one(env, snap_dir, kCurrentEpochFile);
  if (!current.ok()) return current.status();
  epochs.accepted_epoch = accepted->value_or(0);
  epochs.current_epoch = current->value_or(0);
  return epochs;
}

Status write_epoch_files(storage::Env& env, const std::string& snap_dir, const EpochFiles& epochs) {
  if (Status s = env.create_dirs(snap_dir); !s.ok()) return s;
  const bool accepted = !holds(env, snap_dir, kAcceptedEpochFile, epochs.accepted_epoch);
  const bool current = !holds(env, snap_dir, kCurrentEpochFile, epochs.current_epoch);
  if (!accepted && !current) return Status();
  if (failpoint::kEpochBeforeWrite.fail()) {
    return Status::error(failpoint::kEpochBeforeWrite.error_message());
  }
  if (accepted) {
    Status s = storage::write_file_durably(env, snap_dir, kAcceptedEpochFile,
                                           std::to_string(epochs.accepted_epoch));
    if (!s.ok()) return s;
    failpoint::kEpochAcceptedWritten.hit();
  }
  if (current) {
    Status s = storage::write_file_durably(env, snap_dir, kCurrentEpochFile,
                                           std::to_string(epochs.current_epoch));
    if (!s.ok()) return s;
    failpoint::kEpochCurrentWritten.hit();
  }
  return Status();
}

}  // namespace zkd::server

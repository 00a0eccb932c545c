// SPDX-License-Identifier: Apache-2.0
// `zkd import`, `zkd export` and `zkd restore` as commands: read zoo.cfg,
// hold the dataDir lock (data_dir_lock.h: never while a zkd serves it), run,
// print what was done. A progress line goes to stderr when it is a terminal.
//
// Exit status: 0 done; 1 the configuration or a directory cannot be used
// (the target already holds data, zkd is running on it, restore's --zxid is
// below the snapshot's tree); 3 the data to read is damaged (the message
// names the file and offset) or cannot be read or written.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace zkd::migrate {

int run_import(const std::string& config_path, const std::string& apache_data_dir,
               const std::string& apache_log_dir, std::ostream& out, std::ostream& err);
int run_export(const std::string& config_path, const std::string& out_dir, std::ostream& out,
               std::ostream& err);
int run_restore(const std::string& config_path, const std::string& snapshot_file,
                std::optional<int64_t> zxid, std::ostream& out, std::ostream& err);

}  // namespace zkd::migrate

// SPDX-License-Identifier: Apache-2.0
// Faults the `zklab check` nemesis does to one stopped node's files or to the
// zkd it starts next: the pieces of the corrupt and crashpoint nemeses that
// are not lab commands.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace zk::lab::check {

// Flips 1 to 4 bytes (each XORed with a random non-zero mask) at random
// offsets of one file of `version2_dir`, a stopped node's data: its newest
// txn log segment or its newest snapshot (drawn between the two; the one
// that exists when only one does). Offsets fall before the file's last
// non-zero byte, so the damage is in what zkd wrote, not in the zeros of a
// preallocated segment. Returns what it did ("flipped 2 bytes of
// log.100000001 at offsets 1234, 5678"), or nothing with `error` set.
std::optional<std::string> corrupt_newest_file(const std::filesystem::path& version2_dir,
                                               std::mt19937_64& rng, std::string& error);

// The failpoint names `zkd failpoints` prints (the first word of each
// line), asking the zkd at `zkd`. Empty, with `error` set, when zkd names none.
std::vector<std::string> zkd_failpoint_names(const std::string& zkd, std::string& error);

}  // namespace zk::lab::check

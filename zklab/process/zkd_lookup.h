// SPDX-License-Identifier: Apache-2.0
// Which zkd the zklab tool starts, when the user names none, so that an
// installed zklab runs the zkd installed with it. In order, the first that
// applies:
//   1. the one named (--zkd or $ZKLAB_ZKD), taken as given;
//   2. "zkd" beside zklab's own executable (the directory of /proc/self/exe:
//      <prefix>/bin/zklab finds <prefix>/bin/zkd);
//   3. the build tree's zkd (compiled in), when that file exists;
//   4. "zkd" in a directory of $PATH.
// A candidate of 2-4 counts when it is a regular file we may execute. When
// none does, the error names every place looked. Pure apart from reading the
// file system; the caller passes in the executable's path and $PATH.
#pragma once

#include <filesystem>
#include <string>

namespace zk::lab {

struct ZkdSearch {
  std::string named;                     // --zkd, else $ZKLAB_ZKD; empty: none
  std::filesystem::path own_executable;  // zklab itself (/proc/self/exe); empty: unknown
  std::string build_tree;                // the zkd this zklab was built with; empty: none
  std::string path_variable;             // $PATH, directories separated by ':'
};

struct ZkdFound {
  std::string path;   // the zkd to start; empty when none was found
  std::string error;  // then: "no zkd executable found: looked ..." (the places)
};

ZkdFound find_zkd(const ZkdSearch& search);

// The search for this process: `named`, /proc/self/exe, `build_tree` and the
// environment's $PATH.
ZkdSearch this_process_search(std::string named, std::string build_tree);

}  // namespace zk::lab

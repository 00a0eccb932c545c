// SPDX-License-Identifier: Apache-2.0
// `zkbench paper FIGURE`: the evaluation of the ZooKeeper paper (Hunt et
// al., USENIX ATC 2010, section 5), each figure run on zkd and on Apache
// ZooKeeper 3.8 in one go, on ensembles it starts itself on this machine
// (zklab/process/ensemble.h), and printed beside the paper's own figures.
// FIGURE is fig5 (with Table 1), fig6, table2, table3, fig8 or all
// (paper_throughput.h, paper_scenarios.h, paper_failures.h). The tables go
// to stdout (text, or Markdown with --markdown), the plots (SVG, and fig8's
// CSV) to --out; --quick scales every figure down to a run of minutes.
// Options and defaults are those of man/zkbench.1, PAPER.
//
// Exit codes: 0 every run happened; 1 something did not (an ensemble did
// not start, a run failed: listed on stderr, the tables show "-"); 2 bad
// arguments.
#pragma once

#include <CLI/CLI.hpp>

#include "zkbench/bench_command.h"

namespace zk::bench {

BenchCommand add_paper_command(CLI::App& app);

}  // namespace zk::bench

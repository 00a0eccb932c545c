// SPDX-License-Identifier: Apache-2.0
// The tables `zkbench paper` prints: a title, a header row, rows of cells
// (already formatted) and notes, rendered as aligned text for the terminal
// or as a Markdown table for docs/paper.md. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace zk::bench {

struct PaperTable {
  std::string title;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // each as long as the header (shorter: padded)
  std::vector<std::string> notes;              // lines printed under the table
};

// The title, then the header and the rows in columns: the first column
// left-aligned, the others right-aligned, two spaces apart; then the notes.
// Ends with a newline.
std::string table_text(const PaperTable& table);

// "**title**", a blank line, a Markdown table (the first column
// left-aligned, the others right-aligned; '|' in a cell escaped), then the
// notes as lines of their own. Ends with a newline.
std::string table_markdown(const PaperTable& table);

// A rate as an integer with thousands separators ("12,345"); "-" when absent.
std::string format_count(std::optional<double> value);
// `value` with `decimals` decimals ("9.4"); "-" when absent.
std::string format_fixed(std::optional<double> value, int decimals);
// a / b with two decimals and an "x" ("2.31x"); "-" when either is absent
// or b is not positive.
std::string format_ratio(std::optional<double> a, std::optional<double> b);

}  // namespace zk::bench

# SPDX-License-Identifier: Apache-2.0
"""Checks one man page; exit 0 when it passes, 1 with the reasons when not.

  check_man_page.py --page man/zkd.8 [--tool build/zkd/zkd]

1. The page renders with `groff -man -Tutf8 -ww -z` (every warning on)
   without a word on stderr.
2. With --tool: every long option that `TOOL --help` and each subcommand's
   --help list (zkctl: also the options in its Commands: section) occurs in
   the page, and every subcommand (zkctl: every verb) is set in bold in it.
   See help_surface.py for what is read, troff_text.py for how the page is.

Registered by tests/man/CMakeLists.txt, one test per page in man/.
"""

import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from help_surface import help_surface  # noqa: E402
from troff_text import bold_text, mentions, plain_text  # noqa: E402

GROFF = ["groff", "-man", "-Tutf8", "-ww", "-z"]


def render_problems(page):
    """groff's complaints about `page` ("" when there are none)."""
    done = subprocess.run(
        [*GROFF, page], capture_output=True, text=True, timeout=60, check=False
    )
    problems = done.stderr.strip()
    if done.returncode != 0:
        problems += f"\ngroff exited {done.returncode}"
    return problems.strip()


def missing_from_page(source, surface):
    """The page's gaps against a HelpSurface: one line per missing name."""
    text = plain_text(source)
    bold = bold_text(source)
    missing = [
        f"option {option} (from `{where} --help`)"
        for option, where in surface.options.items()
        if not mentions(text, option)
    ]
    missing += [
        f"command {command} (not in bold)"
        for command in surface.commands
        if not mentions(bold, command)
    ]
    return missing


def check(page, tool):
    """The failures of one page, as lines of text; [] when it passes."""
    failures = []
    problems = render_problems(page)
    if problems:
        failures.append(f"{page}: groff warnings:\n{problems}")
    if tool:
        name = os.path.splitext(os.path.basename(page))[0]
        with open(page, encoding="utf-8") as f:
            source = f.read()
        missing = missing_from_page(source, help_surface(tool, name))
        if missing:
            failures.append(f"{page}: missing from the page:\n  " + "\n  ".join(missing))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", required=True, help="the man page (troff source)")
    parser.add_argument("--tool", help="the binary the page documents")
    args = parser.parse_args()
    if args.tool and not os.access(args.tool, os.X_OK):
        print(f"{args.tool}: not an executable (build it first)", file=sys.stderr)
        return 1
    failures = check(args.page, args.tool)
    for failure in failures:
        print(failure, file=sys.stderr)
    if not failures:
        print(f"{args.page}: ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

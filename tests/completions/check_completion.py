# SPDX-License-Identifier: Apache-2.0
"""Checks that a tool's bash completion offers what its --help declares;
exit 0 when it does, 1 with what is missing when not.

  check_completion.py --tool build/zkd/zkd --script completions/zkd.bash

For `TOOL --help` and every subcommand's --help (tests/man/help_surface.py
reads them): `TOOL [SUB...] -<TAB>` offers every option that help lists, and
`TOOL [SUB...] <TAB>` every subcommand; for zkctl's Commands: section,
`zkctl <TAB>` offers every command and `zkctl CMD -<TAB>` every option its
entry mentions. The script must load without a word on stderr.
"""

import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "man"))
from bash_completion import complete_all  # noqa: E402
from help_surface import help_pages, options_by_verb, parse_help  # noqa: E402


def expectations(tool, name):
    """[(words to complete, names the completion must offer)]."""
    out = []
    for args, text in help_pages(tool):
        options, subcommands, verbs, _ = parse_help(text)
        if options:
            out.append(([name, *args, "-"], options))
        if subcommands or verbs:
            out.append(([name, *args, ""], subcommands + verbs))
        for verb, verb_options in options_by_verb(text).items():
            if verb_options:
                out.append(([name, *args, verb, "-"], verb_options))
    return out


def check(tool, script):
    """The failures, as lines of text; [] when the completion is complete."""
    name = os.path.basename(script).removesuffix(".bash")
    wanted = expectations(tool, name)
    if not wanted:
        return [f"{tool} --help lists nothing to complete (is it the right tool?)"]
    with tempfile.TemporaryDirectory() as empty:  # no file names in the replies
        result = complete_all(script, [words for words, _ in wanted], cwd=empty)
    failures = []
    if result.errors:
        failures.append(f"{script}: bash wrote on stderr:\n{result.errors}")
    for (words, names), reply in zip(wanted, result.replies):
        missing = [n for n in names if n not in reply]
        if missing:
            line = " ".join(words[:-1]) + " " + words[-1] + "<TAB>"
            failures.append(f"`{line}` does not offer {', '.join(missing)}")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", required=True, help="the binary the script completes")
    parser.add_argument("--script", required=True, help="the completion script (NAME.bash)")
    args = parser.parse_args()
    if not os.access(args.tool, os.X_OK):
        print(f"{args.tool}: not an executable (build it first)", file=sys.stderr)
        return 1
    failures = check(args.tool, args.script)
    for failure in failures:
        print(failure, file=sys.stderr)
    if not failures:
        print(f"{args.script}: offers everything {args.tool} --help lists")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

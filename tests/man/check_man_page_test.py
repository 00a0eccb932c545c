# SPDX-License-Identifier: Apache-2.0
"""The man page checker against a fake tool and fake pages: it must fail on a
missing option, a command not in bold, a groff warning, and pass a page
that documents everything.

Run: /usr/bin/python3 tests/man/check_man_page_test.py -v
"""

import os
import stat
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_man_page import check  # noqa: E402
from help_surface import parse_help  # noqa: E402
from troff_text import bold_text, mentions, plain_text  # noqa: E402

# CLI11's layout, as zkd --help and zkbench run --help print it.
TOP_HELP = """\
fake: a tool
Usage: fake [OPTIONS] SUBCOMMAND

Options:
  -h,--help                   Print this help message and exit
  -a,--alpha TEXT             the alpha
  --json Excludes: --csv      one object
  --csv Excludes: --json      a table
  --very-long-option-name INT:INT in [1 - 10]
                              wrapped description mentioning --not-an-option

Subcommands:
  sub                         the one subcommand

Exit codes: 0 ok.
"""

SUB_HELP = """\
the one subcommand
Usage: fake sub [OPTIONS] file

Positionals:
  file TEXT REQUIRED          a file

Options:
  -h,--help                   Print this help message and exit
  --beta                      the beta
"""

# zkctl's hand-written Commands: section.
VERB_HELP = """\
Usage: tool [OPTIONS]

Options:
  -s,--server HOSTS           where

Commands:
  make [-e] PATH              make it
  watch [--data|--children] [--count N] PATH
                              watch it
DATA is a literal; see --not-listed.
"""

GOOD_PAGE = r""".TH FAKE 1 "2026-11-21" "zk 0.1.0" "User Commands"
.SH NAME
fake \- a tool
.SH OPTIONS
.TP
\fB\-a\fR, \fB\-\-alpha\fR \fITEXT\fR
the alpha.
.TP
.BR \-\-json " or " \-\-csv
the output.
.TP
.BI \-\-very\-long\-option\-name " N"
long.
.SH COMMANDS
.TP
\fBsub\fR [\fB\-\-beta\fR] \fIFILE\fR
the one subcommand.
"""


class FakeTool:
    """An executable that prints TOP_HELP, or SUB_HELP after `sub`."""

    def __init__(self, directory):
        self.path = os.path.join(directory, "fake")
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(
                textwrap.dedent(
                    f"""\
                    #!{sys.executable}
                    import sys
                    print({SUB_HELP!r} if sys.argv[1:2] == ["sub"] else {TOP_HELP!r}, end="")
                    """
                )
            )
        os.chmod(self.path, os.stat(self.path).st_mode | stat.S_IXUSR)


class CheckerTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.tool = FakeTool(self.dir.name).path

    def tearDown(self):
        self.dir.cleanup()

    def page(self, text):
        path = os.path.join(self.dir.name, "fake.1")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def test_a_page_that_documents_everything_passes(self):
        self.assertEqual(check(self.page(GOOD_PAGE), self.tool), [])

    def test_a_missing_option_fails_naming_it_and_its_command(self):
        failures = check(self.page(GOOD_PAGE.replace(r"[\fB\-\-beta\fR] ", "")), self.tool)
        self.assertEqual(len(failures), 1)
        self.assertIn("option --beta (from `fake sub --help`)", failures[0])

    def test_a_longer_option_does_not_stand_in_for_a_shorter_one(self):
        page = GOOD_PAGE.replace(r"\fB\-\-alpha\fR", r"\fB\-\-alpha\-beta\fR")
        failures = check(self.page(page), self.tool)
        self.assertEqual(len(failures), 1)
        self.assertIn("option --alpha ", failures[0])

    def test_a_command_not_in_bold_fails(self):
        failures = check(self.page(GOOD_PAGE.replace(r"\fBsub\fR", "sub")), self.tool)
        self.assertEqual(len(failures), 1)
        self.assertIn("command sub (not in bold)", failures[0])

    def test_a_groff_warning_fails_without_a_tool(self):
        failures = check(self.page(GOOD_PAGE + ".XY undefined macro\n"), None)
        self.assertEqual(len(failures), 1)
        self.assertIn("groff warnings", failures[0])
        self.assertIn("XY", failures[0])

    def test_a_clean_page_without_a_tool_passes(self):
        self.assertEqual(check(self.page(GOOD_PAGE), None), [])


class HelpParsingTest(unittest.TestCase):
    def test_cli11_options_and_subcommands(self):
        options, subcommands, verbs, verb_options = parse_help(TOP_HELP)
        self.assertEqual(
            options, ["--help", "--alpha", "--json", "--csv", "--very-long-option-name"]
        )
        self.assertEqual(subcommands, ["sub"])
        self.assertEqual((verbs, verb_options), ([], []))

    def test_a_commands_section_gives_verbs_and_their_options(self):
        options, subcommands, verbs, verb_options = parse_help(VERB_HELP)
        self.assertEqual(options, ["--server"])
        self.assertEqual(subcommands, [])
        self.assertEqual(verbs, ["make", "watch"])
        self.assertEqual(verb_options, ["--data", "--children", "--count"])


class TroffTextTest(unittest.TestCase):
    def test_escapes_are_undone(self):
        text = plain_text(r"\fB\-\-time\%out\-watch\fR and .B" + "\n" + r".BI \-\-dir " + '" DIR"')
        self.assertTrue(mentions(text, "--timeout-watch"))
        self.assertTrue(mentions(text, "--dir"))
        self.assertFalse(mentions(text, "--timeout"))

    def test_bold_text_is_bold_runs_and_bold_macro_arguments(self):
        bold = bold_text(
            "\\fBget\\fR [\\fB\\-S\\fR] \\fIput\\fR\n"
            ".B zkd dump\\-log\n"
            '.BR quit ", " exit\n'
            ".IB dir /file\n"
            '.\\" \\fBcomment\\fR\n'
        )
        for word in ["get", "-S", "dump-log", "quit", "exit", "/file"]:
            self.assertTrue(mentions(bold, word), word)
        for word in ["put", "dir", "comment"]:
            self.assertFalse(mentions(bold, word), word)


if __name__ == "__main__":
    unittest.main()

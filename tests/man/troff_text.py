# SPDX-License-Identifier: Apache-2.0
"""Reading a man page's troff source as text, for comparison with --help.

plain_text(): the words of the page with the escapes that matter for names
undone (\\- becomes -, font changes and zero-width escapes vanish), macro
names dropped and their arguments kept, comments removed. `\\-\\-foo` in the
page becomes `--foo`.

bold_text(): only what the page sets in bold (\\fB...\\fR runs, the arguments
of .B, the bold arguments of .BR/.RB/.BI/.IB), normalised the same way: where
a page names its commands.
"""

import re
import shlex

_COMMENT = re.compile(r'\\".*$')
_FONT = re.compile(r"\\f(?:\[[^\]]*\]|\([A-Za-z]{2}|[A-Za-z0-9])")
_ZERO_WIDTH = re.compile(r"\\[&%:c/,|^)]")
_BOLD_RUN = re.compile(r"\\fB(.*?)(?=\\f|$)")
# Which arguments of an alternating-font macro are bold (0-based parity).
_ALTERNATING_BOLD = {".BR": 0, ".BI": 0, ".RB": 1, ".IB": 1}


def normalise(text):
    """`text` with escapes undone and font changes removed."""
    text = text.replace("\\-", "-").replace("\\(hy", "-").replace("\\e", "\\")
    text = _FONT.sub("", text)
    return _ZERO_WIDTH.sub("", text)


def _lines(source):
    for line in source.splitlines():
        if line.startswith(('.\\"', "'\\\"")):
            continue
        yield _COMMENT.sub("", line)


def _macro_arguments(rest):
    try:
        return shlex.split(rest, posix=True)
    except ValueError:  # an unbalanced quote: take the words as they are
        return rest.split()


def plain_text(source):
    out = []
    for line in _lines(source):
        if line.startswith((".", "'")):
            rest = line.partition(" ")[2]
            line = " ".join(_macro_arguments(rest)) if rest else ""
        out.append(normalise(line))
    return "\n".join(out)


def bold_text(source):
    out = []
    for line in _lines(source):
        if line.startswith((".", "'")):
            macro, _, rest = line.partition(" ")
            arguments = _macro_arguments(rest) if rest else []
            if macro == ".B":
                out.append(" ".join(arguments))
                continue
            if macro in _ALTERNATING_BOLD:
                parity = _ALTERNATING_BOLD[macro]
                out.extend(a for i, a in enumerate(arguments) if i % 2 == parity)
                continue
            line = " ".join(arguments)
        out.extend(m.group(1) for m in _BOLD_RUN.finditer(line))
    return "\n".join(normalise(part) for part in out)


def mentions(text, word):
    """Whether `word` occurs in `text` as a whole word (neighbours are not
    letters, digits, '-' or '_')."""
    pattern = r"(?<![A-Za-z0-9_-])" + re.escape(word) + r"(?![A-Za-z0-9_-])"
    return re.search(pattern, text) is not None

# SPDX-License-Identifier: Apache-2.0
"""Runs a bash completion script as bash would on TAB, without a terminal.

One bash process loads /usr/share/bash-completion/bash_completion and the
script, then for each command line (a list of words, the last one the word
being completed, "" for a new word) sets COMP_WORDS, COMP_CWORD, COMP_LINE
and COMP_POINT, calls the function `complete -p TOOL` names with the
arguments bash passes (command, current word, previous word) and prints
COMPREPLY. Words are given already split, as bash splits them (so
"--opt=value" is not split at '=' here).
"""

import os
import shlex
import subprocess
from dataclasses import dataclass

BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"
_MARK = "\x1ecompletion-"
# compopt complains outside a real completion; everything else on stderr is
# a fault of the script.
_HARMLESS = "compopt: not currently executing completion function"


@dataclass
class Completions:
    replies: list  # one list of candidates per command line
    errors: str  # what bash wrote on stderr, less the harmless


def _query(index, words):
    q = shlex.quote
    line = " ".join(words)
    previous = words[-2] if len(words) > 1 else ""
    return "\n".join([
        f"COMP_WORDS=({' '.join(q(w) for w in words)})",
        f"COMP_CWORD={len(words) - 1}",
        f"COMP_LINE={q(line)}",
        "COMP_POINT=${#COMP_LINE}",
        "COMPREPLY=()",
        f"spec=$(complete -p {q(words[0])}) || exit 3",
        "fn=${spec#*-F }; fn=${fn%% *}",
        f'"$fn" {q(words[0])} {q(words[-1])} {q(previous)}',
        f"printf '%s\\n' {q(_MARK + str(index))} \"${{COMPREPLY[@]}}\"",
    ])


def complete_all(script, lines, cwd=None, env=None, timeout=60):
    """Completions of every command line in `lines`, in one bash."""
    program = "\n".join(
        [f"source {BASH_COMPLETION}", f"source {shlex.quote(os.path.abspath(script))}"]
        + [_query(i, words) for i, words in enumerate(lines)]
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bash exited {done.returncode}: {done.stderr.strip()}")
    replies = [[] for _ in lines]
    current = None
    for out_line in done.stdout.split("\n"):
        if out_line.startswith(_MARK):
            current = replies[int(out_line[len(_MARK):])]
        elif current is not None and out_line:
            current.append(out_line)
    errors = "\n".join(
        e for e in done.stderr.splitlines() if _HARMLESS not in e
    ).strip()
    return Completions(replies, errors)


def complete(script, words, cwd=None, env=None):
    """The candidates for one command line, sorted as bash lists them;
    raises on anything on stderr."""
    result = complete_all(script, [words], cwd=cwd, env=env)
    if result.errors:
        raise RuntimeError(f"bash wrote: {result.errors}")
    return sorted(result.replies[0])

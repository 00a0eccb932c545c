# SPDX-License-Identifier: Apache-2.0
"""What a tool's --help declares: its long options, subcommands and verbs.

Reads CLI11's help layout (zkd, zkbench, zklab): a section starts with a
header line at column 0 ending in ':' ("Options:", "Subcommands:"), entries
are indented by two spaces, wrapped descriptions by more; a line at column 0
ends the section. Every subcommand's own --help is read too (recursively).
zkctl's hand-written "Commands:" section lists its verbs (the first word of
each two-space-indented line) and their options (every --word in it).

`--help` itself is left out: every CLI11 tool has it.
"""

import re
import subprocess
from dataclasses import dataclass, field

_HEADER = re.compile(r"^[A-Z][A-Za-z ]*:$")
_OPTION_ENTRY = re.compile(r"^  (?:-[A-Za-z0-9],)?(--[A-Za-z0-9][A-Za-z0-9-]*)")
_LONG_OPTION = re.compile(r"(?<![A-Za-z0-9-])(--[A-Za-z0-9][A-Za-z0-9-]*)")
_ENTRY_NAME = re.compile(r"^  ([A-Za-z0-9][A-Za-z0-9_-]*)(?:\s|$)")
_IGNORED_OPTIONS = {"--help"}


@dataclass
class HelpSurface:
    # option -> the command line whose --help lists it, e.g. "zkd dump-log"
    options: dict = field(default_factory=dict)
    # subcommand or verb names, e.g. "dump-log", "create"
    commands: list = field(default_factory=list)


def sections(help_text):
    """{header: [lines]} of one help text; headers without the ':'."""
    out = {}
    current = None
    for line in help_text.splitlines():
        if _HEADER.match(line):
            current = line[:-1]
            out[current] = []
        elif line and not line[0].isspace():
            current = None
        elif current is not None:
            out[current].append(line)
    return out


def parse_help(help_text):
    """(options, subcommands, verbs, verb_options) declared by one help text."""
    parts = sections(help_text)
    options = [m.group(1) for line in parts.get("Options", []) if (m := _OPTION_ENTRY.match(line))]
    subcommands = [
        m.group(1) for line in parts.get("Subcommands", []) if (m := _ENTRY_NAME.match(line))
    ]
    verbs = [m.group(1) for line in parts.get("Commands", []) if (m := _ENTRY_NAME.match(line))]
    verb_options = [
        m.group(1) for line in parts.get("Commands", []) for m in _LONG_OPTION.finditer(line)
    ]
    return options, subcommands, verbs, verb_options


def run_help(tool, args):
    """The stdout of `tool ARGS --help`; raises when it does not exit 0."""
    done = subprocess.run(
        [tool, *args, "--help"], capture_output=True, text=True, timeout=30, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join([tool, *args])} --help exited {done.returncode}: {done.stderr.strip()}"
        )
    return done.stdout


def help_pages(tool, max_depth=3):
    """(args, help text) of `tool --help` and of every subcommand's --help,
    breadth first: ([], top), (["dump-log"], ...), ..."""
    pending = [[]]
    while pending:
        args = pending.pop(0)
        text = run_help(tool, args)
        yield args, text
        if len(args) < max_depth:
            _, subcommands, _, _ = parse_help(text)
            pending.extend([*args, sub] for sub in subcommands)


def options_by_verb(help_text):
    """{verb: [long options]} of zkctl's Commands: section: the options on a
    verb's entry line and on the more deeply indented lines that follow it."""
    out = {}
    verb = None
    for line in sections(help_text).get("Commands", []):
        if m := _ENTRY_NAME.match(line):
            verb = m.group(1)
            out.setdefault(verb, [])
        if verb is not None:
            for option in _LONG_OPTION.findall(line):
                if option not in out[verb]:
                    out[verb].append(option)
    return out


def help_surface(tool, name, max_depth=3):
    """Everything `tool --help` and its subcommands' --help declare.

    `name` is the tool's name as the report shows it ("zkd")."""
    surface = HelpSurface()
    for args, text in help_pages(tool, max_depth):
        options, subcommands, verbs, verb_options = parse_help(text)
        where = " ".join([name, *args])
        for option in options + verb_options:
            if option not in _IGNORED_OPTIONS:
                surface.options.setdefault(option, where)
        for command in subcommands + verbs:
            if command not in surface.commands:
                surface.commands.append(command)
    return surface

#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""zkCli.sh's command lines typed into zkctl: the same transcript through both.

Usage:
  test_zkctl_transcript.py [--server zkd|apache] [--zkd-bin PATH] [--zkctl-bin PATH]
                           [unittest args]

One server (zkd, or Apache ZooKeeper 3.8 with --server apache), two shells.
The transcript (TRANSCRIPT below: every zkCli 3.8 command that applies, with
the options operators type) runs once in one zkCli.sh session on the subtree
/zkcli and once in one zkctl session (`zkctl -server HOST --json -k -`, zkCli's
spelling of the server option) on /zkctl. Each command's outcome is then
compared, not its formatting: the error it failed with, or what it printed
(data, children, Stat fields but the zxids and times, ACLs, counts, paths,
quotas, ids). A marker command (`get /transcript-marker-N`, which fails in
both) separates the commands' outputs.

Exits 77 (skip) when zkCli.sh (Debian's `zookeeper` package) is missing.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import servers  # noqa: E402

ARGS = None

# {p} is the shell's own subtree. The comment after '#' says how the outcome
# is compared (see outcome_of): "ok" compares only success and the error.
TRANSCRIPT = [
    "create {p} root",
    "create {p}/a hello",
    "get {p}/a",
    "get -s {p}/a",
    "set {p}/a v2",
    "set -s {p}/a v3",
    "stat {p}/a",
    "ls {p}",
    "ls -s {p}",
    "create -e {p}/a/e eph",
    "create -s {p}/a/s- seq",
    "create -c {p}/c cont",
    "create {p}/c/child x",
    "create -t 600000 {p}/t ttl",
    "create {p}/acl x world:anyone:cdr",
    "getAcl {p}/acl",
    "getAcl -s {p}/acl",
    "setAcl {p}/acl world:anyone:cdrwa",
    "setAcl -s -v 0 {p}/a world:anyone:cdrwa",
    "ls -R {p}",
    "get {p}/missing",
    "create {p}/a again",
    "set -v 99 {p}/a x",
    "delete {p}/a",
    "getAllChildrenNumber {p}",
    "getEphemerals {p}",
    "whoami",
    "addauth digest alice:secret",
    "whoami",
    "setquota -n 10 {p}/a",
    "setquota -B 1000 {p}/a",
    "listquota {p}/a",
    "delquota -n {p}/a",
    "listquota {p}/a",
    "delquota {p}/a",
    "listquota {p}/a",
    "config",
    "sync {p}",
    "addWatch {p}/a",
    "removewatches {p}/a",
    "get -w {p}/a",
    "ls -w {p}",
    "stat -w {p}/a",
    "delete -v 0 {p}/a/e",
    "deleteall {p}/c",
    "ls {p}",
    "version",
]

MARKER = "/transcript-marker-"
STAT_RE = re.compile(r"^(\w+) = (.*)$")
LIST_RE = re.compile(r"^\[(.*)\]$")
# zkCli's messages for the errors of the transcript, and zkctl's names.
ZKCLI_ERRORS = [
    (re.compile(r"Node does not exist"), "NONODE"),
    (re.compile(r"Node already exists"), "NODEEXISTS"),
    (re.compile(r"[Vv]ersion (No is not valid|mismatch)|BadVersion"), "BADVERSION"),
    (re.compile(r"Node not empty|Directory not empty|NotEmpty"), "NOTEMPTY"),
    (re.compile(r"quota for .* does not exist"), "NO_QUOTA"),
    (re.compile(r"Insufficient permission"), "NOAUTH"),
]
# Stat fields that do not depend on when the command ran.
STAT_FIELDS = ["cversion", "dataVersion", "aclVersion", "dataLength", "numChildren"]
NOISE = re.compile(r"^(\d{4}-\d\d-\d\d |log4j|SLF4J|WATCHER::|WatchedEvent|Connecting to|"
                   r"Welcome to ZooKeeper|JLine|\[zk: )|^\s*$")


def zkctl_bin():
    return ARGS.zkctl_bin or os.environ.get("ZKCTL_BIN", "zkctl")


def script_lines(prefix):
    """The transcript for `prefix`, with a marker after every command."""
    lines = []
    for n, line in enumerate(TRANSCRIPT):
        lines.append(line.format(p=prefix))
        lines.append(f"get {MARKER}{n}")
    return lines


def split_at_markers(chunks, is_marker):
    """The chunks between markers, one list per transcript line."""
    out, current = [], []
    for chunk in chunks:
        if is_marker(chunk):
            out.append(current)
            current = []
        else:
            current.append(chunk)
    return out


def run_zkcli(server):
    lines = servers.zkcli_session(server, script_lines("/zkcli"))
    kept = [line.replace("/zkcli", "/P") for line in lines if not NOISE.match(line)]
    return split_at_markers(kept, lambda line: MARKER in line)


def run_zkctl(server):
    script = "".join(line + "\n" for line in script_lines("/zkctl"))
    done = subprocess.run([zkctl_bin(), "-server", server.hostport, "--json", "-k", "-"],
                          input=script.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=120)
    results = [json.loads(line.replace("/zkctl", "/P"))
               for line in done.stdout.decode().splitlines() if line.strip()]
    return split_at_markers(results, lambda r: MARKER in r.get("path", ""))


def zkcli_error(lines):
    for line in lines:
        for pattern, name in ZKCLI_ERRORS:
            if pattern.search(line):
                return name
    return None


def zkcli_stat(lines):
    stat = {}
    for line in lines:
        m = STAT_RE.match(line.strip())
        if m:
            stat[m.group(1)] = m.group(2)
    return stat


def comparable_stat(stat):
    """The Stat fields that do not depend on timing, and whether the node is
    ephemeral, from zkCli's text or zkctl's JSON."""
    out = {name: int(stat[name]) for name in STAT_FIELDS}
    out["ephemeral"] = int(str(stat["ephemeralOwner"]), 16) != 0
    return out


def zkcli_acl(lines):
    """zkCli prints each entry as "'scheme,'id" and ": perms"."""
    entries, pending = [], None
    for line in lines:
        if line.startswith("'") and ",'" in line:
            scheme, ident = line[1:].split(",'", 1)
            pending = f"{scheme}:{ident}"
        elif line.startswith(": ") and pending:
            entries.append(f"{pending}:{line[2:].strip()}")
            pending = None
    return entries


def set_limits(limits):
    """A quota's limits that are set (an unset one reads -1, listed or not)."""
    return {key: value for key, value in limits.items() if value != -1}


def zkcli_track(text):
    """StatsTrack text ("count=10,bytes=-1=;byteHardLimit=-1;...") as a dict."""
    out = {}
    for piece in re.split(r"[,;]+", text):
        if "=" in piece:
            key, value = piece.split("=", 1)
            if value.strip("="):
                out[key] = int(value.strip("="))
    return out


def outcome_of(command, zkcli_lines, zkctl_results):
    """(zkCli's outcome, zkctl's outcome) for one transcript line, each an
    error name or a value that depends on the command."""
    words = command.split()
    verb, flags = words[0], set(w for w in words[1:] if w.startswith("-"))
    error = zkcli_error(zkcli_lines)
    errors = [r["error"] for r in zkctl_results if "error" in r]
    if error or errors:
        return error, (errors[0] if errors else None)
    result = zkctl_results[0] if zkctl_results else {}
    if verb == "get":
        data = zkcli_lines[0] if zkcli_lines else None
        value = (data, result.get("data"))
        if "-s" in flags:
            return ((data, comparable_stat(zkcli_stat(zkcli_lines))),
                    (result.get("data"), comparable_stat(result["stat"])))
        return value
    if verb == "stat" or (verb in ("set", "setAcl") and "-s" in flags):
        return comparable_stat(zkcli_stat(zkcli_lines)), comparable_stat(result["stat"])
    if verb == "ls" and "-R" in flags:
        return zkcli_lines, result["paths"]
    if verb == "ls":
        listed = next((m.group(1) for m in map(LIST_RE.match, zkcli_lines) if m), "")
        names = sorted(x.strip() for x in listed.split(",") if x.strip())
        if "-s" in flags:
            return ((names, comparable_stat(zkcli_stat(zkcli_lines))),
                    (result["children"], comparable_stat(result["stat"])))
        return names, result["children"]
    if verb == "getAcl":
        acl = [f"{e['scheme']}:{e['id']}:{e['perms']}" for e in result["acl"]]
        if "-s" in flags:
            return ((zkcli_acl(zkcli_lines), comparable_stat(zkcli_stat(zkcli_lines))),
                    (acl, comparable_stat(result["stat"])))
        return zkcli_acl(zkcli_lines), acl
    if verb == "create":
        created = next((line[len("Created "):] for line in zkcli_lines
                        if line.startswith("Created ")), None)
        return created, result.get("path")
    if verb == "getAllChildrenNumber":
        return int(zkcli_lines[-1]), result["count"]
    if verb == "getEphemerals":
        listed = next((m.group(1) for m in map(LIST_RE.match, zkcli_lines) if m), "")
        return sorted(x.strip() for x in listed.split(",") if x.strip()), result["paths"]
    if verb == "whoami":
        ids = sorted(line.strip() for line in zkcli_lines if ": " in line
                     and not line.startswith("Auth scheme"))
        return ids, sorted(f"{i['scheme']}: {i['id']}" for i in result["ids"])
    if verb == "listquota":
        quota = next((line for line in zkcli_lines if line.startswith("Output quota")), "")
        stat = next((line for line in zkcli_lines if line.startswith("Output stat")), "")
        return ((set_limits(zkcli_track(quota.split(" ")[-1])), zkcli_track(stat.split(" ")[-1])),
                (set_limits(result["limits"]), result["usage"]))
    if verb == "config":
        return "\n".join(zkcli_lines).strip(), result["config"].strip()
    return "ok", "ok"


class ZkctlTranscriptTest(unittest.TestCase):

    def test_zkcli_command_lines_give_zkclis_results_in_zkctl(self):
        server = servers.Server(ARGS.server, extra_config={"extendedTypesEnabled": "true"},
                                **({"zkd_bin": ARGS.zkd_bin} if ARGS.server == "zkd" else {}))
        with server:
            zkcli = run_zkcli(server)
            zkctl = run_zkctl(server)
        self.assertEqual(len(zkcli), len(TRANSCRIPT), zkcli)
        self.assertEqual(len(zkctl), len(TRANSCRIPT), zkctl)
        for n, command in enumerate(TRANSCRIPT):
            with self.subTest(line=n, command=command):
                theirs, ours = outcome_of(command, zkcli[n], zkctl[n])
                self.assertEqual(ours, theirs,
                                 f"zkCli printed {zkcli[n]}, zkctl printed {zkctl[n]}")


def add_arguments(parser):
    parser.add_argument("--zkctl-bin", help="the zkctl to test (default: $ZKCTL_BIN)")


def main():
    return servers.unittest_main(sys.modules[__name__], servers.zkcli_available(),
                                 add_arguments=add_arguments,
                                 missing=f"{servers.ZKCLI} not installed (apt-get install zookeeper)")


if __name__ == "__main__":
    sys.exit(main())

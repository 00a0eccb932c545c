#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Record golden/kazoo_scenario.jsonl from the real Apache ZooKeeper 3.8 server.

Usage: record_golden.py [--out FILE] [--runs N]

Starts Apache standalone (Debian `zookeeper` package) on a free loopback
port, runs kazoo_scenario against it N times (default 2), checks that all
runs give the same transcript (so the golden file holds nothing that varies
between runs) and writes it. Review the diff of the golden file before
committing: it is the specification zkd is tested against.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the source tree clean

import kazoo_scenario  # noqa: E402
import servers  # noqa: E402

DEFAULT_OUT = os.path.join(HERE, "golden", "kazoo_scenario.jsonl")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args(argv)
    if kazoo_scenario.KazooClient is None:
        servers.skip("kazoo is not installed (apt-get install python3-kazoo)")
    if not servers.apache_available():
        servers.skip("Apache ZooKeeper is not installed (apt-get install zookeeper)")

    transcripts = []
    for _ in range(args.runs):
        # A fresh server per run: the scenario expects a fresh tree.
        with servers.Server("apache") as server:
            transcripts.append(kazoo_scenario.scenario(server.hostport))
    for i, other in enumerate(transcripts[1:], start=2):
        diff = kazoo_scenario.diff_transcripts(transcripts[0], other, "run 1", f"run {i}")
        if diff:
            print("Apache transcripts are not reproducible; not writing.\n" + diff, file=sys.stderr)
            return 1

    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(kazoo_scenario.transcript_text(transcripts[0]))
    print(f"wrote {len(transcripts[0])} lines to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

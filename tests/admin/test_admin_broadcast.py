#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""zkd's broadcast admin command (the ZooKeeper paper's Figure 7 load),
against a real zkd process: off unless zoo.cfg turns it on; a run sets the
named znode as many times as asked, in the caller's session, and answers
with the count; a bad request is refused with the reason and changes
nothing. zkd only: Apache has no such command.

Run: test_admin_broadcast.py --zkd-bin build/zkd/zkd
"""

import json
import sys
import unittest

import admin_util
from admin_util import servers, super_config

try:
    from kazoo.client import KazooClient

    KAZOO = True
except ImportError:  # unittest_main reports the skip
    KAZOO = False

ARGS = None
SUPER = "super:super_passwd"
PATH = "/commands/broadcast"
DEADLINE_S = 30


def broadcast(server, fields, auth="digest " + SUPER, method="POST"):
    body = fields if isinstance(fields, bytes) else json.dumps(fields).encode()
    return admin_util.admin_request(server.admin_port, method, PATH, auth=auth,
                                    body=body if method == "POST" else None)


class BroadcastTest(unittest.TestCase):
    def start(self, enabled):
        config = super_config(SUPER)
        if enabled:
            config["admin.broadcast.enabled"] = "true"
        server = admin_util.zkd_with_admin(ARGS, config).start()
        self.addCleanup(server.stop)
        client = KazooClient(hosts=f"{server.host}:{server.port}", timeout=DEADLINE_S)
        client.start(timeout=DEADLINE_S)
        self.addCleanup(client.close)
        self.addCleanup(client.stop)
        client.create("/bc", b"")
        return server, client

    def run_fields(self, client, **fields):
        run = {"session": hex(client.client_id[0]), "path": "/bc", "count": 300, "bytes": 100,
               "in_flight": 50}
        run.update(fields)
        return run

    def test_off_unless_zoo_cfg_turns_it_on(self):
        # Contract: without admin.broadcast.enabled=true the command answers
        # 503 and makes no txn.
        server, client = self.start(enabled=False)
        status, _, body = broadcast(server, self.run_fields(client))
        self.assertEqual(status, 503, body)
        self.assertIn("admin.broadcast.enabled", json.loads(body)["error"])
        self.assertEqual(client.get("/bc")[1].version, 0)

    def test_a_run_sets_the_node_count_times_in_the_callers_session(self):
        # Contract: 200 once every txn is applied, with the count and a rate;
        # the node's version went up by the count and holds `bytes` bytes;
        # the caller's session still works (no stray replies reached it).
        server, client = self.start(enabled=True)
        status, _, body = broadcast(server, self.run_fields(client))
        self.assertEqual(status, 200, body)
        answer = json.loads(body)
        self.assertEqual(answer["count"], 300)
        self.assertEqual((answer["bytes"], answer["in_flight"]), (100, 50))
        self.assertGreater(answer["txns_per_second"], 0)
        self.assertIsNone(answer["error"])
        data, stat = client.get("/bc")
        self.assertEqual((stat.version, len(data), stat.mzxid), (300, 100, answer["last_zxid"]))
        client.set("/bc", b"after")
        self.assertEqual(client.get("/bc")[0], b"after")

    def test_refusals_say_why_and_change_nothing(self):
        # Contract: no credentials 401; a body that is no object or a field
        # missing or out of range 400 naming it; a znode or session that does
        # not exist 500 naming it; GET 405. The node is untouched.
        server, client = self.start(enabled=True)
        self.assertEqual(broadcast(server, self.run_fields(client), auth=None)[0], 401)
        for fields, error in ((b"nope", "not a JSON object"),
                              (self.run_fields(client, count=0), "count"),
                              (self.run_fields(client, bytes=2 << 20), "bytes"),
                              (self.run_fields(client, in_flight="many"), "in_flight"),
                              (self.run_fields(client, path="relative"), "path"),
                              (self.run_fields(client, session=None), "session")):
            status, _, body = broadcast(server, fields)
            self.assertEqual(status, 400, fields)
            self.assertIn(error, json.loads(body)["error"])
        for fields, error in ((self.run_fields(client, path="/absent"), "no znode /absent"),
                              (self.run_fields(client, session="0x1"), "no open session")):
            status, _, body = broadcast(server, fields)
            self.assertEqual(status, 500, body)
            self.assertIn(error, json.loads(body)["error"])
        self.assertEqual(broadcast(server, {}, method="GET")[0], 405)
        self.assertEqual(client.get("/bc")[1].version, 0)


if __name__ == "__main__":
    sys.exit(servers.unittest_main(sys.modules[__name__], KAZOO))

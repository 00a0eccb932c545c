# SPDX-License-Identifier: Apache-2.0
"""How a kazoo client learns that the server refused its credentials.

kazoo reports CONNECTED before its SASL exchange and AUTH_FAILED after it, so
KazooClient.start() races the two: when both land before start() begins to
wait, it waits its whole timeout and raises a time-out. The session state a
LOST listener sees is the client's verdict without that race.
"""

import threading

from kazoo.protocol.states import KazooState


def start_until_given_up(client, deadline_s):
    """Start `client` and wait, at most `deadline_s`, until it gives its session
    up. Returns the KeeperState that ended it (AUTH_FAILED for a refusal), or
    None if the client was still trying at the deadline (a retry loop)."""
    given_up = threading.Event()
    why = []

    def listener(state):
        if state == KazooState.LOST and not given_up.is_set():
            why.append(client.client_state)
            given_up.set()

    client.add_listener(listener)
    client.start_async()
    if not given_up.wait(deadline_s):
        return None
    return why[0]

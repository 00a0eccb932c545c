# SPDX-License-Identifier: Apache-2.0
"""What TAB offers with the scripts in completions/ loaded, as a user sees it
(bash-completion's loader, COMP_WORDS set, the completion function called;
see bash_completion.py). Needs no tool binary and no server.

Run: /usr/bin/python3 tests/completions/completion_behaviour_test.py -v
"""

import os
import tempfile
import unittest

from bash_completion import complete

COMPLETIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "completions")


def script(tool):
    return os.path.join(COMPLETIONS, f"{tool}.bash")


class FilesTestCase(unittest.TestCase):
    """Runs completions in a fresh directory holding a few files."""

    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.dir = self._dir.name
        for name in ["zoo.cfg", "zoo-2.cfg", "log.100000001", "snapshot.0", "plot.svg"]:
            with open(os.path.join(self.dir, name), "w"):
                pass
        os.mkdir(os.path.join(self.dir, "data"))

    def tearDown(self):
        self._dir.cleanup()

    def complete(self, *words):
        return complete(script(words[0]), list(words), cwd=self.dir)


class ZkdTest(FilesTestCase):
    def test_option_prefix(self):
        self.assertEqual(self.complete("zkd", "--con"), ["--config"])

    def test_options(self):
        self.assertEqual(self.complete("zkd", "-"),
                         ["--config", "--help", "--jaas", "--version", "-c"])

    def test_config_takes_a_file(self):
        self.assertEqual(self.complete("zkd", "--jaas", "zoo"), ["zoo-2.cfg", "zoo.cfg"])
        self.assertEqual(self.complete("zkd", "--config", "zoo"), ["zoo-2.cfg", "zoo.cfg"])
        self.assertIn("data", self.complete("zkd", "-c", ""))

    def test_subcommands_and_the_config_positional(self):
        self.assertEqual(self.complete("zkd", "dump-l"), ["dump-log"])
        offered = self.complete("zkd", "")
        self.assertIn("dump-snapshot", offered)
        self.assertIn("zoo.cfg", offered)

    def test_dump_log_takes_a_file_and_json(self):
        self.assertEqual(self.complete("zkd", "dump-log", "log"), ["log.100000001"])
        self.assertEqual(self.complete("zkd", "dump-snapshot", "--"), ["--help", "--json"])
        self.assertNotIn("--config", self.complete("zkd", "dump-log", "-"))

    def test_import_and_export_take_directories_and_a_config(self):
        self.assertEqual(self.complete("zkd", "imp"), ["import"])
        self.assertEqual(self.complete("zkd", "import", "--"), ["--config", "--help", "--log-dir"])
        self.assertEqual(self.complete("zkd", "export", "--"), ["--config", "--help"])
        # Directories only, where a directory is wanted; zoo.cfg after --config.
        self.assertEqual(self.complete("zkd", "import", ""), ["data"])
        self.assertEqual(self.complete("zkd", "import", "--log-dir", ""), ["data"])
        self.assertEqual(self.complete("zkd", "export", "--config", "zoo."), ["zoo.cfg"])

    def test_restore_takes_a_snapshot_file_a_config_and_a_zxid(self):
        self.assertEqual(self.complete("zkd", "res"), ["restore"])
        self.assertEqual(self.complete("zkd", "restore", "--"), ["--config", "--help", "--zxid"])
        self.assertEqual(self.complete("zkd", "restore", "snap"), ["snapshot.0"])
        self.assertEqual(self.complete("zkd", "restore", "--config", "zoo."), ["zoo.cfg"])
        self.assertEqual(self.complete("zkd", "restore", "--zxid", ""), [])


class ZkctlTest(FilesTestCase):
    def test_command_prefix(self):
        self.assertEqual(self.complete("zkctl", "dele"), ["delete", "deleteall"])
        self.assertEqual(self.complete("zkctl", "--json", "-s", "h:1", "remove"),
                         ["removewatches"])

    def test_get_lists_its_options(self):
        self.assertEqual(self.complete("zkctl", "get", "--"), ["--base64", "--hex", "--stat", "--watch"])
        self.assertEqual(self.complete("zkctl", "get", "-"),
                         ["--base64", "--hex", "--stat", "--watch", "-S", "-s", "-w"])
        self.assertIn("--persistent", self.complete("zkctl", "watch", "--p"))

    def test_global_options_before_the_command_only(self):
        self.assertIn("--keep-going", self.complete("zkctl", "-"))
        self.assertNotIn("--keep-going", self.complete("zkctl", "ls", "-"))
        self.assertIn("--version", self.complete("zkctl", "--v"))

    def test_file_option(self):
        self.assertEqual(self.complete("zkctl", "-f", "zoo"), ["zoo-2.cfg", "zoo.cfg"])

    def test_option_values_are_not_options(self):
        self.assertEqual(self.complete("zkctl", "set", "-v", ""), [])
        self.assertEqual(self.complete("zkctl", "--server", ""), [])

    def test_recipe_actions_and_their_options(self):
        self.assertEqual(self.complete("zkctl", "barrier", ""), ["enter", "leave"])
        self.assertEqual(self.complete("zkctl", "barrier", "enter", "/b", "-"),
                         ["--id", "--timeout", "-n"])
        self.assertEqual(self.complete("zkctl", "counter", "incr", "/c", "--"), ["--by"])
        self.assertEqual(self.complete("zkctl", "settings", "apply", "/cfg", "zoo."), ["zoo.cfg"])
        self.assertEqual(self.complete("zkctl", "addauth", "d"), ["digest"])

    def test_lock_completes_a_command_after_the_separator(self):
        self.assertIn("echo", self.complete("zkctl", "lock", "/l", "--", "ech"))
        self.assertEqual(self.complete("zkctl", "lock", "/l", "--t"), ["--timeout"])


class ZklabTest(FilesTestCase):
    def make_lab(self, where, ids):
        for node in ids:
            os.makedirs(os.path.join(self.dir, where, f"n{node}"))

    def test_subcommand_prefix(self):
        self.assertEqual(self.complete("zklab", "ki"), ["kill"])
        self.assertEqual(self.complete("zklab", "--timeout", "5", "st"), ["start", "status", "stop"])

    def test_node_is_a_role_or_an_id_of_the_lab(self):
        self.make_lab(".lab/zklab", [1, 2, 3])
        self.assertEqual(self.complete("zklab", "kill", ""),
                         ["1", "2", "3", "follower", "leader", "random"])
        self.assertEqual(self.complete("zklab", "pause", "l"), ["leader"])
        self.assertEqual(self.complete("zklab", "slow", "2", ""), [])  # DELAY

    def test_node_ids_come_from_the_dir_option(self):
        self.make_lab("other", [4, 5])
        self.assertEqual(self.complete("zklab", "--dir", "other", "start", ""),
                         ["4", "5", "follower", "leader", "random"])
        self.assertEqual(self.complete("zklab", "isolate", "--dir", "other", ""),
                         ["4", "5", "follower", "leader", "random"])

    def test_options_of_the_subcommand_and_the_global_ones(self):
        offered = self.complete("zklab", "up", "-")
        for option in ["--nodes", "--observers", "--direct", "--dir", "--version"]:
            self.assertIn(option, offered)
        self.assertNotIn("--wipe", offered)
        self.assertEqual(self.complete("zklab", "start", "--no"), ["--no-wait"])

    def test_nemesis_lists_the_faults(self):
        self.assertEqual(self.complete("zklab", "check", "--nemesis", ""),
                         ["bridge", "corrupt", "crashpoint", "kill", "partition", "pause",
                          "reconfig", "skew", "wipe"])
        self.assertEqual(self.complete("zklab", "check", "--nemesis", "kill,pa"),
                         ["kill,partition", "kill,pause"])

    def test_dir_takes_a_directory(self):
        self.assertEqual(self.complete("zklab", "--dir", ""), ["data"])


class ZkbenchTest(FilesTestCase):
    def test_subcommands(self):
        self.assertEqual(self.complete("zkbench", "c"), ["compare", "creates"])
        self.assertEqual(self.complete("zkbench", "--"), ["--help", "--version"])

    def test_options_of_each_subcommand(self):
        self.assertIn("--zipf-s", self.complete("zkbench", "run", "--z"))
        self.assertNotIn("--steps", self.complete("zkbench", "run", "-"))
        self.assertIn("--steps", self.complete("zkbench", "sweep", "-"))
        self.assertEqual(self.complete("zkbench", "creates", "--k"), ["--keep"])

    def test_option_values(self):
        self.assertEqual(self.complete("zkbench", "run", "--keys", ""), ["uniform", "zipf"])
        self.assertEqual(self.complete("zkbench", "sweep", "--plot", "p"), ["plot.svg"])
        self.assertEqual(self.complete("zkbench", "run", "--sessions", ""), [])


if __name__ == "__main__":
    unittest.main()

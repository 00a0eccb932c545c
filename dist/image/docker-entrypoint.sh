#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The image's entrypoint (/docker-entrypoint.sh): the contract of the official
# `zookeeper` Docker image's docker-entrypoint.sh, in POSIX sh, so that its
# compose files, charts and operators start zkd unchanged. It honours:
#   - the directories ZOO_CONF_DIR (/conf), ZOO_DATA_DIR (/data),
#     ZOO_DATA_LOG_DIR (/datalog) and ZOO_LOG_DIR (/logs), the image's volumes;
#   - started as root with `zkServer.sh ...` (the image's CMD): it makes the
#     data, txn log and log directories (and the conf directory itself, when
#     it can: a ConfigMap is read-only) the zookeeper user's (uid and gid
#     1000), then runs again as that user, as the official image does with
#     gosu; started as any other user (Kubernetes runAsUser), it runs as is;
#   - $ZOO_CONF_DIR/zoo.cfg written only when absent, with the official
#     image's lines in its order: dataDir, dataLogDir, tickTime
#     (ZOO_TICK_TIME), initLimit (ZOO_INIT_LIMIT), syncLimit (ZOO_SYNC_LIMIT),
#     autopurge.snapRetainCount (ZOO_AUTOPURGE_SNAPRETAINCOUNT),
#     autopurge.purgeInterval (ZOO_AUTOPURGE_PURGEINTERVAL), maxClientCnxns
#     (ZOO_MAX_CLIENT_CNXNS), standaloneEnabled (ZOO_STANDALONE_ENABLED),
#     admin.enableServer (ZOO_ADMINSERVER_ENABLED); then each word of
#     ZOO_SERVERS as a line (Apache's "server.1=host:2888:3888;2181" form;
#     "server.1=localhost:2888:3888;2181" when unset); 4lw.commands.whitelist
#     when ZOO_4LW_COMMANDS_WHITELIST is set; each word of ZOO_CFG_EXTRA as a
#     line ("key=value key=value");
#   - $ZOO_DATA_DIR/myid written only when absent: ZOO_MY_ID, 1 when unset;
#   - then runs its arguments: `zkServer.sh start-foreground` (the CMD) runs
#     zkd in the foreground on that zoo.cfg (zkServer.sh beside this file).
# The defaults are the official image's ENV lines (the image's config sets
# them too; they are repeated here so that the script alone keeps them).
# Unlike the official image, zkd logs to stderr only (the container's log,
# as the official image's default logback configuration does to the
# console); ZOO_LOG_DIR is made and owned for scripts that expect it.
# No globbing: ZOO_SERVERS and ZOO_CFG_EXTRA are split into words, and a
# value such as 4lw.commands.whitelist=* must stay as it is.
set -euf

: "${ZOO_CONF_DIR:=/conf}" "${ZOO_DATA_DIR:=/data}" "${ZOO_DATA_LOG_DIR:=/datalog}"
: "${ZOO_LOG_DIR:=/logs}" "${ZOO_TICK_TIME:=2000}" "${ZOO_INIT_LIMIT:=5}" "${ZOO_SYNC_LIMIT:=2}"
: "${ZOO_AUTOPURGE_PURGEINTERVAL:=0}" "${ZOO_AUTOPURGE_SNAPRETAINCOUNT:=3}"
: "${ZOO_MAX_CLIENT_CNXNS:=60}" "${ZOO_STANDALONE_ENABLED:=true}"
: "${ZOO_ADMINSERVER_ENABLED:=true}"
export ZOO_CONF_DIR ZOO_DATA_DIR ZOO_DATA_LOG_DIR ZOO_LOG_DIR

# Root running the server: own the volumes, then run again as zookeeper.
# setpriv (util-linux) does what gosu does in the official image.
if [ "${1:-}" = zkServer.sh ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$ZOO_DATA_DIR" "$ZOO_DATA_LOG_DIR" "$ZOO_LOG_DIR" "$ZOO_CONF_DIR"
  chown -R zookeeper:zookeeper "$ZOO_DATA_DIR" "$ZOO_DATA_LOG_DIR" "$ZOO_LOG_DIR"
  chown zookeeper:zookeeper "$ZOO_CONF_DIR" 2>/dev/null || true
  exec setpriv --reuid=zookeeper --regid=zookeeper --init-groups "$0" "$@"
fi

# The config, only when there is none (a mounted zoo.cfg is used as it is).
config="$ZOO_CONF_DIR/zoo.cfg"
if [ ! -f "$config" ]; then
  {
    echo "dataDir=$ZOO_DATA_DIR"
    echo "dataLogDir=$ZOO_DATA_LOG_DIR"
    echo "tickTime=$ZOO_TICK_TIME"
    echo "initLimit=$ZOO_INIT_LIMIT"
    echo "syncLimit=$ZOO_SYNC_LIMIT"
    echo "autopurge.snapRetainCount=$ZOO_AUTOPURGE_SNAPRETAINCOUNT"
    echo "autopurge.purgeInterval=$ZOO_AUTOPURGE_PURGEINTERVAL"
    echo "maxClientCnxns=$ZOO_MAX_CLIENT_CNXNS"
    echo "standaloneEnabled=$ZOO_STANDALONE_ENABLED"
    echo "admin.enableServer=$ZOO_ADMINSERVER_ENABLED"
    # Word splitting is the contract: one server.N (or key=value) per word.
    for server in ${ZOO_SERVERS:-server.1=localhost:2888:3888;2181}; do
      echo "$server"
    done
    if [ -n "${ZOO_4LW_COMMANDS_WHITELIST:-}" ]; then
      echo "4lw.commands.whitelist=$ZOO_4LW_COMMANDS_WHITELIST"
    fi
    for entry in ${ZOO_CFG_EXTRA:-}; do
      echo "$entry"
    done
  } >"$config.tmp"
  mv "$config.tmp" "$config"
fi

# myid, only when there is none (a restarted server keeps its identity).
if [ ! -f "$ZOO_DATA_DIR/myid" ]; then
  echo "${ZOO_MY_ID:-1}" >"$ZOO_DATA_DIR/myid"
fi

exec "$@"

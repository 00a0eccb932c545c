#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# zkServer.sh in the image (/usr/local/bin, on PATH): the commands of Apache
# ZooKeeper's bin/zkServer.sh that charts and compose files call, mapped to
# zkd. The config is ZOOCFGDIR/ZOOCFG as Apache's zkEnv.sh picks it:
# ZOOCFGDIR (default ZOO_CONF_DIR, else /conf), ZOOCFG (default zoo.cfg);
# a second argument names another file (in ZOOCFGDIR, or a path with a /).
#   start-foreground  runs zkd on that file in the foreground (exec: zkd is
#                     the container's process and gets its signals)
#   print-cmd         prints the command start-foreground runs
#   version           zkd --version
# start, stop, restart and status (a daemon in the background, a pid file)
# are refused with exit 1: a container runs the server in the foreground.
# zkd reads SERVER_JVMFLAGS and JVMFLAGS itself for a JAAS file
# (-Djava.security.auth.login.config=...), as Apache's script passes them.
set -eu

ZOOCFGDIR="${ZOOCFGDIR:-${ZOO_CONF_DIR:-/conf}}"
ZOOCFG="${ZOOCFG:-zoo.cfg}"
if [ $# -gt 1 ]; then
  case "$2" in
    */*) ZOOCFG="$2" ;;
    *) ZOOCFG="$ZOOCFGDIR/$2" ;;
  esac
else
  ZOOCFG="$ZOOCFGDIR/$ZOOCFG"
fi

case "${1:-}" in
  start-foreground)
    exec zkd "$ZOOCFG"
    ;;
  print-cmd)
    echo "zkd \"$ZOOCFG\""
    ;;
  version)
    exec zkd --version
    ;;
  start | stop | restart | status)
    echo "zkServer.sh: '$1' runs a background daemon; in this image use start-foreground" >&2
    exit 1
    ;;
  *)
    echo "Usage: zkServer.sh {start-foreground|print-cmd|version} [config]" >&2
    exit 1
    ;;
esac

#!/usr/bin/env bash
# Starts and stops the engines scripts/engines/fetch.sh installed, by PID, on
# 127.0.0.1 only:
#
#   ctl.sh start ENGINE [single|cluster]   start and wait until /_cluster/health answers
#   ctl.sh stop  ENGINE [single|cluster] [NODE]  stop every node (or node NODE: 1 or 2)
#   ctl.sh urls  ENGINE [single|cluster]   print the nodes' HTTP URLs, comma-separated
#   ctl.sh java  ENGINE                    print the JAVA_HOME the engine runs on
#   ctl.sh dir                             print the engines folder (see below)
#   ctl.sh stop-all                        stop every node started under the engines folder
#
# ENGINE is elasticsearch or opensearch. single: one node, discovery.type
# single-node, HTTP $RAGBENCH_ENGINE_PORT (default 9200), transport port +100.
# cluster: two nodes (HTTP port and port+10, transport +100: 9200/9210,
# 9300/9310 by default) joined by discovery.seed_hosts and
# cluster.initial_master_nodes; start waits for both nodes (status yellow or
# better). Each node: heap 1 GB, security off (the integ-test zips carry
# none), disk-threshold allocation off, its own config/, data/, logs/ and pid
# under $RAGBENCH_ENGINES_DIR/run/ENGINE-TOPOLOGY-PORT/nN (data survives a
# stop; `rm -rf` that folder for a fresh cluster). Extra elasticsearch.yml /
# opensearch.yml lines come from $RAGBENCH_ENGINE_SETTINGS (newline-separated,
# e.g. "thread_pool.write.queue_size: 1").
#
# Before a node starts, its HTTP and transport ports must be free on
# 127.0.0.1 (else start fails naming the port and, when ss can tell, its
# process): an engine left running, or another program, would otherwise
# answer the readiness check in its place.
#
# The engines folder: $RAGBENCH_ENGINES_DIR, else third_party/engines in
# the repository — except as root when that folder cannot be reached by
# other users (a parent without o+x, e.g. a checkout under /root or a
# mktemp -d folder), then /var/tmp/ragbench-engines. fetch.sh and
# test.sh ask `ctl.sh dir`.
#
# The engines refuse to run as root: as root the nodes run as the system user
# ragbench-engine, created with useradd when missing. Java: $RAGBENCH_ENGINE_JAVA,
# else Temurin 25 (Elasticsearch indexes ~2x faster on it than on Java 17;
# OpenSearch 3.5 needs Java 21+), else Java 17 for Elasticsearch.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
port="${RAGBENCH_ENGINE_PORT:-9200}"
user=ragbench-engine

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# reachable DIR: true when every existing folder from / down to DIR can be
# searched by others (o+x), as the engine user needs.
reachable() {
  local d="$1"
  while [[ ! -e "$d" ]]; do d="$(dirname "$d")"; done
  while :; do
    [[ -n "$(find "$d" -maxdepth 0 -perm -o=x 2>/dev/null)" ]] || return 1
    [[ "$d" == / ]] && return 0
    d="$(dirname "$d")"
  done
}

if [[ -n "${RAGBENCH_ENGINES_DIR:-}" ]]; then
  base="$RAGBENCH_ENGINES_DIR"
elif [[ "$(id -u)" -eq 0 ]] && ! reachable "$root/third_party/engines"; then
  base=/var/tmp/ragbench-engines
else
  base="$root/third_party/engines"
fi

# stop_dir DIR NAME: stops the node whose pid file is in DIR (TERM, then
# KILL after 60 s); nothing when it is not running.
stop_dir() {
  local dir="$1" name="$2" pid i
  running "$dir" || { rm -f "$dir/pid"; return 0; }
  pid="$(cat "$dir/pid")"
  kill "$pid"
  for ((i = 0; i < 60; i++)); do
    kill -0 "$pid" 2>/dev/null || { echo "engines/ctl: $name stopped (pid $pid)"; rm -f "$dir/pid"; return 0; }
    sleep 1
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/pid"
  echo "engines/ctl: $name killed (pid $pid) after 60 s"
}

running() { [[ -f "$1/pid" ]] && kill -0 "$(cat "$1/pid")" 2>/dev/null; }

case "${1:-}" in
  dir) echo "$base"; exit 0 ;;
  stop-all)
    # Every node a start left under run/ (a test that died before its
    # cleanup, a timed-out go test): scripts/engines/test.sh's trap.
    shopt -s nullglob
    for pidfile in "$base"/run/*/n*/pid; do
      d="$(dirname "$pidfile")"
      stop_dir "$d" "$(basename "$(dirname "$d")")/$(basename "$d")"
    done
    exit 0
    ;;
esac
[[ $# -ge 2 ]] || usage
cmd="$1" engine="$2" topo="${3:-single}"
case "$engine" in
  elasticsearch) home="$base/elasticsearch-8.19.21" ;;
  opensearch) home="$base/opensearch-3.5.0" ;;
  *) usage ;;
esac
case "$topo" in single) nodes=1 ;; cluster) nodes=2 ;; *) usage ;; esac
[[ "$port" =~ ^[0-9]+$ ]] || { echo "engines/ctl: RAGBENCH_ENGINE_PORT must be a number" >&2; exit 2; }

java_home() {
  local j
  for j in "${RAGBENCH_ENGINE_JAVA:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-21-jdk-amd64; do
    [[ -n "$j" && -x "$j/bin/java" ]] && { echo "$j"; return; }
  done
  if [[ "$engine" == elasticsearch && -x /usr/lib/jvm/java-17-openjdk-amd64/bin/java ]]; then
    echo /usr/lib/jvm/java-17-openjdk-amd64; return
  fi
  echo "engines/ctl: no Java for $engine (set RAGBENCH_ENGINE_JAVA to a JDK 21+ home)" >&2
  exit 1
}

http_port() { echo $((port + 10 * ($1 - 1))); }
node_dir() { echo "$base/run/$engine-$topo-$port/n$1"; }
urls() {
  local n out=""
  for ((n = 1; n <= nodes; n++)); do out+="${out:+,}http://127.0.0.1:$(http_port "$n")"; done
  echo "$out"
}

# as_engine CMD...: runs CMD as the engine user (root) or as is.
as_engine() {
  if [[ "$(id -u)" -eq 0 ]]; then
    if ! id "$user" >/dev/null 2>&1; then
      useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
    fi
    runuser -u "$user" -- "$@"
  else
    "$@"
  fi
}

# port_free PORT: true when nothing accepts connections on 127.0.0.1:PORT
# (a refused connection answers at once on loopback).
port_free() { ! timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# check_ports: every port of the nodes not already running is free, else
# exit 1 naming the port and what holds it.
check_ports() {
  local n p who
  for ((n = 1; n <= nodes; n++)); do
    running "$(node_dir "$n")" && continue
    for p in "$(http_port "$n")" $(($(http_port "$n") + 100)); do
      if ! port_free "$p"; then
        who="$(ss -ltnpH "sport = :$p" 2>/dev/null | grep -o 'users:.*' | head -n1 || true)"
        echo "engines/ctl: port $p on 127.0.0.1 is in use${who:+ ($who)}: $engine n$n needs it (HTTP port+100 is transport); stop what listens there or set RAGBENCH_ENGINE_PORT" >&2
        exit 1
      fi
    done
  done
}

# check_user_access: as root, the engine user must reach the engine's
# home and the node folders (ctl.sh dir picks a reachable folder unless
# RAGBENCH_ENGINES_DIR says otherwise).
check_user_access() {
  [[ "$(id -u)" -eq 0 ]] || return 0
  if ! reachable "$home/bin"; then
    echo "engines/ctl: the engine user $user cannot reach $home (a parent folder lacks o+x); set RAGBENCH_ENGINES_DIR to a folder others can search, e.g. /var/tmp/ragbench-engines, and run scripts/engines/fetch.sh" >&2
    exit 1
  fi
}

start_node() {
  local n="$1" dir hp tp seeds masters j
  dir="$(node_dir "$n")" hp="$(http_port "$n")" tp=$(($(http_port "$n") + 100))
  if running "$dir"; then echo "engines/ctl: $engine n$n already running (pid $(cat "$dir/pid"))"; return; fi
  mkdir -p "$dir/data" "$dir/logs"
  rm -rf "$dir/config"
  cp -r "$home/config" "$dir/config"
  # jvm.options names logs/ and data/ relative to the engine's home, which
  # the engine user cannot write: point them into the node's folder.
  sed -i -e "s|=logs/|=$dir/logs/|g; s|file=logs/|file=$dir/logs/|g; s|HeapDumpPath=data|HeapDumpPath=$dir/data|g" "$dir/config/jvm.options"
  {
    echo "cluster.name: ragbench-$engine-$topo"
    echo "node.name: n$n"
    echo "network.host: 127.0.0.1"
    echo "http.port: $hp"
    echo "transport.port: $tp"
    echo "path.data: $dir/data"
    echo "path.logs: $dir/logs"
    echo "cluster.routing.allocation.disk.threshold_enabled: false"
    [[ "$engine" == elasticsearch ]] && echo "xpack.security.enabled: false"
    if [[ "$nodes" -eq 1 ]]; then
      echo "discovery.type: single-node"
    else
      seeds="127.0.0.1:$((port + 100)),127.0.0.1:$((port + 110))"
      masters="n1,n2"
      echo "discovery.seed_hosts: [$seeds]"
      echo "cluster.initial_${engine/elasticsearch/master}_nodes: [$masters]" | sed 's/initial_opensearch_nodes/initial_cluster_manager_nodes/'
    fi
    [[ -n "${RAGBENCH_ENGINE_SETTINGS:-}" ]] && printf '%s\n' "$RAGBENCH_ENGINE_SETTINGS"
  } >>"$dir/config/$engine.yml"
  if [[ "$(id -u)" -eq 0 ]]; then
    id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
    chown -R "$user" "$dir"
  fi
  j="$(java_home)"
  rm -f "$dir/pid"
  if [[ "$engine" == elasticsearch ]]; then
    as_engine env ES_PATH_CONF="$dir/config" ES_JAVA_HOME="$j" ES_JAVA_OPTS="-Xms1g -Xmx1g" \
      "$home/bin/elasticsearch" -d -p "$dir/pid" >"$dir/logs/stdout.log" 2>&1 || true
  else
    as_engine env OPENSEARCH_PATH_CONF="$dir/config" OPENSEARCH_JAVA_HOME="$j" OPENSEARCH_JAVA_OPTS="-Xms1g -Xmx1g" \
      "$home/bin/opensearch" -d -p "$dir/pid" >"$dir/logs/stdout.log" 2>&1 || true
  fi
  echo "engines/ctl: $engine n$n starting on http://127.0.0.1:$hp (java $j, logs $dir/logs)"
}

wait_ready() {
  local deadline=$((SECONDS + ${RAGBENCH_ENGINE_WAIT:-180})) started=$SECONDS n dir
  local u="http://127.0.0.1:$port/_cluster/health?wait_for_nodes=$nodes&wait_for_status=yellow&timeout=2s"
  while ((SECONDS < deadline)); do
    if curl -fsS -o /dev/null "$u" 2>/dev/null; then
      echo "engines/ctl: $engine $topo ready: $(urls)"
      return
    fi
    for ((n = 1; n <= nodes; n++)); do
      dir="$(node_dir "$n")"
      # Elasticsearch's -d returns once the node is up or has failed;
      # OpenSearch's returns at once and writes the pid file later. A pid
      # file still missing after 90 s, or a dead pid, is a failed start.
      if { [[ ! -f "$dir/pid" ]] && ((SECONDS > started + 90)); } || { [[ -f "$dir/pid" ]] && ! running "$dir"; }; then
        echo "engines/ctl: $engine n$n is not running; last log lines:" >&2
        tail -n 20 "$dir/logs/stdout.log" >&2 2>/dev/null || true
        exit 1
      fi
    done
    sleep 1
  done
  echo "engines/ctl: $engine $topo not ready after ${RAGBENCH_ENGINE_WAIT:-180}s ($u)" >&2
  exit 1
}

stop_node() { stop_dir "$(node_dir "$1")" "$engine n$1"; }

case "$cmd" in
  java) java_home ;;
  urls) urls ;;
  start)
    [[ -x "$home/bin/$engine" ]] || { echo "engines/ctl: $engine not installed in $home (run scripts/engines/fetch.sh)" >&2; exit 1; }
    command -v curl >/dev/null || { echo "engines/ctl: curl is required" >&2; exit 1; }
    check_user_access
    check_ports
    for ((n = 1; n <= nodes; n++)); do start_node "$n"; done
    wait_ready
    ;;
  stop)
    if [[ -n "${4:-}" ]]; then
      [[ "$4" =~ ^[12]$ && "$4" -le "$nodes" ]] || usage
      stop_node "$4"
    else
      for ((n = nodes; n >= 1; n--)); do stop_node "$n"; done
    fi
    ;;
  *) usage ;;
esac

#!/usr/bin/env bash
# Single-machine Apache Druid for development and e2e tests, built from Maven Central jars.
#
#   bash dev/druid/druid.sh fetch            resolve Druid's runtime classpath into dev/druid/lib/ (mvn)
#   bash dev/druid/druid.sh start            fetch if needed, start ZooKeeper, Coordinator(+Overlord, Derby),
#                                            Historical, Indexer, Broker, Router; then wait until ready
#   bash dev/druid/druid.sh wait [timeout_s] wait until the cluster can ingest and answer SQL (default 300)
#   bash dev/druid/druid.sh stop             stop everything (TERM, then KILL stragglers); idempotent
#   bash dev/druid/druid.sh start|stop SVC.. start (and wait until healthy) or stop only these services of a
#                                            running cluster, e.g. DRUID_CLUSTER=ha ... stop historical2 (tests)
#   bash dev/druid/druid.sh status           one line per service
#   bash dev/druid/druid.sh logs [service]   tail -f the log(s)
#   bash dev/druid/druid.sh clean            stop, then remove the var dir (Derby, deep storage, segment cache, logs);
#                                            the fetched jars in dev/druid/lib stay
#   bash dev/druid/druid.sh url              print the Router base URL (http://127.0.0.1:8888)
#   bash dev/druid/druid.sh env              the same as a shell assignment (DRUID_URL=...)
#
# Environment:
#   DRUID_VERSION   Druid version to fetch (default: <druid.version> of dev/druid/pom.xml)
#   DRUID_VAR_DIR   state directory: pids, logs, Derby, deep storage, segment cache (default dev/druid/var)
#   DRUID_START_TIMEOUT  seconds `start` waits for readiness (default 300; 0 = do not wait)
#   JAVA / MVN      java and mvn executables (default: from PATH)
#   DRUID_EXTENSIONS_DIR  a folder of extension folders (one per extension, its jars inside) to load on every
#                   service, e.g. a hand-built druid-multi-stage-query (docs/msq.md); unset: no extensions
#   DRUID_EXTENSIONS      comma-separated names to load from it (default: every folder in DRUID_EXTENSIONS_DIR)
#   DRUID_ZK_SESSION_TIMEOUT_MS  ha only: druid.zk.service.sessionTimeoutMs of the services it starts
#                   (default: Druid's 30000); bounds the Router's 502 gap after an Overlord leader dies
#   DRUID_CLUSTER   small (default: the cluster below) or ha: a failover cluster beside it (own ports, own
#                   var dir dev/druid/var-ha): standalone Derby network server, ZooKeeper, two Coordinator-
#                   Overlords, two Historicals (default load rule: 2 replicas), Indexer, Broker, Router
#
# Everything listens on 127.0.0.1 only: ZooKeeper 2181, Derby 1527, Coordinator/Overlord 8081,
# Broker 8082, Historical 8083, Indexer 8091, Router 8888.
# DRUID_CLUSTER=ha: ZooKeeper 2191, Derby 1537, Coordinator/Overlords 18081 + 18181, Broker 18082,
# Historicals 18083 + 18183, Indexer 18091, Router 18888.
set -euo pipefail

DRUID_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DEV_NAME=druid.sh
# shellcheck source=../lib.sh
source "$DRUID_HOME/../lib.sh"
CONF_DIR="$DRUID_HOME/conf"
LIB_DIR="$DRUID_HOME/lib"
POM="$DRUID_HOME/pom.xml"
STAMP="$LIB_DIR/.fetch-stamp"

pom_version() {
  sed -n 's:.*<druid.version>\(.*\)</druid.version>.*:\1:p' "$POM" | head -n1
}
DRUID_VERSION="${DRUID_VERSION:-$(pom_version)}"
DRUID_CLUSTER="${DRUID_CLUSTER:-small}"
case "$DRUID_CLUSTER" in
  small) VAR_DIR="${DRUID_VAR_DIR:-$DRUID_HOME/var}" ;;
  ha) VAR_DIR="${DRUID_VAR_DIR:-$DRUID_HOME/var-ha}" ;;
  *) die "DRUID_CLUSTER=$DRUID_CLUSTER is not a cluster kind; valid: small (default), ha" ;;
esac
[[ "$VAR_DIR" == /* ]] || VAR_DIR="$PWD/$VAR_DIR"
JAVA="${JAVA:-java}"
MVN="${MVN:-mvn}"

# start order; "zk" is ZooKeeper, "derby" the standalone Derby network server (ha only), the others are
# `org.apache.druid.cli.Main server <type>`
if [[ "$DRUID_CLUSTER" == ha ]]; then
  ROUTER_URL="http://127.0.0.1:18888"
  SERVICES=(zk derby coordinator-overlord coordinator-overlord2 historical historical2 indexer broker router)
  DERBY_PORT=1537
else
  ROUTER_URL="http://127.0.0.1:8888"
  SERVICES=(zk coordinator-overlord historical indexer broker router)
  DERBY_PORT=1527
fi

# the ha cluster's ports (the small one reads them from conf/)
ha_port() {
  case "$1" in
    zk) echo 2191 ;; derby) echo 1537 ;;
    coordinator-overlord) echo 18081 ;; coordinator-overlord2) echo 18181 ;;
    broker) echo 18082 ;; historical) echo 18083 ;; historical2) echo 18183 ;;
    indexer) echo 18091 ;; router) echo 18888 ;;
  esac
}

# conf/ folder of a service (the second Overlord and Historical share the first one's)
conf_of() { echo "${1%2}"; }

service_port() {
  if [[ "$DRUID_CLUSTER" == ha ]]; then ha_port "$1"; return; fi
  case "$1" in
    zk) sed -n 's/^clientPort=//p' "$CONF_DIR/zk/zoo.cfg" ;;
    *) sed -n 's/^druid.plaintextPort=//p' "$CONF_DIR/$1/runtime.properties" ;;
  esac
}

server_type() {
  case "$1" in
    coordinator-overlord*) echo coordinator ;;
    historical*) echo historical ;;
    *) echo "$1" ;;
  esac
}

# ha: small heaps (the machine is shared), placed after jvm.config so they win
ha_heap() {
  case "$1" in
    zk | derby | router) printf '%s\n' -Xms64m -Xmx128m ;;
    coordinator-overlord*) printf '%s\n' -Xms192m -Xmx320m ;;
    historical*) printf '%s\n' -Xms128m -Xmx256m -XX:MaxDirectMemorySize=160m ;;
    broker) printf '%s\n' -Xms192m -Xmx320m ;;
    indexer) printf '%s\n' -Xms256m -Xmx768m ;;
  esac
}

# ha: the -D overrides that move a service to its own ports and directories
ha_props() {
  local svc="$1"
  printf '%s\n' "-Ddruid.plaintextPort=$(ha_port "$svc")" "-Ddruid.zk.service.host=127.0.0.1:$(ha_port zk)"
  # how long ZooKeeper keeps a dead leader's latch (Druid's default 30000; the server clamps it to 4000-40000)
  if [[ -n "${DRUID_ZK_SESSION_TIMEOUT_MS:-}" ]]; then
    printf '%s\n' "-Ddruid.zk.service.sessionTimeoutMs=$DRUID_ZK_SESSION_TIMEOUT_MS"
  fi
  case "$svc" in
    coordinator-overlord*)
      # Druid's DerbyMetadataStorage starts (and on stop shuts down) a Derby server on connector.host/port:
      # give each Overlord a port of its own so stopping one never shuts the shared server on 1537 down.
      local own=1547
      [[ "$svc" == coordinator-overlord2 ]] && own=1548
      printf '%s\n' "-Ddruid.metadata.storage.connector.port=$own" ;;
    historical2)
      printf '%s\n' "-Ddruid.segmentCache.locations=[{\"path\":\"$VAR_DIR/segment-cache2\",\"maxSize\":\"20g\"}]" \
        "-Ddruid.segmentCache.infoDir=$VAR_DIR/segment-cache-info2" ;;
  esac
}

# ---------------------------------------------------------------------------------------------------------
# fetch
# ---------------------------------------------------------------------------------------------------------
stamp_value() {
  local h
  h="$(sha256sum "$POM" | cut -d' ' -f1)"
  echo "pom=$h version=$DRUID_VERSION"
}

lib_complete() {
  [[ -f "$STAMP" ]] && [[ "$(cat "$STAMP")" == "$(stamp_value)" ]] \
    && compgen -G "$LIB_DIR/druid-services-$DRUID_VERSION.jar" >/dev/null
}

require_java() {
  command -v "$JAVA" >/dev/null 2>&1 \
    || die "java not found (JAVA=$JAVA). Druid $DRUID_VERSION needs Java 17 (or 11) on PATH."
  local v
  v="$("$JAVA" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1)"
  if [[ -n "$v" && "$v" != 11 && "$v" != 17 ]]; then
    log "warning: Java $v detected; Druid $DRUID_VERSION supports Java 11 and 17"
  fi
}

cmd_fetch() {
  if lib_complete; then
    log "lib/ is complete for Druid $DRUID_VERSION ($(find "$LIB_DIR" -name '*.jar' | wc -l) jars), nothing to fetch"
    return 0
  fi
  local svc
  for svc in "${SERVICES[@]}"; do
    service_pid "$svc" >/dev/null && die "lib/ must be (re)fetched for Druid $DRUID_VERSION but $svc is running from it: run 'druid.sh stop' first"
  done
  require_java
  command -v "$MVN" >/dev/null 2>&1 \
    || die "mvn not found (MVN=$MVN). Install Maven 3.6+ (e.g. apt-get install maven): it downloads Druid's jars from Maven Central."
  log "fetching Druid $DRUID_VERSION runtime classpath from Maven Central into $LIB_DIR (first time: ~180 MB)"
  local t0=$SECONDS
  rm -rf "$LIB_DIR"
  mkdir -p "$LIB_DIR"
  if ! "$MVN" -B -q -f "$POM" -Ddruid.version="$DRUID_VERSION" -Ddruid.lib.dir="$LIB_DIR" \
      dependency:copy-dependencies; then
    rm -rf "$LIB_DIR"
    die "mvn could not resolve org.apache.druid:druid-services:$DRUID_VERSION (see the output above). Note: on some mirrors only 33.0.0 is served; try DRUID_VERSION=33.0.0."
  fi
  compgen -G "$LIB_DIR/druid-services-$DRUID_VERSION.jar" >/dev/null \
    || die "mvn finished but $LIB_DIR/druid-services-$DRUID_VERSION.jar is missing"
  stamp_value >"$STAMP"
  log "fetched $(find "$LIB_DIR" -name '*.jar' | wc -l) jars ($(du -sh "$LIB_DIR" | cut -f1)) in $((SECONDS - t0))s"
}

# ---------------------------------------------------------------------------------------------------------
# process helpers
# ---------------------------------------------------------------------------------------------------------

# whether process $2 is service $1 (for dev/lib.sh's service_pid): java with the marker property names it
service_is() { pid_cmdline "$2" | grep -qF -- "-Ddruid.devcluster.service=$1 "; }

java_opts_common() {
  # the flags Druid's bin/run-java adds on Java >= 11 (required on 17)
  printf '%s\n' \
    --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED \
    --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED \
    --add-opens=java.base/java.nio=ALL-UNNAMED \
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
    --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED \
    --add-opens=java.base/java.io=ALL-UNNAMED \
    --add-opens=java.base/java.lang=ALL-UNNAMED \
    --add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED \
    -XX:+ExitOnOutOfMemoryError \
    -Duser.timezone=UTC \
    -Dfile.encoding=UTF-8 \
    "-Djava.io.tmpdir=$VAR_DIR/tmp" \
    -Djava.util.logging.manager=org.apache.logging.log4j.jul.LogManager \
    -Dlog4j.shutdownHookEnabled=true
}

# absolute-path properties (override the relative defaults of runtime.properties)
druid_path_props() {
  local svc="$1"
  printf '%s\n' \
    "-Ddruid.metadata.storage.connector.connectURI=jdbc:derby://127.0.0.1:$DERBY_PORT/$VAR_DIR/metadata/druid.db;create=true" \
    "-Ddruid.storage.storageDirectory=$VAR_DIR/segments" \
    "-Ddruid.indexer.logs.directory=$VAR_DIR/indexing-logs" \
    "-Ddruid.processing.tmpDir=$VAR_DIR/processing" \
    "-Ddruid.log.path=$VAR_DIR/log"
  extension_props
  case "$svc" in
    coordinator-overlord*)
      printf '%s\n' "-Dderby.stream.error.file=$VAR_DIR/log/derby.log" "-Dderby.system.home=$VAR_DIR/metadata" ;;
    historical*)
      printf '%s\n' "-Ddruid.segmentCache.locations=[{\"path\":\"$VAR_DIR/segment-cache\",\"maxSize\":\"20g\"}]" \
        "-Ddruid.segmentCache.infoDir=$VAR_DIR/segment-cache-info" ;;
    indexer)
      printf '%s\n' "-Ddruid.indexer.task.baseTaskDir=$VAR_DIR/task" \
        "-Ddruid.worker.baseTaskDirs=[\"$VAR_DIR/task\"]" \
        "-Ddruid.indexer.task.hadoopWorkingPath=$VAR_DIR/hadoop-tmp" \
        "-Ddruid.indexer.fork.property.druid.processing.tmpDir=$VAR_DIR/processing" ;;
  esac
}

# -Ddruid.extensions.* when DRUID_EXTENSIONS_DIR is set (nothing otherwise: conf's empty loadList stands)
extension_props() {
  [[ -n "${DRUID_EXTENSIONS_DIR:-}" ]] || return 0
  [[ -d "$DRUID_EXTENSIONS_DIR" ]] || die "DRUID_EXTENSIONS_DIR=$DRUID_EXTENSIONS_DIR is not a directory"
  local names="${DRUID_EXTENSIONS:-}" name list="" exts=()
  if [[ -z "$names" ]]; then
    names="$(find "$DRUID_EXTENSIONS_DIR" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | paste -sd, -)"
  fi
  [[ -n "$names" ]] || die "DRUID_EXTENSIONS_DIR=$DRUID_EXTENSIONS_DIR holds no extension folder"
  IFS=',' read -ra exts <<<"$names"
  for name in "${exts[@]}"; do
    compgen -G "$DRUID_EXTENSIONS_DIR/$name/*.jar" >/dev/null \
      || die "extension '$name': no jar in $DRUID_EXTENSIONS_DIR/$name"
    list+="${list:+,}\"$name\""
  done
  printf '%s\n' "-Ddruid.extensions.directory=$(cd "$DRUID_EXTENSIONS_DIR" && pwd)" "-Ddruid.extensions.loadList=[$list]"
}

# the java command of a service, for dev/lib.sh's start_service
prepare_service() {
  local svc="$1"
  local -a opts=() args=() conf
  conf="$(conf_of "$svc")"
  [[ "$svc" == derby ]] || mapfile -t opts < <(grep -v '^\s*\(#\|$\)' "$CONF_DIR/$conf/jvm.config")
  if [[ "$DRUID_CLUSTER" == ha ]]; then
    local -a heap=()
    mapfile -t heap < <(ha_heap "$svc")
    opts+=("${heap[@]}")
  fi
  local -a common=()
  mapfile -t common < <(java_opts_common)
  if [[ "$svc" == zk ]]; then
    mkdir -p "$VAR_DIR/zk/data"
    sed -e "s#@ZK_DATA_DIR@#$VAR_DIR/zk/data#" -e "s#^clientPort=.*#clientPort=$(service_port zk)#" \
      "$CONF_DIR/zk/zoo.cfg" >"$VAR_DIR/zk/zoo.cfg"
    args=("${opts[@]}" "${common[@]}" "-Ddruid.devcluster.service=$svc" "-Ddruid.devcluster.var=$VAR_DIR"
          -cp "$CONF_DIR/_common:$LIB_DIR/*"
          org.apache.zookeeper.server.ZooKeeperServerMain "$VAR_DIR/zk/zoo.cfg")
  elif [[ "$svc" == derby ]]; then
    # the metadata store that outlives either Overlord: Derby's own network server
    args=("${opts[@]}" "-Dderby.system.home=$VAR_DIR/metadata" "-Dderby.stream.error.file=$VAR_DIR/log/derby-server.log"
          "-Dderby.drda.host=127.0.0.1" "-Ddruid.devcluster.service=$svc" "-Ddruid.devcluster.var=$VAR_DIR"
          -cp "$LIB_DIR/*"
          org.apache.derby.drda.NetworkServerControl start -h 127.0.0.1 -p "$DERBY_PORT" -noSecurityManager)
  else
    local -a paths=() ha=()
    mapfile -t paths < <(druid_path_props "$svc")
    [[ "$DRUID_CLUSTER" == ha ]] && mapfile -t ha < <(ha_props "$svc")
    args=("${opts[@]}" "${common[@]}" "${paths[@]}" "${ha[@]}" "-Ddruid.node.type=$(server_type "$svc")"
          "-Ddruid.devcluster.service=$svc" "-Ddruid.devcluster.var=$VAR_DIR"
          -cp "$CONF_DIR/$conf:$CONF_DIR/_common:$LIB_DIR/*"
          org.apache.druid.cli.Main server "$(server_type "$svc")")
  fi
  SERVICE_CMD=("$JAVA" "${args[@]}")
  SERVICE_NOTE="port $(service_port "$svc")"
}

http_get() { curl -sS --max-time 5 "$@" 2>/dev/null; }

service_healthy() {
  local svc="$1" port
  port="$(service_port "$svc")"
  if [[ "$svc" == derby ]]; then port_open "$port"; return; fi
  if [[ "$svc" == zk ]]; then
    [[ "$(echo ruok | (exec 3<>"/dev/tcp/127.0.0.1/$port" && cat >&3 && cat <&3) 2>/dev/null)" == imok ]] && return 0
    port_open "$port"
    return
  fi
  [[ "$(http_get "http://127.0.0.1:$port/status/health")" == true ]]
}

check_ports_free() {
  local svc port busy=()
  for svc in "${SERVICES[@]}"; do
    service_pid "$svc" >/dev/null && continue
    port="$(service_port "$svc")"
    port_open "$port" && busy+=("$svc:$port")
  done
  if [[ "$DRUID_CLUSTER" == small ]] && port_open 1527 && ! service_pid coordinator-overlord >/dev/null; then
    busy+=("derby:1527")
  fi
  ((${#busy[@]} == 0)) || die "ports already in use by another process: ${busy[*]} (another Druid? run 'druid.sh stop' or free them)"
}

# ---------------------------------------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------------------------------------
cmd_start() {
  local t0=$SECONDS
  cmd_fetch
  require_java
  mkdir -p "$VAR_DIR"/{run,log,tmp,zk,metadata,segments,indexing-logs,segment-cache,segment-cache-info,task,processing,hadoop-tmp}
  check_ports_free
  local deadline=$((SECONDS + 240))
  local -a rest=(historical indexer broker router)
  start_service zk
  wait_healthy zk "$deadline"
  if [[ "$DRUID_CLUSTER" == ha ]]; then
    start_service derby
    wait_healthy derby "$deadline"
    rest=(coordinator-overlord2 historical historical2 indexer broker router)
  fi
  # the first Overlord alone creates the metadata tables (two at once race on CREATE TABLE)
  start_service coordinator-overlord
  wait_healthy coordinator-overlord "$deadline"
  local svc
  for svc in "${rest[@]}"; do
    start_service "$svc"
  done
  for svc in "${rest[@]}"; do
    wait_healthy "$svc" "$deadline"
  done
  log "all services healthy after $((SECONDS - t0))s"
  local timeout="${DRUID_START_TIMEOUT:-300}"
  if ((timeout > 0)); then
    cmd_wait "$timeout"
    [[ "$DRUID_CLUSTER" == ha ]] && set_replica_rule
  fi
  log "start took $((SECONDS - t0))s; Router: $ROUTER_URL"
}

# readiness: every service healthy, overlord leader, >=1 worker, Broker answers SQL
cmd_wait() {
  local timeout="${1:-300}" t0=$SECONDS what=""
  local deadline=$((SECONDS + timeout))
  while true; do
    what=""
    local svc
    for svc in "${SERVICES[@]}"; do
      if ! service_healthy "$svc"; then what="$svc /status/health"; break; fi
    done
    if [[ -z "$what" ]]; then
      if ! http_get "$ROUTER_URL/druid/indexer/v1/isLeader" | grep -q '"leader":true'; then
        what="overlord leader (GET $ROUTER_URL/druid/indexer/v1/isLeader)"
      elif ! http_get "$ROUTER_URL/druid/coordinator/v1/isLeader" | grep -q '"leader":true'; then
        what="coordinator leader (GET $ROUTER_URL/druid/coordinator/v1/isLeader)"
      elif ! http_get "$ROUTER_URL/druid/indexer/v1/workers" | grep -q '"worker"'; then
        what="a registered worker (GET $ROUTER_URL/druid/indexer/v1/workers)"
      elif ! http_get -H 'Content-Type: application/json' -d '{"query":"SELECT 1"}' \
          "$ROUTER_URL/druid/v2/sql" | grep -qF '"EXPR$0":1'; then
        what="Broker SQL (SELECT 1 via $ROUTER_URL/druid/v2/sql)"
      fi
    fi
    if [[ -z "$what" ]]; then
      log "cluster ready ($((SECONDS - t0))s waited): $ROUTER_URL"
      return 0
    fi
    if ((SECONDS >= deadline)); then
      log "not ready after ${timeout}s: waiting for $what"
      cmd_status >&2 || true
      return 1
    fi
    sleep 1
  done
}

# ha: every datasource (the _default rule) keeps two replicas in the _default_tier, forever
set_replica_rule() {
  local body='[{"type":"loadForever","tieredReplicants":{"_default_tier":2}}]'
  local code
  code="$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
    -X POST -d "$body" "$ROUTER_URL/druid/coordinator/v1/rules/_default")" || code=000
  [[ "$code" == 200 ]] || die "POST $ROUTER_URL/druid/coordinator/v1/rules/_default answered $code"
  log "default load rule: 2 replicas in _default_tier"
}

cmd_stop() {
  # dependents first (they deregister from ZooKeeper and the Coordinator), then the Coordinator
  # (stops Derby), then ZooKeeper; stopping ZooKeeper early makes the others hang on shutdown.
  # stop_services (dev/lib.sh): TERM, SIGKILL after the grace
  local rc=0
  stop_services 30 router broker indexer historical historical2 || rc=1
  stop_services 30 coordinator-overlord coordinator-overlord2 || rc=1
  stop_services 15 derby || rc=1
  stop_services 15 zk || rc=1
  ((rc == 0)) || die "some services could not be stopped (see above)"
  log "stopped"
}

# single services of a running cluster (the failover tests stop and restart one Historical or Overlord)
known_service() {
  local svc
  for svc in "${SERVICES[@]}"; do [[ "$svc" == "$1" ]] && return 0; done
  die "$1 is not a service of the $DRUID_CLUSTER cluster; valid: ${SERVICES[*]}"
}

cmd_start_some() {
  local svc deadline=$((SECONDS + 240))
  require_java
  for svc in "$@"; do known_service "$svc"; done
  for svc in "$@"; do start_service "$svc"; done
  for svc in "$@"; do wait_healthy "$svc" "$deadline"; done
}

cmd_stop_some() {
  local svc
  for svc in "$@"; do known_service "$svc"; done
  stop_services 30 "$@"
}

cmd_status() {
  local svc pid port state rc=0
  for svc in "${SERVICES[@]}"; do
    port="$(service_port "$svc")"
    if pid="$(service_pid "$svc")"; then
      if service_healthy "$svc"; then state="healthy"; else state="starting/unhealthy"; rc=1; fi
      local rss
      rss="$(ps -o rss= -p "$pid" 2>/dev/null | tr -d ' ')"
      printf '%-22s pid %-8s port %-5s %-18s rss %s MB\n' "$svc" "$pid" "$port" "$state" "$((${rss:-0} / 1024))"
    else
      printf '%-22s %-12s port %-5s %s\n' "$svc" "-" "$port" "stopped"
      rc=1
    fi
  done
  return $rc
}

cmd_logs() {
  mkdir -p "$VAR_DIR/log"
  if [[ $# -ge 1 ]]; then
    tail -n 200 -F "$(log_file "$1")"
  else
    tail -n 20 -F "$VAR_DIR"/log/*.log
  fi
}

usage() {
  sed -n '2,35p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

main() {
  local cmd="${1:-}"
  shift || true
  case "$cmd" in
    fetch) cmd_fetch ;;
    start) if (($#)); then cmd_start_some "$@"; else cmd_start; fi ;;
    wait) cmd_wait "$@" ;;
    stop) if (($#)); then cmd_stop_some "$@"; else cmd_stop; fi ;;
    clean) cmd_stop; dev_remove_state "$VAR_DIR" ;;
    restart) cmd_stop; cmd_start ;;
    status) cmd_status ;;
    logs) cmd_logs "$@" ;;
    url) echo "$ROUTER_URL" ;;
    env) echo "DRUID_URL=$ROUTER_URL" ;;
    -h | --help | help) usage ;;
    *) usage >&2; exit 2 ;;
  esac
}

main "$@"

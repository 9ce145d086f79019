# Shared by the three dev harnesses (dev/druid/druid.sh, dev/airflow/airflow.sh, dev/nginx/nginx.sh), which all
# answer the same verbs: start, stop, status, logs, url, env, clean. Sourced, not run; the harness sets DEV_NAME (its
# log prefix) before sourcing, and VAR_DIR (its state) before calling pid_file/log_file.

log() { printf '[%s %s] %s\n' "${DEV_NAME:-dev}" "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "${DEV_NAME:-dev}" "$*" >&2; exit 1; }
# whether something accepts TCP connections on 127.0.0.1:$1
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pid_file() { echo "$VAR_DIR/run/$1.pid"; }
log_file() { echo "$VAR_DIR/log/$1.log"; }

# The pid in file $1 when that process still runs (its cmdline is readable); nothing and status 1 otherwise. A
# harness then checks the cmdline is its service's, so a recycled pid is never taken for it.
live_pid() {
  local pid
  pid="$(cat "$1" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ && -r "/proc/$pid/cmdline" ]] || return 1
  echo "$pid"
}

# The command line of process $1, its arguments joined by spaces.
pid_cmdline() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null; }

# Stop process $1 (named $2 in the log): send signal $3 (default TERM), wait up to $4 seconds (default 10) for it
# to exit, then SIGKILL it.
stop_pid() {
  local pid="$1" name="$2" sig="${3:-TERM}" secs="${4:-10}" i
  kill "-$sig" "$pid" 2>/dev/null || true
  for ((i = 0; i < secs * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || { log "stopped $name (pid $pid)"; return 0; }
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  log "stopped $name (pid $pid, SIGKILL after ${secs}s)"
}

# ---------------------------------------------------------------------------------------------------------
# Services: one process each, started by start_service, its pid in pid_file, its output in log_file. The harness
# defines three functions for them:
#   service_is SVC PID      whether process PID is its service SVC (its command line, its working directory...)
#   prepare_service SVC     what precedes a start of SVC (checks, config files); sets the array SERVICE_CMD to the
#                           command that runs it, and may set SERVICE_NOTE (words for the "started" line)
#   service_healthy SVC     whether SVC answers (wait_healthy polls it)
# ---------------------------------------------------------------------------------------------------------

# The pid of service $1 when its recorded process still runs and service_is knows it for $1 (so a recycled pid is
# never taken for it); nothing and status 1 otherwise.
service_pid() {
  local pid
  pid="$(live_pid "$(pid_file "$1")")" || return 1
  service_is "$1" "$pid" || return 1
  echo "$pid"
}

# Start service $1 unless it runs: SERVICE_CMD in a session of its own (a Ctrl-C of the caller does not reach it;
# its pid is its process group's), from $VAR_DIR, stdin from /dev/null, its output appended to its log after a
# "=== <time> starting $1: <command>" line. Its pid goes to its pid file; it is no job of this shell.
start_service() {
  local svc="$1" pid lf
  if pid="$(service_pid "$svc")"; then
    log "$svc already running (pid $pid)"
    return 0
  fi
  SERVICE_CMD=()
  SERVICE_NOTE=""
  prepare_service "$svc"
  lf="$(log_file "$svc")"
  echo "=== $(date -u +%FT%TZ) starting $svc: ${SERVICE_CMD[*]}" >>"$lf"
  (cd "$VAR_DIR" && exec setsid "${SERVICE_CMD[@]}" >>"$lf" 2>&1 </dev/null) &
  echo $! >"$(pid_file "$svc")"
  disown
  log "started $svc (pid $!, ${SERVICE_NOTE:+$SERVICE_NOTE, }log $lf)"
}

# Die, with the tail of its log, when the process recorded for service $1 is gone: it exited while starting. Only a
# pid that is gone counts: until start_service's subshell has exec'ed the service, its command line is the harness's.
check_started() {
  local pid
  pid="$(cat "$(pid_file "$1")" 2>/dev/null || true)"
  if ! [[ "$pid" =~ ^[1-9][0-9]*$ ]] || ! kill -0 "$pid" 2>/dev/null; then
    log "$1 exited during startup; last log lines:"
    tail -n 40 "$(log_file "$1")" >&2 || true
    die "$1 failed to start (log: $(log_file "$1"))"
  fi
}

# Run "$@" every $2 seconds until it succeeds (status 0), or until $SECONDS reaches $1 (status 1).
poll_until() {
  local deadline="$1" pause="$2"
  shift 2
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep "$pause"
  done
}

# Wait until service $1 is healthy; die when its process exits meanwhile (check_started), or when $SECONDS reaches
# $2 (with the tail of its log).
wait_healthy() {
  poll_until "$2" 0.5 healthy_or_started "$1" && return 0
  tail -n 40 "$(log_file "$1")" >&2 || true
  die "$1 not healthy after timeout (log: $(log_file "$1"))"
}
healthy_or_started() { service_healthy "$1" && return 0; check_started "$1"; return 1; }

# Stop services "$@" (those service_pid finds running): TERM to each, or to its whole process group when
# STOP_GROUPS=1 (a service's children go with it); SIGKILL what is still alive after $1 seconds, and wait up to 10 s
# more. Status 1 when something outlived that; else their pid files go.
stop_services() {
  local timeout="$1" svc pid i g="" what=pid
  shift
  ((${STOP_GROUPS:-0})) && { g=-; what="process group"; }
  local -a pids=() names=()
  for svc in "$@"; do
    if pid="$(service_pid "$svc")"; then
      log "stopping $svc ($what $pid)"
      kill -TERM -- "$g$pid" 2>/dev/null || true
      pids+=("$pid"); names+=("$svc")
    fi
  done
  local deadline=$((SECONDS + timeout)) killed=0
  while ((${#pids[@]})); do
    local -a alive=()
    for i in "${!pids[@]}"; do
      # a group lives while any member does; a lone zombie has an empty cmdline, so service_pid no longer matches it
      if [[ -n "$g" ]]; then pgrep -g "${pids[$i]}" >/dev/null && alive+=("$i"); else service_pid "${names[$i]}" >/dev/null && alive+=("$i"); fi
    done
    ((${#alive[@]})) || break
    if ((SECONDS >= deadline)); then
      ((killed)) && { log "could not kill: $(for i in "${alive[@]}"; do printf '%s ' "${names[$i]}"; done)"; return 1; }
      for i in "${alive[@]}"; do
        log "${names[$i]} ($what ${pids[$i]}) still running after ${timeout}s: SIGKILL"
        kill -KILL -- "$g${pids[$i]}" 2>/dev/null || true
      done
      killed=1
      deadline=$((SECONDS + 10))
    fi
    sleep 0.5
  done
  for svc in "$@"; do rm -f "$(pid_file "$svc")"; done
}

# Where a service that drops privileges keeps its state.
#
# A checkout may sit in a folder only its owner can traverse (as root under /root, or any `mktemp -d`): then a
# server that runs as another user (PostgreSQL as `postgres`, nginx's workers as `nobody`) cannot reach a state
# directory inside it. Such state then lives outside the checkout, under $DEV_OUTSIDE_ROOT, in a directory named
# after the checkout's own path (so two checkouts never share it), and the harness says where.

DEV_OUTSIDE_ROOT="${DRUID_INGEST_DEV_STATE_ROOT:-/var/lib/druid-ingest-dev}"

# The first directory on the way to $2 (itself included) that user $1 cannot traverse; nothing when it can
# reach $2. Only meaningful as root (runuser); $2's missing tail is ignored.
dev_blocked_for() {
  local user="$1" path="$2" prefix="" part
  local -a parts
  IFS=/ read -r -a parts <<<"${path#/}"
  for part in "${parts[@]}"; do
    prefix="$prefix/$part"
    [[ -d "$prefix" ]] || return 0
    runuser -u "$user" -- test -x "$prefix" 2>/dev/null || { echo "$prefix"; return 0; }
  done
}

# Where a service run as user $1 keeps the state it would keep in $2 (a path inside this checkout): $2 itself
# when we are not root (the service then runs as us) or when $1 can reach it; else $DEV_OUTSIDE_ROOT/$3-<hash
# of $2>. Callers say why with dev_state_note.
dev_state_dir() {
  local user="$1" inside="$2" name="$3" blocked
  if [[ $EUID -ne 0 ]]; then echo "$inside"; return 0; fi
  blocked="$(dev_blocked_for "$user" "$inside")"
  if [[ -z "$blocked" ]]; then echo "$inside"; return 0; fi
  echo "$DEV_OUTSIDE_ROOT/$name-$(printf '%s' "$inside" | sha256sum | cut -c1-12)"
}

# One line saying why the state of $1 (run as user $2) is not at $3 but at $4; nothing when they are equal.
dev_state_note() {
  local what="$1" user="$2" inside="$3" actual="$4"
  [[ "$inside" == "$actual" ]] && return 0
  echo "$what runs as user $user, who cannot traverse $(dev_blocked_for "$user" "$inside") (a folder only its owner can enter): its state lives in $actual instead of $inside"
}

# Make $1 (outside the checkout) with every parent up to $DEV_OUTSIDE_ROOT traversable, owned by user $2.
dev_make_outside() {
  local dir="$1" user="$2"
  mkdir -p "$dir"
  chmod 755 "$DEV_OUTSIDE_ROOT"
  chown "$user" "$dir"
}

# `clean`: remove state directories the harness made (after it stopped its services): its var dir and, when it
# had to, the directory outside the checkout. Refuses paths no harness would use (/, $HOME, a checkout's root);
# an emptied $DEV_OUTSIDE_ROOT goes too, so a deleted checkout leaves nothing behind.
dev_remove_state() {
  local dir
  for dir in "$@"; do
    [[ -n "$dir" && "$dir" == /* ]] || die "clean: refusing to remove '$dir' (not an absolute path)"
    dir="${dir%/}"
    if [[ -z "$dir" || "$dir" == "${HOME%/}" || -d "$dir/.git" || -f "$dir/.git" ]]; then
      die "clean: refusing to remove '${dir:-/}' (not a harness state directory)"
    fi
    [[ -e "$dir" ]] || continue
    rm -rf -- "$dir"
    log "removed $dir"
  done
  rmdir "$DEV_OUTSIDE_ROOT" 2>/dev/null || true
}

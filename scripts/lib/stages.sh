# Stage timing for scripts/test.sh (sourced): `stage NAME CMD...` runs CMD, records its wall time and exit
# status; `stages_report RC` prints the table (also when a stage failed and the script exits early).

_stage_rows=()
_stages_t0=$SECONDS

stage() {
  local name="$1" t=$SECONDS rc=0
  shift
  echo "test: === $name"
  "$@" || rc=$?
  _stage_rows+=("$name|$((SECONDS - t))|$rc")
  return "$rc"
}

stages_report() {
  local rc="${1:-0}" row name secs src total=$((SECONDS - _stages_t0))
  ((${#_stage_rows[@]})) || return 0
  printf '\ntest: stages (wall time, this machine: %s cores)\n' "$(nproc 2>/dev/null || echo '?')"
  printf '  %-46s %8s  %s\n' stage seconds result
  for row in "${_stage_rows[@]}"; do
    IFS='|' read -r name secs src <<<"$row"
    printf '  %-46.46s %8s  %s\n' "$name" "$secs" "$([ "$src" = 0 ] && echo ok || echo "FAILED (exit $src)")"
  done
  printf '  %-46s %8s  %s\n' "total (incl. stops)" "$total" "$([ "$rc" = 0 ] && echo ok || echo "FAILED (exit $rc)")"
}

# Background steps (started early, waited for where their result is needed): `bg_start NAME LOG CMD...` runs CMD
# in the background, its output in LOG; `bg_wait NAME` waits for it, prints LOG whole and returns CMD's exit
# status (saying so when it failed); `bg_wait_all` waits for every one still running (the exit trap: a step is
# finished before what it started is stopped; none is killed half-way).
declare -A _bg_pid=() _bg_log=()

bg_start() {
  local name="$1" log="$2"
  shift 2
  mkdir -p "$(dirname "$log")"
  "$@" >"$log" 2>&1 &
  _bg_pid[$name]=$!
  _bg_log[$name]="$log"
  echo "test: $name: started in the background (log $log)"
}

bg_running() { [ -n "${_bg_pid[$1]:-}" ]; }

bg_wait() {
  local name="$1" rc=0
  bg_running "$name" || return 0
  wait "${_bg_pid[$name]}" || rc=$?
  unset "_bg_pid[$name]"
  echo "test: --- $name (log ${_bg_log[$name]})"
  cat "${_bg_log[$name]}"
  [ "$rc" = 0 ] || echo "test: $name FAILED (exit $rc; its log is above)" >&2
  return "$rc"
}

bg_wait_all() {
  local name
  for name in "${!_bg_pid[@]}"; do bg_wait "$name" || true; done
}

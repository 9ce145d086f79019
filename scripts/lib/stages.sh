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

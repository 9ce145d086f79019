#!/usr/bin/env bash
# The README's main job, run the way users run it: set up (.venv, a real Druid, a real Airflow deployment with
# Postgres, scheduler, triggerer), backfill 3 days of example_druid_daily with `airflow backfill create`, show
# progress, then per day: run state, Druid task and duration, Druid SQL counts vs the generator's.
#
#   bash scripts/demo.sh [FIRST_DAY] [DAYS]     deployment backfill (default 2026-11-01, 3 days)
#   bash scripts/demo.sh --fast [DAY]           fast path: one day through `airflow dags test` (SQLite, no services)
#
# Everything keeps running afterwards: the UI address, the login and how to stop are printed at the end.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
t0=$SECONDS

if [ "${1:-}" = "--fast" ]; then
  exec bash scripts/demo_fast.sh "${2:-2026-11-01}"
fi
FIRST_DAY="${1:-2026-11-01}"
DAYS="${2:-3}"

bash scripts/bootstrap.sh
druid_url="$(bash dev/druid/druid.sh url)"
if [ "$(curl -s --max-time 5 "$druid_url/status/health" || true)" = true ]; then
  echo "demo: a Druid already answers at $druid_url: using it (not started here, so not ours to stop)"
else
  bash dev/druid/druid.sh start
fi
bash dev/druid/druid.sh wait 600
DRUID_URL="$druid_url" bash dev/airflow/airflow.sh start
eval "$(bash dev/airflow/airflow.sh env)"
echo "demo: set-up done in $((SECONDS - t0))s"
rc=0
.venv/bin/python scripts/demo_backfill.py --from-date "$FIRST_DAY" --days "$DAYS" --druid-url "$druid_url" || rc=$?
cat <<EOF

demo: finished in $((SECONDS - t0))s (exit $rc). Everything is still running:
  $(bash dev/airflow/airflow.sh url)
  Druid SQL:  $druid_url/druid/v2/sql        airflow CLI:  eval "\$(bash dev/airflow/airflow.sh env)"; .venv/bin/airflow dags list
  stop:       bash dev/airflow/airflow.sh stop   and   bash dev/druid/druid.sh stop
EOF
exit $rc

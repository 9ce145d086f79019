#!/usr/bin/env bash
# The main job's fast path (`bash scripts/demo.sh --fast [DAY]`): no deployment, one day of the example daily DAG
# through `airflow dags test` on SQLite (submit -> wait -> handoff gate -> SQL check) against a real Druid on
# 127.0.0.1, then what Druid now holds. The trigger runs inline, not in a triggerer. Stop Druid afterwards with:
#   bash dev/druid/druid.sh stop
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
DAY="${1:-2026-11-01}"
bash scripts/bootstrap.sh
bash dev/druid/druid.sh start
bash dev/druid/druid.sh wait 600
url="$(bash dev/druid/druid.sh url)"
events="$root/var/events"
.venv/bin/python dags/data/generate_events.py --out "$events" >/dev/null
# its own SQLite home, whatever deployment environment (dev/airflow/airflow.sh env) the caller's shell holds
for v in $(compgen -e | grep '^AIRFLOW' || true); do unset "$v"; done
export AIRFLOW_HOME="$root/.airflow-home"
export AIRFLOW__CORE__DAGS_FOLDER="$root/dags"
export AIRFLOW__CORE__LOAD_EXAMPLES=False
export AIRFLOW__LOGGING__LOGGING_LEVEL=INFO
export AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT="{\"conn_type\": \"druid_cluster\", \"host\": \"$url\"}"
export AIRFLOW_VAR_DRUID_EVENTS_ROOT="$events"
.venv/bin/airflow db migrate >/dev/null
.venv/bin/airflow pools set druid_ingest 4 "Druid task slots (include deferred)" --include-deferred >/dev/null
# A manual run at logical date D+1 covers the data interval [D, D+1) under CronDataIntervalTimetable("@daily").
next_day="$(.venv/bin/python -c "import datetime,sys; print(datetime.date.fromisoformat(sys.argv[1]) + datetime.timedelta(days=1))" "$DAY")"
start=$(date +%s)
.venv/bin/airflow dags test example_druid_daily "$next_day" > "$root/var/demo-dag-test.log" 2>&1 || {
  tail -50 "$root/var/demo-dag-test.log"; echo "demo: the DAG run failed (full log: var/demo-dag-test.log)" >&2; exit 1; }
echo "demo: DAG run finished in $(( $(date +%s) - start ))s (log: var/demo-dag-test.log); what the tasks said:"
sed -nE 's/^[^ ]+ \[[a-z ]+\] (.*) \[([a-z_.]*\.)?airflow_provider_druid_ingest\.[a-z_.]+\.([A-Za-z]+)\].*$/  \3: \1/p' \
  "$root/var/demo-dag-test.log" | cut -c1-220 || true
.venv/bin/python scripts/demo_report.py --url "$url" --day "$DAY" --events "$events"

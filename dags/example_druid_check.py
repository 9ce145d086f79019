"""Daily ingestion of ``events_web`` with a data-quality check after the handoff gate (common.sql on Druid).

The ingest task is the one of ``example_druid_daily`` (same spec, same input location): it succeeds only once the
day's segments are served. Then ``SQLValueCheckOperator`` (apache-airflow-providers-common-sql) asks Druid for the
day's input rows (``SUM("rows")``, the spec's ``count`` metric) on the ``druid_cluster`` connection, whose hook is
``DruidSqlHook``, and compares them with the rows the source files hold (``count_source_rows``, pushed by XCom).
Different numbers fail the check (no retry) with both in the message::

    Test failed.
    Pass value:2000.0
    ...
    Results:
    (1500,)

The count runs beside the ingestion; the check waits for both. Set up as ``example_druid_daily`` (the connection,
the ``druid_ingest`` pool, the ``druid_events_root`` variable). ``build_check_dag`` builds the same DAG for
another datasource or root (the real-Druid test runs it on a datasource of its own).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pendulum
from airflow.providers.common.sql.operators.sql import SQLValueCheckOperator
from airflow.sdk import DAG, CronDataIntervalTimetable, task
from druid_ingest.planning import load_template

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator

SPEC = load_template(Path(__file__).parent / "specs" / "events_web.json")
ROOT = "{{ var.value.get('druid_events_root', '/tmp/events') }}"
#: the day's input rows as Druid counts them: the ``count`` metric ("rows") summed over the data interval
DRUID_ROWS_SQL = (
    'SELECT COALESCE(SUM("rows"), 0) AS druid_rows FROM "{datasource}" '
    "WHERE __time >= TIMESTAMP '{{{{ data_interval_start.in_tz('UTC').strftime('%Y-%m-%d %H:%M:%S') }}}}' "
    "AND __time < TIMESTAMP '{{{{ data_interval_end.in_tz('UTC').strftime('%Y-%m-%d %H:%M:%S') }}}}'"
)


@task
def count_source_rows(root: str, data_interval_start: Any = None) -> int:
    """The rows the day's input files hold (JSON lines: one event per non-empty line), as Druid reads them."""
    folder = Path(root) / data_interval_start.in_tz("UTC").strftime("%Y-%m-%d")
    files = sorted(folder.glob("*.json"))
    if not files:
        raise FileNotFoundError(f"no *.json input under {folder}: nothing to compare Druid's count with")
    return sum(1 for f in files for line in f.read_text().splitlines() if line.strip())


def build_check_dag(dag_id: str = "example_druid_check", datasource: str = "events_web", root: str = ROOT,
                    conn_id: str = "druid_cluster_default", **dag_kwargs: Any) -> DAG:
    """The ingest, the source count and the check, for ``datasource`` with input under ``root``/<YYYY-MM-DD>."""
    with DAG(
        dag_id=dag_id,
        schedule=dag_kwargs.pop("schedule", CronDataIntervalTimetable("@daily", timezone="UTC")),
        start_date=dag_kwargs.pop("start_date", pendulum.datetime(2026, 11, 1, tz="UTC")),
        catchup=False,
        max_active_runs=2,
        params={"idempotency_key": ""},
        tags=["druid", "example", "data-quality"],
        doc_md=__doc__,
        **dag_kwargs,
    ) as dag:
        ingest = DruidIngestOperator(
            task_id="ingest_events_web",
            spec=SPEC,
            datasource=datasource,
            druid_conn_id=conn_id,
            input_locations=[f"{root}/{{{{ data_interval_start | ds }}}}"],
            idempotency_key="{{ params.idempotency_key }}",
            pool="druid_ingest",
            retries=2,
            retry_delay=pendulum.duration(minutes=2),
        )
        source_rows = count_source_rows(root)
        check = SQLValueCheckOperator(
            task_id="check_row_count",
            conn_id=conn_id,
            sql=DRUID_ROWS_SQL.format(datasource=datasource),
            pass_value="{{ ti.xcom_pull(task_ids='count_source_rows') }}",
            retry_on_failure=False,  # a count that differs is not transient: fail without burning retries
        )
        [ingest, source_rows] >> check
    return dag


dag = build_check_dag()

"""OpenLineage facets of the Druid classes (extra [openlineage]) after real ingestions against FakeDruid, read
the way the OpenLineage provider reads them; and the provider without the extra (OpenLineage modules hidden)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from urllib.parse import urlsplit

import pytest
from airflow.sdk.exceptions import TaskDeferred

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator
from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor
from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor

from .conftest import FakeTI
from .helpers import FAST, run_trigger, spec

try:  # the suite needs the extra: a missing one fails here, loudly, instead of skipping
    from airflow.providers.openlineage.extractors.base import DefaultExtractor, OperatorLineage
    from openlineage.client.event_v2 import Dataset
    from openlineage.client.facet_v2 import external_query_run
except ImportError as exc:  # pragma: no cover - bootstrap installs the extra
    raise ImportError(
        f"tests/airflow/test_openlineage.py needs the [openlineage] extra ({exc}): run scripts/bootstrap.sh"
    ) from exc

S3_SPEC_PREFIX = "s3://events-bucket/web/2026-07-16/"


def s3_spec() -> dict:
    body = spec()
    body["spec"]["ioConfig"]["inputSource"] = {"type": "s3", "prefixes": ["s3://placeholder/"]}
    return body


def namespace(fake) -> str:
    parts = urlsplit(fake.url)
    return f"druid://{parts.hostname}:{parts.port}"


def assert_lineage(lineage, fake, druid_task_id: str, inputs: list[Dataset]) -> None:
    assert isinstance(lineage, OperatorLineage), lineage
    assert lineage.outputs == [Dataset(namespace=namespace(fake), name="wiki")]
    assert lineage.inputs == inputs
    query = lineage.run_facets["externalQuery"]
    assert isinstance(query, external_query_run.ExternalQueryRunFacet)
    assert (query.externalQueryId, query.source) == (druid_task_id, namespace(fake))
    assert lineage.job_facets == {}  # native batch has no statement (the sql facet is for SQL ingestion)


def test_one_shot_operator_reports_datasource_inputs_and_druid_task(druid_conn, context):
    op = DruidIngestOperator(task_id="ingest", spec=s3_spec(), input_locations=[S3_SPEC_PREFIX], deferrable=False,
                             **FAST)
    druid_task_id = op.execute(context)
    lineage = DefaultExtractor(op).extract_on_complete(None)  # what the listener runs on success
    assert_lineage(lineage, druid_conn, druid_task_id, [Dataset(namespace="s3://events-bucket", name="web/2026-07-16")])


def test_one_shot_operator_resumed_after_deferral_still_knows_its_inputs(druid_conn, context):
    kwargs = {"task_id": "ingest", "spec": s3_spec(), "input_locations": [S3_SPEC_PREFIX], "deferrable": True, **FAST}
    with pytest.raises(TaskDeferred) as deferred:
        DruidIngestOperator(**kwargs).execute(context)
    resumed = DruidIngestOperator(**kwargs)  # a fresh instance, as in the worker that resumes the task
    druid_task_id = resumed.execute_complete(context, run_trigger(deferred.value.trigger))
    assert_lineage(resumed.get_openlineage_facets_on_complete(None), druid_conn, druid_task_id,
                   [Dataset(namespace="s3://events-bucket", name="web/2026-07-16")])


def test_inline_input_names_no_input_dataset_and_failure_still_names_the_task(druid_conn, context):
    from druid_ingest.testing import TaskPlan

    druid_conn.plan_next_task(TaskPlan(outcome="FAILED", error_msg="bad row"))
    op = DruidIngestOperator(task_id="ingest", spec=spec(), deferrable=False, **FAST)
    with pytest.raises(Exception, match="bad row"):
        op.execute(context)
    lineage = DefaultExtractor(op).extract_on_failure(None)
    assert_lineage(lineage, druid_conn, context["ti"].xcom["druid_task_id"], [])


def test_a_spec_that_never_validated_reports_nothing(druid_conn, context):
    op = DruidIngestOperator(task_id="ingest", spec={"type": "index_parallel", "spec": {}}, deferrable=False)
    with pytest.raises(Exception, match="dataSchema"):
        op.execute(context)
    assert op.get_openlineage_facets_on_failure(None) is None


def test_submit_operator_reports_the_same_lineage(druid_conn, context):
    op = DruidSubmitOperator(task_id="submit", spec=s3_spec(), input_locations=["s3://b/one.json", "s3://b/two.json"])
    druid_task_id = op.execute(context)
    assert_lineage(DefaultExtractor(op).extract_on_complete(None), druid_conn, druid_task_id,
                   [Dataset(namespace="s3://b", name="one.json"), Dataset(namespace="s3://b", name="two.json")])


def test_handoff_sensor_reports_the_datasource_it_saw_go_queryable(druid_conn, context):
    druid_task_id = DruidSubmitOperator(task_id="submit", spec=spec()).execute({**context, "ti": FakeTI()})
    DruidTaskSensor(task_id="w", druid_task_id=druid_task_id, deferrable=False, poke_interval=0.1).execute(context)
    kwargs = {"task_id": "h", "druid_task_id": druid_task_id, "timeout": 10, **FAST}
    gate = DruidHandoffSensor(**kwargs)
    try:
        gate.execute(context)
        resumed = gate  # already queryable at the first look
    except TaskDeferred as deferred:
        resumed = DruidHandoffSensor(**kwargs)  # no datasource given: one status read names it
        resumed.execute_complete(context, run_trigger(deferred.trigger))
    assert_lineage(DefaultExtractor(resumed).extract_on_complete(None), druid_conn, druid_task_id, [])


NO_OPENLINEAGE = textwrap.dedent(
    """
    import importlib.abc, json, os, sys
    import importlib_metadata  # Airflow's entry-point reader: import it first so its finder is wrapped too

    MODULES = ("openlineage", "airflow.providers.openlineage")
    DISTS = {"apache-airflow-providers-openlineage", "openlineage-python", "openlineage-integration-common",
             "openlineage-sql"}

    class Hidden(importlib.abc.MetaPathFinder):
        # wraps a finder: the OpenLineage modules cannot be imported, their distributions are not installed

        def __init__(self, finder):
            self.finder = finder

        def find_spec(self, name, path=None, target=None):
            if name in MODULES or name.startswith(tuple(m + "." for m in MODULES)):
                raise ModuleNotFoundError(f"No module named {name!r} (hidden by this test)", name=name)
            find = getattr(self.finder, "find_spec", None)
            return find(name, path, target) if find else None

        def find_distributions(self, *args, **kwargs):
            find = getattr(self.finder, "find_distributions", None)
            for dist in find(*args, **kwargs) if find else ():
                if (dist.metadata["Name"] or "").lower().replace("_", "-") not in DISTS:
                    yield dist

    sys.meta_path[:] = [Hidden(finder) for finder in sys.meta_path]
    assert not [d for d in importlib_metadata.distributions() if d.metadata["Name"].lower() in DISTS]
    from druid_ingest.testing import FakeDruid, index_parallel_spec

    with FakeDruid(task_duration=0.2, handoff_delay=0.1) as fake:
        os.environ["AIRFLOW_CONN_DRUID_CLUSTER_DEFAULT"] = json.dumps({"conn_type": "druid_cluster", "host": fake.url})
        import pendulum
        from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
        from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator
        from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor

        class TI:
            xcom = {}
            def xcom_push(self, key, value): self.xcom[key] = value
            def xcom_pull(self, task_ids=None, key="return_value"): return self.xcom.get(key)

        start = pendulum.datetime(2026, 7, 16, tz="UTC")
        context = {"ti": TI(), "data_interval_start": start, "data_interval_end": start.add(days=1)}
        op = DruidIngestOperator(task_id="i", spec=index_parallel_spec("wiki"), deferrable=False,
                                 poll_interval=0.05, max_poll_interval=0.2)
        druid_task_id = op.execute(context)
        assert op.get_openlineage_facets_on_complete(None) is None
        assert DruidSubmitOperator(task_id="s", spec=index_parallel_spec("wiki")).execute(context) == druid_task_id
        gate = DruidHandoffSensor(task_id="h", druid_task_id=druid_task_id, deferrable=False)
        gate.execute(context)
        assert gate.get_openlineage_facets_on_complete(None) is None
        leaked = sorted(m for m in sys.modules if m.startswith(("openlineage", "airflow.providers.openlineage")))
        assert not leaked, leaked
        print("INGESTED", druid_task_id)
    """
)


def test_provider_imports_and_ingests_without_the_openlineage_extra():
    out = subprocess.run([sys.executable, "-c", NO_OPENLINEAGE], capture_output=True, text=True,
                         env=os.environ.copy(), timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "INGESTED ingest_wiki_" in out.stdout, out.stdout[-2000:]


def test_a_sql_statement_becomes_the_sql_job_facet():
    from openlineage.client.facet_v2 import sql_job

    from airflow_provider_druid_ingest.common.openlineage import lineage_for

    statement = "REPLACE INTO wiki OVERWRITE WHERE __time >= TIMESTAMP '2026-07-16' SELECT * FROM ext"
    lineage = lineage_for("http://broker.example:8082", "wiki", druid_task_id="query-abc", sql=statement)
    assert lineage.job_facets == {"sql": sql_job.SQLJobFacet(query=statement, dialect="druid")}
    assert lineage.outputs == [Dataset(namespace="druid://broker.example:8082", name="wiki")]
    assert lineage.run_facets["externalQuery"].externalQueryId == "query-abc"
    assert lineage_for("http://broker.example:8082", None) is None  # no datasource known: nothing to report

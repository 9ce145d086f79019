"""``http_retry=`` (our per-HTTP-call ``RetryPolicy``) on every operator and sensor, apart from Airflow 3.3's own
``retry_policy=`` (``airflow.sdk.RetryPolicy``, which decides task retries); the two policies passed to the wrong
parameter fail at parse time."""

from __future__ import annotations

import pytest
from airflow.sdk import ExceptionRetryPolicy
from airflow.sdk.exceptions import TaskDeferred
from druid_ingest.wire import RetryPolicy

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.operators.msq import DruidMsqIngestOperator
from airflow_provider_druid_ingest.operators.submit import DruidSubmitOperator
from airflow_provider_druid_ingest.sensors.handoff import DruidHandoffSensor
from airflow_provider_druid_ingest.sensors.task import DruidTaskSensor

from .helpers import FAST, spec

SQL = "INSERT INTO wiki SELECT * FROM src PARTITIONED BY DAY"
MAKERS = {
    "DruidSubmitOperator": lambda **kw: DruidSubmitOperator(task_id="t", spec=spec(), **kw),
    "DruidIngestOperator": lambda **kw: DruidIngestOperator(task_id="t", spec=spec(), **kw),
    "DruidMsqIngestOperator": lambda **kw: DruidMsqIngestOperator(task_id="t", sql=SQL, datasource="wiki", **kw),
    "DruidTaskSensor": lambda **kw: DruidTaskSensor(task_id="t", druid_task_id="x", **kw),
    "DruidHandoffSensor": lambda **kw: DruidHandoffSensor(task_id="t", druid_task_id="x", datasource="wiki", **kw),
}
POLICY = RetryPolicy(max_attempts=3, deadline=9.0)


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_http_retry_reaches_the_hook(name):
    op = MAKERS[name](http_retry=POLICY)
    assert op.http_retry is POLICY and op.hook.retry is POLICY


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_the_unreleased_retry_name_is_gone(name):
    """0.1.0 was never released, so ``retry=`` (the old name of ``http_retry=``) has no shim: Airflow refuses it."""
    with pytest.raises(TypeError, match="retry"):
        MAKERS[name](retry=POLICY)


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_each_policy_on_the_wrong_parameter_fails_naming_the_right_one(name):
    airflow_policy = ExceptionRetryPolicy(rules=[])
    with pytest.raises(TypeError, match=r"http_retry=ExceptionRetryPolicy.*retry_policy="):
        MAKERS[name](http_retry=airflow_policy)
    with pytest.raises(TypeError, match=r"retry_policy=RetryPolicy\(max_attempts=3.*http_retry="):
        MAKERS[name](retry_policy=POLICY)
    assert MAKERS[name](retry_policy=airflow_policy).retry_policy is airflow_policy  # Airflow's own, untouched


def test_http_retry_travels_to_the_trigger(druid_conn, context):
    op = DruidIngestOperator(task_id="i", spec=spec(), http_retry=POLICY, **FAST)
    with pytest.raises(TaskDeferred) as deferred:
        op.execute(context)
    assert deferred.value.trigger.retry == POLICY.to_dict()

"""``DruidPlanOperator``: what every operator that turns a run into one Druid :class:`~druid_ingest.planning.Plan`
shares, whatever kind of work the plan is.

The connection and hook, the run's intervals, the idempotency key, one plan per execution (built and checked
before any HTTP: an invalid one fails without retries, naming every problem), the capacity check, and
``ensure_submitted`` (a deterministic task id from the plan, so a retried or re-run Airflow task adopts the
running or succeeded Druid task instead of submitting a duplicate). A subclass says only how its plan is built
(:meth:`DruidPlanOperator.build_plan`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from airflow.sdk import BaseOperator
from airflow.sdk.exceptions import AirflowFailException
from druid_ingest.errors import SpecValidationError

from airflow_provider_druid_ingest.common.run_context import as_list, no_interval_warning, run_intervals
from airflow_provider_druid_ingest.common.settings import http_retry_arg
from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.links import DruidTaskLink

if TYPE_CHECKING:
    from airflow.sdk import Context
    from druid_ingest.clients import DruidClient
    from druid_ingest.ops import AfterFailedPublish, SubmitOutcome
    from druid_ingest.planning import Plan
    from druid_ingest.wire import RetryPolicy

__all__ = ["DruidPlanOperator"]

P = TypeVar("P", bound="Plan")


class DruidPlanOperator(BaseOperator):
    """Base of the plan-driven operators (not meant to be used directly).

    :param datasource: the datasource the work writes (overrides the spec's; checked against an MSQ statement's)
    :param intervals: the intervals it covers; default: the run's data interval in UTC
        (``["2026-11-01T00:00:00Z/2026-11-02T00:00:00Z"]``), or the spec's own when the run has none
    :param idempotency_key: mixed into the deterministic Druid task id. The same plan reuses the same id, so a
        retry or re-run adopts a running/succeeded task instead of re-ingesting. Pass a new key (e.g.
        ``"fix-2026-11-29"``) to force re-ingestion of an interval whose spec did not change.
    :param druid_conn_id: the ``druid_cluster`` connection
    :param http_retry: a core ``RetryPolicy`` for each HTTP call to Druid (not Airflow's ``retry_policy``, which
        decides task retries) (default: the core's)
    :param allow_empty: an empty interval is intended (a holiday): no input probe before a replace, and an
        empty publish passes the gate (see the operators)
    :param after_failed_publish: ``"fail"`` (default): when the previous attempt of an append ended FAILED but may
        have published (Druid can fail a task after its publish committed), fail without submitting again, naming
        the SQL that tells; ``"resubmit"``: submit the next attempt anyway (docs/druid-contract.md §attempts).
    """

    template_fields: Sequence[str] = ("datasource", "intervals", "idempotency_key")
    operator_extra_links = (DruidTaskLink(),)
    ui_color = "#29b6f6"
    #: how the plan's source is named in its warnings in the task log ("<noun> warning: ...")
    plan_noun = "Druid spec"

    def __init__(
        self,
        *,
        datasource: str | None = None,
        intervals: list[str] | str | None = None,
        idempotency_key: str | None = None,
        druid_conn_id: str = DruidHook.default_conn_name,
        http_retry: RetryPolicy | None = None,
        allow_empty: bool = False,
        after_failed_publish: AfterFailedPublish = "fail",
        **kwargs: Any,
    ) -> None:
        from druid_ingest.ops import check_after_failed_publish

        self.http_retry = http_retry_arg(type(self).__name__, http_retry, kwargs)
        super().__init__(**kwargs)
        self.allow_empty = allow_empty
        self.after_failed_publish = check_after_failed_publish(after_failed_publish)  # a typo fails at DAG parse
        self.datasource = datasource
        self.intervals = intervals
        self.idempotency_key = idempotency_key
        self.druid_conn_id = druid_conn_id
        self._lineage_plan: Plan | None = None  # set by execute / execute_complete, read by lineage
        self._lineage_task_id: str | None = None
        self._lineage_url: str | None = None

    @cached_property
    def hook(self) -> DruidHook:
        """One hook per task execution (its connection is read once)."""
        return DruidHook(druid_conn_id=self.druid_conn_id, retry=self.http_retry)

    def build_plan(self, context: Context) -> Plan:
        """The run's plan from the rendered fields: pure, no HTTP; raises ``SpecValidationError`` when wrong."""
        raise NotImplementedError(f"{type(self).__name__} builds no plan")

    def plan(self, context: Context, *, log_warnings: bool = True) -> Plan:
        """The run's plan: no client, no HTTP. An invalid one fails without retries; warnings go to the task log
        (``log_warnings=False``: a resumed task re-plans only to know its lineage)."""
        return self.checked_plan(context, self.build_plan, log_warnings=log_warnings)

    def checked_plan(self, context: Context, build: Callable[[Context], P], *, log_warnings: bool = True) -> P:
        """:meth:`plan` over ``build``, typed as ``build`` returns it (a subclass's narrower ``build_plan``, so its
        execute reads its own kind's fields without asking which class the plan is)."""
        try:
            plan = build(context)
        except SpecValidationError as exc:
            from airflow_provider_druid_ingest.common.results import raise_for

            raise_for(exc)  # fatal: no retry policy is asked
        if not plan.datasource:
            raise AirflowFailException("spec.dataSchema.dataSource: missing; pass datasource= or set it in the spec")
        for warning in plan.warnings if log_warnings else ():
            self.log.warning("%s warning: %s", self.plan_noun, warning)
        if log_warnings and (note := no_interval_warning(context, self.intervals)):
            self.log.warning("%s", note)
        self._lineage_plan = plan
        return plan

    def _check_capacity(self, client: DruidClient, plan: Plan) -> None:
        """Compare the plan's peak slots with the cluster's (``/workers``): warn when it cannot run at full
        parallelism, fail (no retry) when it would deadlock. Needs STATE READ; without it nothing is checked. The
        core's rule (``ops.capacity_verdict``), as ``DruidClient.ingest`` runs it."""
        verdict = client.check_capacity(plan.peak_slots)
        if verdict is None:
            return
        level, message = verdict
        if level == "error":
            raise AirflowFailException(message)
        self.log.log(logging.WARNING if level == "warning" else logging.INFO, "%s", message)

    def ensure(self, client: DruidClient, plan: Plan) -> SubmitOutcome:
        """Adopt a live/succeeded task for this work, or submit the next attempt; log which, with the URL."""
        outcome = self.hook.ensure_submitted(client, plan, allow_empty=self.allow_empty,
                                             after_failed_publish=self.after_failed_publish)
        self._lineage_task_id, self._lineage_url = outcome.task_id, client.config.base_url("broker")
        from druid_ingest.ops import submit_lines

        for level, message in submit_lines(outcome, plan.describe(), client.config.console_task_url(outcome.task_id)):
            self.log.log(logging.WARNING if level == "warning" else logging.INFO, "%s", message)
        return outcome

    def one_interval(self, context: Context, work: str) -> str:
        """The single interval a one-interval kind of work covers (``intervals``, else the run's); a
        ``SpecValidationError`` naming the field otherwise, so it fails before any HTTP."""
        from druid_ingest.errors import SpecProblem, SpecValidationError

        intervals = as_list(self.intervals) or run_intervals(context) or []
        if len(intervals) != 1:
            raise SpecValidationError([SpecProblem("intervals", f"a {work} covers exactly one interval",
                                                   value=intervals, valid="one ISO interval, e.g. the run's")],
                                      subject=f"{work} request")
        return intervals[0]

    # ---- OpenLineage (extra [openlineage]; called by its listener, None without it) ----------------------

    def get_openlineage_facets_on_complete(self, task_instance: Any) -> Any:
        """Output: the Druid datasource; inputs: a native spec's input source; run facet ``externalQuery``: the
        Druid task id. Called after ``execute`` returned, so for the one-shot operators the data is queryable."""
        from airflow_provider_druid_ingest.common.openlineage import lineage_for

        plan = self._lineage_plan
        if plan is None:  # failed before its plan was built: nothing is known
            return None
        url = self._lineage_url or self.hook.get_config().base_url("broker")
        return lineage_for(url, plan.datasource, spec=plan.task_spec, druid_task_id=self._lineage_task_id)

    def get_openlineage_facets_on_failure(self, task_instance: Any) -> Any:
        """The same datasets (what the task meant to read and write) and, once submitted, the Druid task id."""
        return self.get_openlineage_facets_on_complete(task_instance)

"""``DruidSpecOperator``: what every spec-driven operator shares.

The templated spec fields, the per-run intervals from the data interval, one :class:`IngestionPlan` per
execution (rendered and validated once, before any HTTP: an invalid spec fails without retries, naming every
problem), and ``ensure_submitted`` (a deterministic task id from the rendered spec, so a retried or re-run
Airflow task adopts the running or succeeded Druid task instead of submitting a duplicate).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseOperator
from airflow.sdk.exceptions import AirflowFailException
from druid_ingest.planning import Preflight, check_preflight
from druid_ingest.wire import SpecValidationError

from airflow_provider_druid_ingest.common.run_context import as_list, no_interval_warning, run_intervals
from airflow_provider_druid_ingest.common.settings import http_retry_arg
from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.links import DruidTaskLink

if TYPE_CHECKING:
    from airflow.sdk import Context
    from druid_ingest.clients import DruidClient
    from druid_ingest.ops import AfterFailedPublish, SubmitOutcome
    from druid_ingest.planning import IngestionPlan
    from druid_ingest.wire import RetryPolicy

__all__ = ["DruidSpecOperator"]


class DruidSpecOperator(BaseOperator):
    """Base of the spec-driven operators (not meant to be used directly).

    :param spec: the Druid task spec: a dict, JSON text, or a ``.json`` template file (found next to the DAG
        file or on ``template_searchpath``) rendered with the run's context. A bare ingestion spec
        (``{"dataSchema": ..., "ioConfig": ..., "tuningConfig": ...}``) is wrapped as ``index_parallel``.
    :param datasource: overrides ``spec.dataSchema.dataSource``
    :param intervals: overrides ``granularitySpec.intervals``; default: the run's data interval in UTC
        (``["2026-11-01T00:00:00Z/2026-11-02T00:00:00Z"]``), or the spec's own when the run has none
    :param input_locations: replaces the input source's locations (``baseDir``/``uris``/``prefixes``/...)
    :param idempotency_key: mixed into the deterministic Druid task id. The same rendered spec reuses the
        same id, so a retry or re-run adopts a running/succeeded task instead of re-ingesting. Pass a new
        key (e.g. ``"fix-2026-11-29"``) to force re-ingestion of an interval whose spec did not change.
    :param druid_conn_id: the ``druid_cluster`` connection
    :param http_retry: a core ``RetryPolicy`` for each HTTP call to Druid (not Airflow's
        ``retry_policy``, which decides task retries) (default: the core's)
    :param allow_unaligned: accept a replace whose intervals do not start and end on ``segmentGranularity``
        bucket boundaries (a non-UTC timetable with DAY segments): Druid overwrites the whole buckets, so the
        stored hours outside the run's interval are lost. Refused by default (docs/airflow.md "Non-UTC schedules");
        with it the loss is logged as a warning.
    :param allow_empty: an empty interval is intended (a holiday). By default a ``dropExisting`` replace first
        probes its input through Druid's sampler (one POST before the submit) and fails, submitting nothing, when
        it reads no row: Druid would replace the interval's data with tombstones. True: no probe.
    :param after_failed_publish: ``"fail"`` (default): when the previous attempt of an append ended FAILED but may
        have published (Druid can fail a task after its publish committed), fail without submitting again, naming
        the SQL that tells; ``"resubmit"``: submit the next attempt anyway (docs/druid-contract.md §attempts).
    :param preflight: ``"fail"`` (default) refuses a spec pre-flight finds wrong, before any HTTP; ``"warn"``
        (the escape hatch when Druid accepts the spec and the check is wrong) logs every problem as a warning
        and submits the spec as is. A spec without a datasource, with unparseable intervals or non-JSON values
        stays refused (core ``build_plan``).
    """

    template_fields: Sequence[str] = ("spec", "datasource", "intervals", "input_locations", "idempotency_key")
    template_ext: Sequence[str] = (".json",)
    template_fields_renderers = {"spec": "json"}
    operator_extra_links = (DruidTaskLink(),)
    ui_color = "#29b6f6"

    def __init__(
        self,
        *,
        spec: dict[str, Any] | str,
        datasource: str | None = None,
        intervals: list[str] | str | None = None,
        input_locations: list[str] | str | None = None,
        idempotency_key: str | None = None,
        druid_conn_id: str = DruidHook.default_conn_name,
        http_retry: RetryPolicy | None = None,
        allow_unaligned: bool = False,
        allow_empty: bool = False,
        preflight: Preflight = "fail",
        after_failed_publish: AfterFailedPublish = "fail",
        **kwargs: Any,
    ) -> None:
        from druid_ingest.ops import check_after_failed_publish

        self.http_retry = http_retry_arg(type(self).__name__, http_retry, kwargs)
        super().__init__(**kwargs)
        self.allow_unaligned = allow_unaligned
        self.allow_empty = allow_empty
        self.preflight = check_preflight(preflight)  # a typo fails at DAG parse, not at the run
        self.after_failed_publish = check_after_failed_publish(after_failed_publish)
        self.spec = spec
        self.datasource = datasource
        self.intervals = intervals
        self.input_locations = input_locations
        self.idempotency_key = idempotency_key
        self.druid_conn_id = druid_conn_id
        self._lineage_plan: IngestionPlan | None = None  # set by execute / execute_complete, read by lineage
        self._lineage_task_id: str | None = None
        self._lineage_url: str | None = None

    def render_template(
        self, content: Any, context: Context, jinja_env: Any = None, seen_oids: set[int] | None = None
    ) -> Any:
        """Only the top-level ``spec`` string names a ``.json`` template file. Every other string is text: strings
        inside a dict or list spec (Airflow would otherwise load an inputSource ``"filter": "*.json"`` as a
        template) and the other fields (an input location ``s3://b/{{ ds }}.json`` is a location: Airflow would
        fail the render looking for a template file of that name)."""
        if isinstance(content, dict | list) or (isinstance(content, str) and content is not self.spec):
            return self._render_nested(content, context, jinja_env or self.get_template_env())
        return super().render_template(content, context, jinja_env, seen_oids)

    def resolve_template_files(self) -> None:
        """Read ``spec`` from its ``.json`` template file; leave every other field alone.

        Airflow's own version reads *every* templated string (and list item) ending in ``.json``: an input
        location ``s3://b/2026-11-01.json`` would log "Failed to get source" with a traceback at every parse, or
        be replaced by the content of a same-named file on the template search path."""
        if isinstance(self.spec, str) and self.spec.endswith(tuple(self.template_ext)):
            env = self.get_template_env()
            try:
                if env.loader is None:
                    raise LookupError("the DAG's template environment has no loader")
                self.spec = env.loader.get_source(env, self.spec)[0]
            except Exception:
                self.log.exception("Failed to resolve template field 'spec'")
        self.prepare_template()

    def _render_nested(self, value: Any, context: Context, jinja_env: Any) -> Any:
        if isinstance(value, str):
            if "{{" in value or "{%" in value:
                return self._render(jinja_env.from_string(value), context)
            return value
        if isinstance(value, list | tuple):
            return [self._render_nested(item, context, jinja_env) for item in value]
        if isinstance(value, dict):
            return {key: self._render_nested(item, context, jinja_env) for key, item in value.items()}
        return value

    @cached_property
    def hook(self) -> DruidHook:
        """One hook per task execution (its connection is read once)."""
        return DruidHook(druid_conn_id=self.druid_conn_id, retry=self.http_retry)

    def plan(self, context: Context, *, log_warnings: bool = True) -> IngestionPlan:
        """The run's plan: no client, no HTTP. Invalid specs fail without retries; warnings go to the task log."""
        from druid_ingest.planning import build_plan

        try:
            plan = build_plan(
                self.spec,
                datasource=self.datasource or None,
                intervals=as_list(self.intervals) or run_intervals(context),
                input_locations=as_list(self.input_locations),
                idempotency_key=self.idempotency_key or None,
                allow_unaligned=self.allow_unaligned,
                preflight=self.preflight,
            )
        except SpecValidationError as exc:
            from airflow_provider_druid_ingest.common.results import raise_for

            raise_for(exc)  # also a SpecValidationError: fatal, no retry policy is asked
        if not plan.datasource:
            raise AirflowFailException("spec.dataSchema.dataSource: missing; pass datasource= or set it in the spec")
        for warning in plan.warnings if log_warnings else ():
            self.log.warning("Druid spec warning: %s", warning)
        if log_warnings and (note := no_interval_warning(context, self.intervals)):
            self.log.warning("%s", note)
        self._lineage_plan = plan
        return plan

    def _check_capacity(self, client: DruidClient, plan: IngestionPlan) -> None:
        """Compare the plan's peak slots with the cluster's (``/workers``): warn when it cannot run at full
        parallelism, fail (no retry) when it would deadlock. Needs STATE READ; without it nothing is checked."""
        from druid_ingest.ops import capacity_verdict

        verdict = capacity_verdict(plan.peak_slots, client.capacity)
        if verdict is None:
            return
        level, message = verdict
        if level == "error":
            raise AirflowFailException(message)
        self.log.log(logging.WARNING if level == "warning" else logging.INFO, "%s", message)

    def ensure(self, client: DruidClient, plan: IngestionPlan) -> SubmitOutcome:
        """Adopt a live/succeeded task for this work, or submit the next attempt; log which, with the URL."""
        outcome = self.hook.ensure_submitted(client, plan, allow_empty=self.allow_empty,
                                             after_failed_publish=self.after_failed_publish)
        self._lineage_task_id, self._lineage_url = outcome.task_id, client.config.base_url("broker")
        from druid_ingest.ops import submit_lines

        for level, message in submit_lines(outcome, plan.describe(), client.config.console_task_url(outcome.task_id)):
            self.log.log(logging.WARNING if level == "warning" else logging.INFO, "%s", message)
        return outcome

    # ---- OpenLineage (extra [openlineage]; called by its listener, None without it) ----------------------

    def get_openlineage_facets_on_complete(self, task_instance: Any) -> Any:
        """Output: the Druid datasource; inputs: the spec's input source; run facet ``externalQuery``: the
        Druid task id. Called after ``execute`` returned, so for the one-shot operator the data is queryable."""
        from airflow_provider_druid_ingest.common.openlineage import lineage_for

        plan = self._lineage_plan
        if plan is None:  # failed before its spec was planned: nothing is known
            return None
        url = self._lineage_url or self.hook.get_config().base_url("broker")
        return lineage_for(url, plan.datasource, spec=plan.spec, druid_task_id=self._lineage_task_id)

    def get_openlineage_facets_on_failure(self, task_instance: Any) -> Any:
        """The same datasets (what the task meant to read and write) and, once submitted, the Druid task id."""
        return self.get_openlineage_facets_on_complete(task_instance)

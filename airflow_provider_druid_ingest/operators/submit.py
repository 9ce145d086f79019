"""``DruidSubmitOperator``: render, validate and idempotently submit a Druid native batch ingestion task.

Also home of what every spec-driven operator shares (:class:`DruidSpecOperator`): the templated spec
fields, the per-run intervals from the data interval, pre-flight validation before any HTTP, and
``ensure_submitted`` (a deterministic task id from the rendered spec, so a retried or re-run Airflow task
adopts the running/succeeded Druid task instead of submitting a duplicate).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseOperator, conf
from airflow.sdk.exceptions import AirflowFailException

from airflow_provider_druid_ingest.core.errors import SpecValidationError
from airflow_provider_druid_ingest.hooks.druid import DruidHook
from airflow_provider_druid_ingest.links import DruidTaskLink, push_task_refs

if TYPE_CHECKING:
    from airflow.sdk import Context

    from airflow_provider_druid_ingest.core.models import SubmitOutcome
    from airflow_provider_druid_ingest.core.sync_client import DruidClient

def default_deferrable() -> bool:
    """True unless ``[druid_ingest] default_deferrable`` (``AIRFLOW__DRUID_INGEST__DEFAULT_DEFERRABLE``) says no.

    Not ``conf.getboolean("operators", "default_deferrable", fallback=True)``: that option exists with
    default ``false`` (and ``airflow db migrate`` writes ``default_deferrable = false`` into airflow.cfg), so
    the fallback never applies and the result is False on a stock deployment. A Druid wait lasts minutes to
    hours, so these operators defer by default; our own option turns that off deployment-wide.
    """
    return conf.getboolean("druid_ingest", "default_deferrable", fallback=True)


def druid_instant(value: datetime) -> str:
    """An aware datetime as Druid-friendly UTC ISO 8601: ``2026-11-01T00:00:00Z`` (millis when non-zero)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    value = value.astimezone(timezone.utc)
    millis = f".{value.microsecond // 1000:03d}" if value.microsecond else ""
    return value.strftime("%Y-%m-%dT%H:%M:%S") + millis + "Z"


def run_intervals(context: Context) -> list[str] | None:
    """``["<data_interval_start>/<data_interval_end>"]`` of the run, or None without a (non-empty) interval."""
    start, end = context.get("data_interval_start"), context.get("data_interval_end")
    if start is None or end is None or start >= end:
        return None
    return [f"{druid_instant(start)}/{druid_instant(end)}"]


def as_list(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def default_outlets(spec: Any, datasource: Any, conn_id: Any) -> list[Any]:
    """``[Asset("druid://<conn>/<datasource>")]`` when the datasource is known at parse time, else []."""
    if not datasource and isinstance(spec, dict):
        from airflow_provider_druid_ingest.core.spec import spec_facts

        try:
            datasource = spec_facts(spec).datasource
        except Exception:
            datasource = None
    if not isinstance(datasource, str) or not datasource or "{" in datasource:
        return []
    from airflow.sdk import Asset

    return [Asset(f"druid://{conn_id or DruidHook.default_conn_name}/{datasource}")]


@dataclass(frozen=True)
class PreparedSpec:
    """The rendered, validated spec and the facts the submit/wait steps need."""

    spec: dict[str, Any]
    datasource: str
    intervals: list[str]
    append: bool
    task_slots: int


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
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.datasource = datasource
        self.intervals = intervals
        self.input_locations = input_locations
        self.idempotency_key = idempotency_key
        self.druid_conn_id = druid_conn_id

    def render_template(
        self, content: Any, context: Context, jinja_env: Any = None, seen_oids: set[int] | None = None
    ) -> Any:
        """Only a top-level string names a ``.json`` template file. Strings *inside* a dict or list spec are
        text: Airflow would otherwise try to load e.g. an inputSource ``"filter": "*.json"`` as a template."""
        if isinstance(content, dict | list):
            return self._render_nested(content, context, jinja_env or self.get_template_env())
        return super().render_template(content, context, jinja_env, seen_oids)

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

    @property
    def hook(self) -> DruidHook:
        return DruidHook(druid_conn_id=self.druid_conn_id)

    def prepare(self, context: Context) -> PreparedSpec:
        """Render and validate the spec: no client, no HTTP. Invalid specs fail without retries."""
        from airflow_provider_druid_ingest.core.spec import render_spec, spec_facts, validate_spec

        template = self.spec
        if isinstance(template, str):
            try:
                template = json.loads(template)
            except ValueError as exc:
                raise AirflowFailException(f"the rendered Druid spec is not valid JSON: {exc}") from None
        intervals = as_list(self.intervals)
        if intervals is None:
            intervals = run_intervals(context)
        try:
            spec = render_spec(
                template,
                datasource=self.datasource or None,
                intervals=intervals,
                input_locations=as_list(self.input_locations),
            )
            validate_spec(spec)
        except SpecValidationError as exc:
            raise AirflowFailException(str(exc)) from None
        facts = spec_facts(spec)
        datasource = self.datasource or facts.datasource
        if not datasource:
            raise AirflowFailException("spec.dataSchema.dataSource: missing; pass datasource= or set it in the spec")
        return PreparedSpec(spec, datasource, intervals or list(facts.intervals), facts.append, facts.task_slots)

    def ensure(self, client: DruidClient, prepared: PreparedSpec) -> SubmitOutcome:
        """Adopt a live/succeeded task for this work, or submit the next attempt; log which, with the URL."""
        outcome = client.ensure_submitted(
            prepared.spec,
            datasource=prepared.datasource,
            intervals=prepared.intervals,
            idempotency_key=self.idempotency_key or None,
        )
        url = client.config.console_task_url(outcome.task_id)
        if outcome.action == "submitted":
            self.log.info(
                "Submitted Druid task %s (attempt %d) for %s %s; %d task slot(s) at peak. Console: %s",
                outcome.task_id, outcome.attempt, prepared.datasource, prepared.intervals,
                prepared.task_slots, url,
            )
        else:
            self.log.info(
                "Adopted existing Druid task %s (state %s, attempt %d): same work, not resubmitting. Console: %s",
                outcome.task_id, outcome.state, outcome.attempt, url,
            )
        return outcome


class DruidSubmitOperator(DruidSpecOperator):
    """Submit a Druid ingestion task (idempotently) and return its id; pair with the sensors to wait.

    Pushes XCom ``druid_task_id`` (also the return value) and ``druid_task_url`` (console link).
    Once submitted the Druid task is on its own: killing this Airflow task does not shut it down.

    .. code-block:: python

        submit = DruidSubmitOperator(task_id="submit", spec="specs/events_web.json")
        wait = DruidTaskSensor(task_id="wait", druid_task_id="{{ ti.xcom_pull(task_ids='submit') }}")
    """

    def __init__(self, spec: dict[str, Any] | str, **kwargs: Any) -> None:
        super().__init__(spec=spec, **kwargs)

    def execute(self, context: Context) -> str:
        prepared = self.prepare(context)
        with self.hook.get_client() as client:
            outcome = self.ensure(client, prepared)
            url = client.config.console_task_url(outcome.task_id)
        push_task_refs(context, outcome.task_id, url)
        return outcome.task_id

    def on_kill(self) -> None:
        self.log.info("Submit-only operator killed: a submitted Druid task keeps running (nothing to shut down)")

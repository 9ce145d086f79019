"""``DruidMsqIngestOperator``: SQL-based (MSQ) ingestion with the same gates as :class:`DruidIngestOperator`.

A templated ``REPLACE INTO ... OVERWRITE WHERE`` (or ``INSERT``) statement, rendered by the core's MSQ plan for
the run's interval, sent to ``POST /druid/v2/sql/task`` with a deterministic ``sqlQueryId`` (so the controller
task ``query-<id>`` is adopted on retry and re-run), then the same deferred wait, failure summary, handoff gate
and shutdown on kill as the native one-shot operator (both are :class:`DruidWorkOperator`): only the plan
differs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from airflow_provider_druid_ingest.common.run_context import as_list, run_intervals
from airflow_provider_druid_ingest.operators.work import DruidWorkOperator

if TYPE_CHECKING:
    from airflow.sdk import Context
    from druid_ingest.planning import MsqPlan

__all__ = ["DruidMsqIngestOperator", "msq_pool_slots"]


def msq_pool_slots(query_context: Any) -> int:
    """The Druid task slots an MSQ query holds at its peak: ``maxNumTasks`` (controller + workers; default 2)."""
    slots = query_context.get("maxNumTasks", 2) if isinstance(query_context, dict) else 2
    return slots if isinstance(slots, int) and not isinstance(slots, bool) and slots > 0 else 2


class DruidMsqIngestOperator(DruidWorkOperator):
    """Ingest with one MSQ statement per run and finish only when the new data is queryable.

    :param sql: the statement, a Jinja template rendered by the core (not by Airflow) with ``interval_start``
        and ``interval_end`` (SQL ``TIMESTAMP`` literal text, e.g. ``2026-11-01 00:00:00``), ``interval`` (ISO),
        ``interval_date`` (``YYYY-MM-DD`` of the interval's start), ``datasource`` and ``variables``. A
        ``REPLACE`` must be bounded to the run's interval: ``OVERWRITE WHERE __time >= TIMESTAMP
        '{{ interval_start }}' AND __time < TIMESTAMP '{{ interval_end }}'``; anything else fails before any
        HTTP call, naming the clause and the interval.
    :param query_context: MSQ query context (``maxNumTasks``, ``finalizeAggregations``, ...); ``sqlQueryId`` is
        the plan's. ``pool_slots`` defaults to ``maxNumTasks`` (default 2: controller + one worker).
    :param variables: extra template variables
    :param allow_overwrite_all: accept ``OVERWRITE ALL`` (replaces every interval of the datasource)
    :param datasource: the table the statement must write (checked); also the default Asset
    :param allow_empty: by default the statement runs with ``failOnEmptyInsert=true``, so a missing or empty
        input FAILS (InsertCannotBeEmpty) and the interval keeps its data; with True Druid replaces the interval
        with tombstones (the day becomes empty) and the task succeeds

    Everything else as :class:`~airflow_provider_druid_ingest.operators.work.DruidWorkOperator` (``intervals``,
    ``idempotency_key``, ``wait_for_handoff``, ``on_never``, timeouts, ``shutdown_on_kill``, ``deferrable``, ...).
    The handoff gate is the package's (the controller's published version, read from the metadata store), not
    MSQ's own ``waitUntilSegmentsLoad``, which would hold two task slots while waiting.
    """

    template_fields: Sequence[str] = ("sql", "datasource", "intervals", "idempotency_key", "query_context",
                                      "variables")
    template_ext: Sequence[str] = ()
    template_fields_renderers = {"sql": "sql", "query_context": "json"}
    plan_noun = "MSQ statement"

    def __init__(
        self,
        sql: str,
        *,
        query_context: dict[str, Any] | None = None,
        variables: dict[str, Any] | None = None,
        allow_overwrite_all: bool = False,
        pool_slots: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(pool_slots=pool_slots or msq_pool_slots(query_context), **kwargs)
        self.sql = sql
        self.query_context = dict(query_context or {})
        self.variables = dict(variables or {})
        self.allow_overwrite_all = allow_overwrite_all

    @classmethod
    def _default_pool_slots(cls, kwargs: dict[str, Any]) -> int:
        return msq_pool_slots(kwargs.get("query_context"))

    def render_template(
        self, content: Any, context: Context, jinja_env: Any = None, seen_oids: set[int] | None = None
    ) -> Any:
        """``sql`` is rendered by the core's plan with the interval variables, so Airflow leaves it as written
        (it would fail on ``{{ interval_start }}``, which is not in Airflow's context)."""
        if content is self.sql:
            return content
        return super().render_template(content, context, jinja_env, seen_oids)

    def build_plan(self, context: Context) -> MsqPlan:
        from druid_ingest.planning import build_msq_plan

        return build_msq_plan(
            self.sql,
            intervals=as_list(self.intervals) or run_intervals(context) or [],
            datasource=self.datasource or None,
            context=self.query_context,
            variables=self.variables,
            idempotency_key=self.idempotency_key or None,
            allow_overwrite_all=self.allow_overwrite_all,
            allow_empty=self.allow_empty,
        )

    def plan(self, context: Context, *, log_warnings: bool = True) -> MsqPlan:
        """The run's MSQ plan (``DruidPlanOperator.plan``), and the rendered statement in the task log."""
        plan = cast("MsqPlan", super().plan(context, log_warnings=log_warnings))  # build_plan's
        if log_warnings:
            self.log.info("MSQ statement for %s:\n%s", ", ".join(plan.intervals), plan.sql)
        return plan

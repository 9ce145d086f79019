"""``DruidSpecOperator``: what the operators driven by a native Druid task spec share.

The templated spec fields (the spec as a dict, JSON text or a ``.json`` template file; Jinja inside its strings)
and the native plan (``build_plan``: rendered, pre-flighted, aligned). Everything else, from the connection to
``ensure_submitted``, is :class:`DruidPlanOperator`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from druid_ingest.planning import Preflight, check_preflight

from airflow_provider_druid_ingest.common.run_context import as_list, run_intervals
from airflow_provider_druid_ingest.operators.plan_operator import DruidPlanOperator

if TYPE_CHECKING:
    from airflow.sdk import Context
    from druid_ingest.planning import IngestionPlan

__all__ = ["DruidSpecOperator"]


class DruidSpecOperator(DruidPlanOperator):
    """Base of the spec-driven operators (not meant to be used directly). Takes the parameters of
    :class:`~airflow_provider_druid_ingest.operators.plan_operator.DruidPlanOperator` and:

    :param spec: the Druid task spec: a dict, JSON text, or a ``.json`` template file (found next to the DAG
        file or on ``template_searchpath``) rendered with the run's context. A bare ingestion spec
        (``{"dataSchema": ..., "ioConfig": ..., "tuningConfig": ...}``) is wrapped as ``index_parallel``.
    :param datasource: overrides ``spec.dataSchema.dataSource``
    :param intervals: overrides ``granularitySpec.intervals``; default: the run's data interval in UTC
    :param input_locations: replaces the input source's locations (``baseDir``/``uris``/``prefixes``/...)
    :param allow_unaligned: accept a replace whose intervals do not start and end on ``segmentGranularity``
        bucket boundaries (a non-UTC timetable with DAY segments): Druid overwrites the whole buckets, so the
        stored hours outside the run's interval are lost. Refused by default (docs/airflow.md "Non-UTC schedules");
        with it the loss is logged as a warning.
    :param allow_empty: an empty interval is intended (a holiday). By default a ``dropExisting`` replace first
        probes its input through Druid's sampler (one POST before the submit) and fails, submitting nothing, when
        it reads no row: Druid would replace the interval's data with tombstones. True: no probe.
    :param preflight: ``"fail"`` (default) refuses a spec pre-flight finds wrong, before any HTTP; ``"warn"``
        (the escape hatch when Druid accepts the spec and the check is wrong) logs every problem as a warning
        and submits the spec as is. A spec without a datasource, with unparseable intervals or non-JSON values
        stays refused (core ``build_plan``).
    """

    template_fields: Sequence[str] = ("spec", "datasource", "intervals", "input_locations", "idempotency_key")
    template_ext: Sequence[str] = (".json",)
    template_fields_renderers = {"spec": "json"}

    def __init__(
        self,
        *,
        spec: dict[str, Any] | str,
        input_locations: list[str] | str | None = None,
        allow_unaligned: bool = False,
        preflight: Preflight = "fail",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.allow_unaligned = allow_unaligned
        self.preflight = check_preflight(preflight)  # a typo fails at DAG parse, not at the run
        self.spec = spec
        self.input_locations = input_locations

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

    def build_plan(self, context: Context) -> IngestionPlan:
        from druid_ingest.planning import build_plan

        return build_plan(
            self.spec,
            datasource=self.datasource or None,
            intervals=as_list(self.intervals) or run_intervals(context),
            input_locations=as_list(self.input_locations),
            idempotency_key=self.idempotency_key or None,
            allow_unaligned=self.allow_unaligned,
            preflight=self.preflight,
        )

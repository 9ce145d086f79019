"""``@task.druid_ingest`` and ``@task.druid_msq``: the spec (or MSQ statement) computed at run time.

Modelled on common.sql's ``@task.sql``: a ``DecoratedOperator`` mixed into our operator, whose ``execute`` runs
the function, puts its return value where the operator keeps its spec, and then runs the operator's own
``execute`` (plan and pre-flight, submit, wait, handoff gate, Asset event). Nothing of that path is repeated here.
Two decorators, not one that guesses: a native spec and an MSQ statement can both be strings (JSON text, SQL), and
each operator takes its own parameters (``input_locations`` vs ``query_context``/``variables``).

What the decorator gives up, being computed at run time (docs/airflow-3.3.md "TaskFlow decorators"):
``pool_slots`` cannot be derived from the spec at parse time (default 1 for a spec; pass ``pool_slots=``), no
default Asset outlet unless ``datasource=`` is given, no pre-flight or ``druid-ingest check-dags`` finding before
the run, and the deterministic Druid task id is only as stable as the function: a retry adopts the running task
only when the function returns the same spec again.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from airflow.sdk.bases.decorator import DecoratedOperator, determine_kwargs, task_decorator_factory
from airflow.sdk.definitions._internal.types import SET_DURING_EXECUTION
from airflow.sdk.definitions.context import context_merge
from airflow.sdk.exceptions import AirflowFailException

from airflow_provider_druid_ingest.operators.ingest import DruidIngestOperator
from airflow_provider_druid_ingest.operators.msq import DruidMsqIngestOperator, msq_pool_slots

if TYPE_CHECKING:
    from airflow.sdk import Context
    from airflow.sdk.bases.decorator import TaskDecorator

__all__ = ["druid_ingest_task", "druid_msq_task"]  # the registered decorators (``ForIntervals``: the package's)

#: the deferral's ``next_kwargs`` key that carries the computed value to ``execute_complete``
CARRIED = "druid_computed"
#: ... and the one that carries the intervals a ``ForIntervals`` named
CARRIED_INTERVALS = "druid_computed_intervals"


@dataclass(frozen=True)
class ForIntervals:
    """What the function returns to name the ingestion's intervals itself: ``ForIntervals(spec, ["2026-07-14/
    2026-07-15"])``. The decorator's ``intervals=`` is one value for every instance of a mapped task (Airflow maps
    only the function's arguments), and a run's data interval would otherwise replace each spec's intervals; so one
    ingestion per day from a list, inside one scheduled run, needs the day from the function."""

    value: Any
    intervals: Sequence[str]


class _Computed(DecoratedOperator):
    """Runs the function once per execution and carries its value across a deferral (not to run it twice)."""

    value_field: ClassVar[str]  # the operator attribute the function's return value replaces
    custom_operator_name: str
    intervals: list[str] | str | None  # the operator's; set by a ForIntervals return value

    def __init__(self, *, python_callable: Callable[..., Any], op_args: Collection[Any] | None = None,
                 op_kwargs: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        kwargs[self.value_field] = SET_DURING_EXECUTION
        super().__init__(python_callable=python_callable, op_args=op_args, op_kwargs=op_kwargs, **kwargs)

    def accept(self, value: Any, context: Context) -> Any:
        """The function's return value as the operator takes it, or a failure (no retry) saying what was wrong."""
        raise NotImplementedError

    def compute(self, context: Context) -> None:
        context_merge(context, self.op_kwargs)
        kwargs = determine_kwargs(self.python_callable, self.op_args, context)
        value = self.python_callable(*self.op_args, **kwargs)
        if isinstance(value, ForIntervals):
            self._set_intervals(value.intervals)
            value = value.value
        setattr(self, self.value_field, self.accept(value, context))

    def _set_intervals(self, intervals: Any) -> None:
        if isinstance(intervals, str) or not intervals or not all(isinstance(i, str) and i for i in intervals):
            raise AirflowFailException(f"{self.custom_operator_name} {self.task_id!r}: ForIntervals(intervals="
                                       f"{intervals!r}); expected a non-empty list of ISO intervals "
                                       "('2026-07-14/2026-07-15')")
        self.intervals = list(intervals)
        self._computed_intervals = True

    def execute(self, context: Context) -> Any:
        self.compute(context)
        return super().execute(context)  # DecoratedOperator.execute -> the operator's execute

    def defer(self, *, trigger: Any, method_name: str, kwargs: dict[str, Any] | None = None,
              timeout: Any = None) -> Any:
        """The resumed task is a fresh operator whose value is unset: the deferral keeps the computed one."""
        carried = {**(kwargs or {}), CARRIED: getattr(self, self.value_field)}
        if getattr(self, "_computed_intervals", False):
            carried[CARRIED_INTERVALS] = self.intervals  # the list _set_intervals made
        super().defer(trigger=trigger, method_name=method_name, kwargs=carried, timeout=timeout)

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None, **carried: Any) -> Any:
        if CARRIED in carried:
            setattr(self, self.value_field, carried[CARRIED])
            if CARRIED_INTERVALS in carried:
                self.intervals = carried[CARRIED_INTERVALS]
        else:  # Airflow's triggerer keeps the deferral's kwargs; dag.test() resumes with the event alone
            self.log.info("The resumed task got no computed %s from its deferral: running the function again",
                          self.value_field)
            self.compute(context)
        return super().execute_complete(context, event)  # type: ignore[misc]


def _shape(value: Any) -> str:
    return "an empty string" if isinstance(value, str) else type(value).__name__


class _DruidIngestDecoratedOperator(_Computed, DruidIngestOperator):
    """``DruidIngestOperator`` whose ``spec`` is the decorated function's return value (a dict or JSON text)."""

    template_fields: Sequence[str] = (*DecoratedOperator.template_fields, *DruidIngestOperator.template_fields)
    template_fields_renderers: ClassVar[dict[str, str]] = {**DecoratedOperator.template_fields_renderers,
                                                           **DruidIngestOperator.template_fields_renderers}
    custom_operator_name: str = "@task.druid_ingest"
    overwrite_rtif_after_execution: bool = True  # the UI's Rendered tab shows the computed spec
    value_field = "spec"

    def accept(self, value: Any, context: Context) -> Any:
        """A dict or non-empty JSON text, rendered like the operator's spec (Jinja in its strings); the plan
        that follows checks it (pre-flight) before any HTTP call."""
        if not isinstance(value, dict) and not (isinstance(value, str) and value.strip()):
            raise AirflowFailException(f"{self.custom_operator_name} {self.task_id!r}: the function returned "
                                       f"{_shape(value)}; expected the Druid ingestion spec as a dict (or JSON "
                                       "text)")
        return self._render_nested(value, context, self.get_template_env())


class _DruidMsqDecoratedOperator(_Computed, DruidMsqIngestOperator):
    """``DruidMsqIngestOperator`` whose ``sql`` is the decorated function's return value (rendered by the core's
    MSQ plan with ``interval_start``/``interval_end``/..., as the operator's)."""

    template_fields: Sequence[str] = (*DecoratedOperator.template_fields, *DruidMsqIngestOperator.template_fields)
    template_fields_renderers: ClassVar[dict[str, str]] = {**DecoratedOperator.template_fields_renderers,
                                                           **DruidMsqIngestOperator.template_fields_renderers}
    custom_operator_name: str = "@task.druid_msq"
    overwrite_rtif_after_execution: bool = True
    value_field = "sql"

    def accept(self, value: Any, context: Context) -> Any:
        if not (isinstance(value, str) and value.strip()):
            raise AirflowFailException(f"{self.custom_operator_name} {self.task_id!r}: the function returned "
                                       f"{_shape(value)}; expected one MSQ statement (REPLACE/INSERT) as a string")
        return value


def druid_ingest_task(python_callable: Callable[..., Any] | None = None, **kwargs: Any) -> TaskDecorator:
    """``@task.druid_ingest``: the function returns the Druid ingestion spec; the task ingests it like
    :class:`DruidIngestOperator` (its other parameters are the decorator's keywords). The task's XCom is the
    Druid task id, whatever the function's annotation (``-> dict`` would otherwise unroll it)."""
    return task_decorator_factory(python_callable=python_callable, multiple_outputs=False,
                                  decorated_operator_class=_DruidIngestDecoratedOperator, **kwargs)


def druid_msq_task(python_callable: Callable[..., Any] | None = None, **kwargs: Any) -> TaskDecorator:
    """``@task.druid_msq``: the function returns the MSQ statement; the task runs it like
    :class:`DruidMsqIngestOperator` (its other parameters are the decorator's keywords).

    ``pool_slots`` (default: ``maxNumTasks`` of ``query_context``, else 2) is set here, not only by the operator:
    a mapped task's instances take their slots from the decorator's keywords before any operator exists."""
    if kwargs.get("pool_slots") is None:
        kwargs["pool_slots"] = msq_pool_slots(kwargs.get("query_context"))
    return task_decorator_factory(python_callable=python_callable, multiple_outputs=False,
                                  decorated_operator_class=_DruidMsqDecoratedOperator, **kwargs)

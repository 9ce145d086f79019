"""Pause a datasource's auto-compaction around a backfill, and put it back afterwards (docs/lifecycle.md).

Why: auto-compaction compacts the intervals a backfill replaces at the same time, at priority 25 against the
backfill's 50, so its compactions lose their locks and fail (and are retried later). Nothing is lost, but slots
are wasted; a pause stops that.

How, by what the cluster reports (logged): when ``isSupervisorEnabled`` is true, the datasource's compaction
supervisor ``autocompact__<ds>`` is suspended and resumed; otherwise (Druid 33's default, and any Druid without the
supervisors) the Coordinator's compaction config is the only switch: the pause saves it and deletes it, the resume
posts the saved config back. Each change carries our audit comment, so Druid's audit history says who deleted the
config; that is what makes the delete safe to retry and recover:

- a retried pause that finds no config, whose latest change is *our* pause's deletion, returns the config from the
  history (``recovered_from_history``): the original is never lost to a retry;
- a resume without the record (an Airflow XCom lost with a failed try) recovers it the same way;
- a config someone else deleted is never revived, and a config someone re-created meanwhile is never overwritten.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from druid_ingest.api import endpoints as ep
from druid_ingest.errors import DruidProtocolError, DruidUsageError
from druid_ingest.wire import Operation, Progress, call, seg

__all__ = ["PAUSE_COMMENT", "AutoCompactionPause", "AutoCompactionResume", "pause_auto_compaction",
           "paused_config", "resume_auto_compaction"]

log = logging.getLogger("druid_ingest.auto_compaction")

Paused = Literal["compaction config", "compaction supervisor", "nothing configured"]
PAUSED: tuple[Paused, ...] = ("compaction config", "compaction supervisor", "nothing configured")
ResumeOutcome = Literal["resumed", "already resumed", "left as is", "nothing to resume"]

#: the audit comment of our pause's deletion; a retry recognises its own deletion by it
PAUSE_COMMENT = "druid-ingest: auto-compaction paused for a backfill"
RESUME_COMMENT = "druid-ingest: auto-compaction resumed after a backfill"
OPT_OUT = ("To backfill without pausing auto-compaction, drop the pause and resume steps (its compactions of the "
           "replaced intervals then fail and are retried later; nothing is lost)")


@dataclass(frozen=True)
class AutoCompactionPause:
    """What a pause did, JSON-able (:meth:`to_json`): the config it deleted, the supervisor it suspended, or
    nothing (no auto-compaction configured: the resume then does nothing)."""

    datasource: str
    paused: Paused
    config: dict[str, Any] | None = None
    supervisor_id: str | None = None
    #: the config came from Druid's audit history (a retry after this pause's own deletion)
    recovered_from_history: bool = False
    druid_version: str | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"datasource": self.datasource, "paused": self.paused, "config": self.config,
                "supervisor_id": self.supervisor_id, "recovered_from_history": self.recovered_from_history,
                "druid_version": self.druid_version}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AutoCompactionPause:
        """The record back from :meth:`to_json`; DruidUsageError naming the field that is wrong."""
        if not isinstance(data, Mapping):
            raise DruidUsageError(f"record: a pause record is a JSON object, not {type(data).__name__}")
        ds, paused = data.get("datasource"), data.get("paused")
        config, sup = data.get("config"), data.get("supervisor_id")
        if not isinstance(ds, str) or not ds:
            raise DruidUsageError(f"record.datasource: a datasource name is required, not {ds!r}")
        if paused not in PAUSED:
            raise DruidUsageError(f"record.paused: one of {', '.join(map(repr, PAUSED))}, not {paused!r}")
        if paused == "compaction config" and (not isinstance(config, dict) or config.get("dataSource") != ds):
            raise DruidUsageError(f"record.config: the compaction config of {ds!r} (a JSON object whose dataSource "
                                  f"is {ds!r}) is required when paused is 'compaction config'")
        if paused == "compaction supervisor" and sup != ep.supervisor_id(ds):
            raise DruidUsageError(f"record.supervisor_id: {ep.supervisor_id(ds)!r} is required when paused is "
                                  f"'compaction supervisor', not {sup!r}")
        version = data.get("druid_version")
        return cls(ds, paused, config if paused == "compaction config" else None,
                   sup if paused == "compaction supervisor" else None,
                   bool(data.get("recovered_from_history", False)), version if isinstance(version, str) else None)

    @property
    def detail(self) -> str:
        if self.paused == "compaction config":
            how = " (recovered from Druid's audit history: an earlier try had deleted it)" \
                if self.recovered_from_history else ""
            return (f"auto-compaction of {self.datasource!r} paused: its Coordinator compaction config is deleted "
                    f"and saved in this record{how}; resume posts it back")
        if self.paused == "compaction supervisor":
            return f"auto-compaction of {self.datasource!r} paused: supervisor {self.supervisor_id} suspended"
        return f"auto-compaction of {self.datasource!r}: nothing configured, nothing paused; resume does nothing"


@dataclass(frozen=True)
class AutoCompactionResume:
    """What a resume found and did."""

    datasource: str
    outcome: ResumeOutcome
    detail: str


def _checked_datasource(datasource: object) -> str:
    if not isinstance(datasource, str) or not datasource.strip():
        raise DruidUsageError(f"datasource: a datasource name is required, not {datasource!r}")
    seg(datasource, "datasource")
    return datasource


def paused_config(history: list[ep.ConfigChange]) -> dict[str, Any] | None:
    """The config our pause deleted, when the datasource's last config change is that deletion (its audit author
    and comment ours); None otherwise: never configured, deleted by someone else, or present now."""
    last = max((i for i, change in enumerate(history) if change.config is not None), default=None)
    if last is None or last + 1 >= len(history):
        return None
    deletion = history[last + 1]
    if deletion.author == ep.AUDIT_AUTHOR and deletion.comment.startswith(PAUSE_COMMENT):
        return history[last].config
    return None


def _say(line: str) -> Operation[None]:
    log.info("%s", line)
    yield Progress(line)


def _mechanism(datasource: str) -> Operation[tuple[Paused, str | None]]:
    """Which switch this cluster has, logged: the supervisor when it compacts with supervisors, else the config."""
    found = yield from call(ep.druid_version(), ep.parse_druid_version)
    enabled = yield from call(ep.compaction_supervisors_enabled(), ep.parse_compaction_supervisors_enabled)
    where = f"Druid {found.version or '(version unknown)'} at {found.answered_by}"
    if enabled:
        yield from _say(f"{where} runs auto-compaction as supervisors: pausing means suspending "
                        f"{ep.supervisor_id(datasource)}")
        return "compaction supervisor", found.version
    why = "off" if enabled is False else "not available there"
    yield from _say(f"{where}: compaction supervisors are {why}, so the Coordinator's compaction config of "
                    f"{datasource!r} is the switch (deleted on pause, posted back on resume)")
    return "compaction config", found.version


def _recovered(datasource: str) -> Operation[dict[str, Any] | None]:
    history = yield from call(ep.compaction_config_history(datasource), ep.parse_compaction_config_history)
    return paused_config(history)


def pause_auto_compaction(datasource: str, adopt_suspended: bool = False) -> Operation[AutoCompactionPause]:
    """Pause the datasource's auto-compaction (see the module docstring); the record a resume takes.

    A compaction supervisor found already suspended fails closed (DruidUsageError, nothing changed): a resume
    would then either leave it suspended for good (if this pause's earlier try suspended it) or resume what someone
    suspended on purpose. ``adopt_suspended=True`` records it as this pause's, so the resume resumes it."""
    datasource = _checked_datasource(datasource)
    mechanism, version = yield from _mechanism(datasource)
    if mechanism == "compaction supervisor":
        record = yield from _suspend(datasource, adopt_suspended, version)
    else:
        record = yield from _delete_config(datasource, version)
    yield from _say(record.detail)
    return record


def _delete_config(datasource: str, version: str | None) -> Operation[AutoCompactionPause]:
    config = yield from call(ep.compaction_config(datasource), ep.parse_compaction_config)
    if config is not None:
        deleted = yield from call(ep.delete_compaction_config(datasource, PAUSE_COMMENT), ep.parse_config_change)
        if deleted:
            return AutoCompactionPause(datasource, "compaction config", config, druid_version=version)
    saved = yield from _recovered(datasource)  # none now: our earlier try's deletion, or never configured
    if saved is not None:
        return AutoCompactionPause(datasource, "compaction config", saved, recovered_from_history=True,
                                   druid_version=version)
    return AutoCompactionPause(datasource, "nothing configured", druid_version=version)


def _suspend(datasource: str, adopt: bool, version: str | None) -> Operation[AutoCompactionPause]:
    sup = ep.supervisor_id(datasource)
    suspended = yield from call(ep.compaction_supervisor(datasource), ep.parse_compaction_supervisor)
    switched = "missing" if suspended is None else "already" if suspended else None
    if switched is None:
        switched = yield from call(ep.switch_supervisor(datasource, suspend=True), ep.parse_supervisor_switch)
    if switched == "missing":
        return AutoCompactionPause(datasource, "nothing configured", druid_version=version)
    if switched == "already" and not adopt:
        raise DruidUsageError(
            f"{sup} is already suspended, so this pause cannot tell whose suspension it is; nothing was changed. If "
            "an earlier try of this pause suspended it, pass adopt_suspended=True (CLI: --adopt-suspended) and the "
            "resume will resume it; if someone suspended it on purpose, leave it and drop the pause step. " + OPT_OUT)
    return AutoCompactionPause(datasource, "compaction supervisor", supervisor_id=sup, druid_version=version)


def resume_auto_compaction(
    datasource: str, record: AutoCompactionPause | Mapping[str, Any] | None,
) -> Operation[AutoCompactionResume]:
    """Put back what the pause saved (see the module docstring). ``record`` None (lost): the config our pause
    deleted is recovered from Druid's audit history; a supervisor cannot be, so that fails closed."""
    datasource = _checked_datasource(datasource)
    if record is not None and not isinstance(record, AutoCompactionPause):
        record = AutoCompactionPause.from_json(record)
    if record is not None and record.datasource != datasource:
        raise DruidUsageError(f"record.datasource: the record is of {record.datasource!r}, not {datasource!r}")
    if record is None:
        result = yield from _resume_lost(datasource)
    elif record.paused == "compaction config":
        assert record.config is not None
        result = yield from _post_back(datasource, record.config, recovered=False)
    elif record.paused == "compaction supervisor":
        result = yield from _unsuspend(datasource)
    else:
        result = AutoCompactionResume(datasource, "nothing to resume", f"auto-compaction of {datasource!r}: the "
                                      "pause found nothing configured, so there is nothing to resume")
    yield from _say(result.detail)
    return result


def _resume_lost(datasource: str) -> Operation[AutoCompactionResume]:
    mechanism, _ = yield from _mechanism(datasource)
    if mechanism == "compaction supervisor":
        suspended = yield from call(ep.compaction_supervisor(datasource), ep.parse_compaction_supervisor)
        if suspended:
            raise DruidUsageError(
                f"No pause record, and {ep.supervisor_id(datasource)} is suspended: whether a pause suspended it "
                "cannot be known, so it is left suspended. Resume it yourself if it was the pause's (POST "
                f"/druid/indexer/v1/supervisor/{ep.supervisor_id(datasource)}/resume). " + OPT_OUT)
        return AutoCompactionResume(datasource, "nothing to resume", f"no pause record; "
                                    f"{ep.supervisor_id(datasource)} is not suspended (or does not exist)")
    current = yield from call(ep.compaction_config(datasource), ep.parse_compaction_config)
    saved = None if current is not None else (yield from _recovered(datasource))
    if saved is None:
        state = "has a compaction config" if current is not None else \
            "has no compaction config, and its last change is no pause of ours"
        return AutoCompactionResume(datasource, "nothing to resume", f"no pause record; {datasource!r} {state}: "
                                    "nothing to resume")
    return (yield from _post_back(datasource, saved, recovered=True))


def _post_back(datasource: str, config: dict[str, Any], recovered: bool) -> Operation[AutoCompactionResume]:
    current = yield from call(ep.compaction_config(datasource), ep.parse_compaction_config)
    if current == config:
        return AutoCompactionResume(datasource, "already resumed", f"auto-compaction of {datasource!r}: its "
                                    "compaction config is already the one the pause saved; nothing changed")
    if current is not None:
        log.warning("auto-compaction of %r: a different compaction config was created while it was paused; it is "
                    "left as is, the saved one is not posted: %s", datasource, config)
        return AutoCompactionResume(datasource, "left as is", f"auto-compaction of {datasource!r}: a compaction "
                                    "config was created while it was paused; it is left as is and the one the "
                                    "pause saved is not posted back (it is in the log)")
    yield from call(ep.post_compaction_config(config, RESUME_COMMENT), ep.parse_config_change)
    now = yield from call(ep.compaction_config(datasource), ep.parse_compaction_config)
    if now is None:
        raise DruidProtocolError(f"Druid accepted the compaction config of {datasource!r} but has none: "
                                 f"post it yourself: {config}")
    whence = " (recovered from Druid's audit history)" if recovered else ""
    return AutoCompactionResume(datasource, "resumed", f"auto-compaction of {datasource!r} resumed: the compaction "
                                f"config the pause saved{whence} is posted back")


def _unsuspend(datasource: str) -> Operation[AutoCompactionResume]:
    sup = ep.supervisor_id(datasource)
    switched = yield from call(ep.switch_supervisor(datasource, suspend=False), ep.parse_supervisor_switch)
    if switched == "missing":
        return AutoCompactionResume(datasource, "left as is", f"{sup} no longer exists (terminated while paused); "
                                    "nothing is re-created")
    if switched == "already":
        return AutoCompactionResume(datasource, "already resumed", f"{sup} is already running; nothing changed")
    return AutoCompactionResume(datasource, "resumed", f"auto-compaction of {datasource!r} resumed: {sup} running")

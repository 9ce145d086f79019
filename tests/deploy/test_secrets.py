"""The Druid connection's password never leaves the connection, on a real deployment: after an ingestion that
succeeds and one that fails (with a known password on ``crash_druid``; the dev Druid ignores Authorization), the
password and its basic-auth form are in no task or trigger log, no service log (scheduler, triggerer, ...), no
XCom, no rendered template field, no exception text, no serialized trigger kwargs (decrypted, read while the
trigger exists) and nowhere in a ``pg_dump`` of the metadata database (there the connection row holds it only
Fernet-encrypted). The relay proves the password was in flight: every Druid call carried it."""

from __future__ import annotations

import base64
import glob
import json
import shutil
import subprocess
import sys
from pathlib import Path

from cryptography.fernet import Fernet

from tests.deploy.crash_helpers import CONN_ID, CRASH_DAG, LOGIN

DAY = "2026-11-28"
TRIGGERS = r"""
import json
from sqlalchemy import select
from airflow.models.trigger import Trigger
from airflow.utils.session import create_session
with create_session() as session:
    rows = [{"id": t.id, "classpath": t.classpath, "kwargs": t.kwargs} for t in session.scalars(select(Trigger))]
print("TRIGGERS " + json.dumps(rows, default=str))
"""


def _triggers(env: dict[str, str]) -> list[dict]:
    """The trigger table with its kwargs decrypted (as the triggerer reads them)."""
    out = subprocess.run([sys.executable, "-c", TRIGGERS], env=env, capture_output=True, text=True, timeout=120,
                         check=True).stdout
    return json.loads(next(line for line in out.splitlines() if line.startswith("TRIGGERS "))[9:])


def _pg_dump(env: dict[str, str]) -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_dump")) or [p for p in [shutil.which("pg_dump")] if p]
    assert found, "pg_dump not found (Debian: apt-get install postgresql-client); the secrets check needs it"
    url = env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"].replace("postgresql+psycopg2://", "postgresql://")
    return subprocess.run([found[-1], "--no-owner", url], capture_output=True, text=True, timeout=300,
                          check=True).stdout


def _dump_row(dump: str, table: str, key: str, value: str) -> dict[str, str]:
    """One row of a table in pg_dump's COPY text, as {column: text}."""
    lines = dump.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith(f"COPY public.{table} ("))
    columns = lines[head].split("(", 1)[1].split(")", 1)[0].split(", ")
    for line in lines[head + 1:]:
        if line == "\\.":
            break
        row = dict(zip(columns, line.split("\t"), strict=True))
        if row[key] == value:
            return row
    raise AssertionError(f"no {table} row with {key}={value} in the dump")


def _ti_views(crash, run: dict) -> dict:
    """What the API shows of the task instance: its fields (rendered template fields included) and XComs."""
    base = f"/dags/{CRASH_DAG}/dagRuns/{run['dag_run_id']}/taskInstances/ingest"
    xcoms = crash.api.get(f"{base}/xcomEntries")["xcom_entries"]
    return {"ti": crash.api.get(base),
            "xcom": {x["key"]: crash.api.get(f"{base}/xcomEntries/{x['key']}", deserialize="true") for x in xcoms}}


def test_password_never_leaves_the_connection(crash):
    secret = crash.password
    basic = base64.b64encode(f"{LOGIN}:{secret}".encode()).decode()
    forms = {"password": secret, "basic-auth base64": basic,
             "base64 of the password": base64.b64encode(secret.encode()).decode().rstrip("=")}
    views: dict[str, str] = {}

    # one run: the first try fails (Druid FAILs a malformed input: exception texts in the logs), the retry reads
    # a held input, so its trigger is read from the table while it exists, then succeeds
    crash.server.set_mode(DAY, "bad")
    run, since, first_try = crash.start(CRASH_DAG, DAY, "secrets")
    crash.wait_for(lambda: [t for t in crash.day_tasks(DAY, since) if t["statusCode"] == "FAILED"], 240,
                   "Druid FAILed the first try")
    crash.server.set_mode(DAY, "hold")
    crash.wait_for(lambda: crash.ti(CRASH_DAG, run).get("try_number", 0) > first_try
                   and crash.ti(CRASH_DAG, run).get("state") == "deferred" and crash.server.reads(DAY) >= 2, 240,
                   "the retry deferred and Druid reads its input")
    triggers = _triggers(crash.env)
    assert any(t["kwargs"].get("conn_id") == CONN_ID for t in triggers), triggers
    views["trigger kwargs (decrypted)"] = json.dumps(triggers, default=str)
    views["task instance while deferred"] = json.dumps(crash.ti(CRASH_DAG, run))
    crash.server.release(DAY)
    assert crash.wait_run_done(CRASH_DAG, run, 300)["state"] == "success"
    views["task instance + XCom"] = json.dumps(_ti_views(crash, run), default=str)
    failed_log = crash.task_log(CRASH_DAG, run, first_try)
    assert "Max parse exceptions" in failed_log, failed_log[-2000:]  # Druid's error text reached the log

    dump = _pg_dump(crash.env)
    views["pg_dump of the metadata database"] = dump
    var_dir = Path(crash.env["AIRFLOW_HOME"]).parent
    files = [p for p in (*crash.logs.rglob("*"), *(var_dir / "log").glob("*.log")) if p.is_file()]
    for path in files:
        views[str(path.relative_to(var_dir))] = path.read_text(errors="replace")

    seen = crash.server.authorizations()
    size = sum(len(v) for v in views.values())
    print(f"\n[secrets] the relay saw {len(seen)} Druid calls carrying Authorization; scanned {len(views)} sources "
          f"({size / 1e6:.1f} MB: {len(files)} log files, pg_dump {len(dump) / 1e6:.1f} MB, trigger kwargs, "
          f"task instances, XComs) for {', '.join(forms)}")
    assert seen and set(seen) == {f"Basic {basic}"}, "the password was not in flight: the check would prove nothing"
    # the dump holds the connection, with the password Fernet-encrypted only
    assert Fernet(crash.env["AIRFLOW__CORE__FERNET_KEY"].encode()).decrypt(
        _dump_row(dump, "connection", "conn_id", CONN_ID)["password"].encode()).decode() == secret
    leaks = [f"{form} in {where}" for where, text in views.items() for form, value in forms.items() if value in text]
    assert not leaks, "the password leaked:\n" + "\n".join(leaks)
